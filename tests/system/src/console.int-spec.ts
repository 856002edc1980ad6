import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually } from './support/http';
import { expectAccessible } from './support/axe';
import { InPage, InPageElement, InPageInput } from './support/in-page';
import { ocspStatus } from './support/pki';
import { describeIfPrograms, programPath } from './support/programs';
import { Mode, SystemUnderTest, startSystemUnderTest } from './support/system-under-test';

/**
 * The operator console (docs/console.md) in the machine's Chromium, driven as a person would,
 * against the embedded system (`npm start`'s defaults): sign-in by pasted token and by `#token=`,
 * search as you type and filters, a cursor walk through a few thousand certificates by scrolling
 * without a duplicate while the DOM holds only a window of rows, revoke from the page until OCSP says revoked, bulk revoke with its confirmation,
 * tenant isolation (deep links too), axe-core on every page in light and dark, no console error,
 * no request to another origin than the gateway's and the distribution surface's.
 * CONSOLE_SCREENSHOTS=<dir> also writes each page's screenshot (docs/console.md shows them).
 */
/**
 * One system per run: embedded (what `npm start` runs) by default, and Postgres + NATS (the
 * shipped bus when asked) in CI's pass on those, which would otherwise run the same browser
 * checks on the embedded system a second time.
 */
const MODE: Mode =
  process.env.TEST_REAL_ONLY === '1' && process.env.DATABASE_URL && process.env.NATS_URL
    ? 'postgres+nats'
    : 'embedded';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..', '..');
/** "A few thousand": the walk is 10 pages of the console's 200. CONSOLE_SUITE_CERTIFICATES sets another number. */
const SEEDED = Number(process.env.CONSOLE_SUITE_CERTIFICATES ?? 2_000);
const BULK = Number(process.env.CONSOLE_SUITE_BULK ?? 30);
/** The console's page of the inventory (apps/console/src/pages/certificates.tsx). */
const CONSOLE_PAGE_SIZE = 200;
/**
 * The most inventory rows the DOM may hold at once: a 900 px viewport's rows plus the rendered
 * margin above and below it (docs/console.md#budget), whatever the number of rows fetched.
 */
const MOST_RENDERED_ROWS = 120;
/** Up to this many fetched rows the console renders them all, one `cert-row` per listed certificate. */
const RENDER_ALL_UP_TO = 10_000;

/** Issues through the API; a 503 (distribution side slow to confirm, nothing issued) is sent again. */
async function issueRetrying(
  tenant: TestTenant,
  body: Record<string, unknown>,
): Promise<{ certificateId: string; serialNumber: string }> {
  for (let attempt = 1; ; attempt++) {
    const answer = await tenant.post('/v1/certificates', body);
    if (answer.status === 200) return answer.json<{ certificateId: string; serialNumber: string }>();
    if (answer.status !== 503 || attempt >= 10)
      throw new Error(`issuing failed: ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * `count` copies of a certificate issued through the API, written by SQL as bench/inventory.ts
 * seeds its millions (issuing each through the API took most of this suite's time): one row each,
 * with its own id, serial, names and expiry, the inventory's triggers on, so the summary counts
 * them as it counts issued ones. The inventory lists rows; how they were issued is not its concern.
 */
async function copyCertificates(databaseUrl: string, sourceId: string, count: number): Promise<void> {
  const sql = new Client({ connectionString: databaseUrl });
  await sql.connect();
  try {
    await sql.query(
      `INSERT INTO issuance.certificates
         (id, tenant_id, ca_id, serial_number, client_id, common_name, organization, organizational_unit,
          country, certificate_der, usage, dns_names, must_staple, custom_extensions, not_before, not_after,
          issued_at, source)
       SELECT gen_random_uuid(), c.tenant_id, c.ca_id, upper(md5(c.id::text || i::text)),
              'team-' || (i % 7), 'svc-' || i, c.organization, c.organizational_unit, c.country,
              c.certificate_der, c.usage, ARRAY['svc-' || i || '.console.example'], false, '[]'::jsonb,
              c.not_before, now() + make_interval(days => 20 + i % 200, secs => i),
              now() - make_interval(secs => i), 'api'
         FROM issuance.certificates c, generate_series(0, $2::int - 1) AS i
        WHERE c.id = $1`,
      [sourceId, count],
    );
  } finally {
    await sql.end();
  }
}

async function inBatches(count: number, width: number, job: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += width)
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => job(start + k)));
}

describeIfPrograms(['chromium'], 'operator console in Chromium', () => {
  let sut: SystemUnderTest;
  let a: TestTenant;
  let b: TestTenant;
  let browser: Browser;
  /** One browser for the whole suite, started while the system starts (closed even if that fails). */
  let launching: Promise<Browser> | undefined;
  const problems: string[] = [];
  const foreignRequests: string[] = [];
  const allowedConsoleErrors: RegExp[] = [];
  const screenshots = process.env.CONSOLE_SCREENSHOTS;
  let revokeTarget: { certificateId: string; serialNumber: string };
  let searchTarget: { certificateId: string };

  /** A page of a new context (its own session storage: its own sign-in), watched for errors and origins. */
  async function openPage(
    scheme: 'light' | 'dark' = 'light',
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const allowed = [new URL(sut.gatewayUrl).origin, new URL(sut.pkiUrl).origin];
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      if (allowedConsoleErrors.some((pattern) => pattern.test(message.text()))) return;
      problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught on ${page.url()}: ${error.message}`));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol === 'blob:' || url.protocol === 'data:') return;
      if (!allowed.includes(url.origin)) foreignRequests.push(request.url());
    });
    return { context, page };
  }

  const consoleUrl = (path = '') => `${sut.gatewayUrl}/console/${path}`;

  /** A token of the tenant for an hour: the suite's own tokens last five minutes, a slow machine's run longer. */
  const hourToken = (tenant: TestTenant) =>
    sut.tokens.sign(tenant.tenantId, {
      claims: { scope: 'ca:admin certificates:read certificates:write' },
      exp: Math.floor(Date.now() / 1000) + 3600,
    });

  async function signInByFragment(page: Page, tenant: TestTenant, path = ''): Promise<void> {
    await page.goto(`${consoleUrl(path)}#token=${await hourToken(tenant)}`);
    await page.getByTestId('signed-in-tenant').waitFor();
  }

  async function shoot(page: Page, name: string, scheme: string): Promise<void> {
    if (!screenshots) return;
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, `${name}-${scheme}.png`), fullPage: false });
  }

  /**
   * Scrolls the inventory to its end two viewports at a time, as a person would, reading the rows the
   * DOM holds after each step: answers every listed certificate id in list order (by its
   * aria-rowindex, so a row seen in two steps counts once), and the most rows the DOM held at once.
   * The steps run in the page (one round trip per stretch, not per step) until the bottom of what
   * was fetched; there the walk waits for the next page, or ends when there is none.
   */
  async function walkToEnd(page: Page): Promise<{ ids: string[]; mostRendered: number }> {
    const byIndex = new Map<number, string>();
    let mostRendered = 0;
    await page.evaluate(() =>
      (globalThis as unknown as InPage).window.scrollTo({ top: 0, behavior: 'instant' }),
    );
    let scroll = false;
    for (let stretches = 0; stretches < 1_000; stretches++) {
      const seen: { rows: [number, string][]; most: number; more: boolean; bottom: boolean } =
        await page.evaluate(async (scrollFirst: boolean) => {
          const { window, document, requestAnimationFrame, setTimeout } = globalThis as unknown as InPage;
          // The scroll handler renders in the next animation frame; read once that frame's work is done.
          const rendered = () =>
            new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          const rows: [number, string][] = [];
          let most = 0;
          for (let step = scrollFirst; ; step = true) {
            // Two viewports a step, a quick flick: the window's margin (30 rows each side, more
            // than a viewport) is there so that even then the rows come in without a gap.
            if (step) window.scrollBy({ top: 2 * window.innerHeight, behavior: 'instant' });
            await rendered();
            const now = document.querySelectorAll('[data-testid="cert-row"]');
            most = Math.max(most, now.length);
            // Only the rows near the viewport can be new since the last step (rendered rows are in
            // list order): read those, not every row again.
            const near = (row: InPageElement) => {
              const box = row.getBoundingClientRect();
              return box.bottom >= -3 * window.innerHeight && box.top <= 3 * window.innerHeight;
            };
            let low = 0;
            for (let high = now.length; low < high;) {
              const mid = (low + high) >> 1;
              if (now[mid].getBoundingClientRect().bottom < -3 * window.innerHeight) low = mid + 1;
              else high = mid;
            }
            for (let i = low; i < now.length && near(now[i]); i++)
              rows.push([
                Number(now[i].getAttribute('aria-rowindex')),
                now[i].getAttribute('data-certificate-id')!,
              ]);
            const status = document.querySelector('[data-testid="result-count"]')?.textContent ?? '';
            const loading = document.querySelector('.loading') !== null;
            const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
            if (bottom) return { rows, most, more: status.includes('more as you scroll') || loading, bottom };
          }
        }, scroll);
      mostRendered = Math.max(mostRendered, seen.most);
      for (const [index, id] of seen.rows) {
        const known = byIndex.get(index);
        if (known !== undefined && known !== id)
          throw new Error(`row ${index} changed from ${known} to ${id} during the walk`);
        byIndex.set(index, id);
      }
      if (!seen.more) break;
      // At the bottom while the next page loads: wait for it, then go on scrolling.
      await page.waitForFunction(
        () => (globalThis as unknown as InPage).document.querySelector('.loading') === null,
        undefined,
        { timeout: 30_000 },
      );
      scroll = true;
    }
    const indexes = [...byIndex.keys()].sort((x, y) => x - y);
    // Row 1 is the header: the certificates are rows 2, 3, … with none skipped.
    expect(indexes).toEqual(indexes.map((_, i) => i + 2));
    return { ids: indexes.map((i) => byIndex.get(i)!), mostRendered };
  }

  beforeAll(async () => {
    launching = chromium.launch({
      executablePath: programPath('chromium'),
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    execFileSync(process.execPath, [join(ROOT, 'apps/console/build.js')], { stdio: 'ignore' });
    sut = await startSystemUnderTest(MODE, {
      shippedBus: true,
      env: {
        RATE_LIMIT_PER_MINUTE: '1000000',
        DEFAULT_CERTIFICATE_LIMIT: '1000000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    [a, b] = await Promise.all([
      createTenant(sut, { commonName: 'Console Root A' }),
      createTenant(sut, { commonName: 'Console Root B' }),
    ]);
    // The certificates the suite acts on are issued through the API; the few thousand of the walk
    // are copies of one of them (copyCertificates).
    const seeding = Date.now();
    const template = await issueRetrying(
      a,
      issueBody({ commonName: 'svc-template', clientId: 'team-template', validityDays: 10 }),
    );
    await copyCertificates(sut.databaseUrl, template.certificateId, SEEDED - 1);
    searchTarget = await issueRetrying(
      a,
      issueBody({ commonName: 'needle-payments-gateway', clientId: 'needle' }),
    );
    revokeTarget = await issueRetrying(a, issueBody({ commonName: 'revoke-me-from-the-page' }));
    await inBatches(BULK, 10, (i) => issueRetrying(a, issueBody({ commonName: `bulk-retire-${i}` })));
    await issueRetrying(b, issueBody({ commonName: 'tenant-b-only' }));
    process.stderr.write(
      `console suite: seeded ${SEEDED + BULK + 3} certificates in ${Date.now() - seeding} ms\n`,
    );
    browser = await launching;
  });

  afterAll(async () => {
    await (await launching?.catch(() => undefined))?.close();
    await sut?.stop();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
    expect(foreignRequests).toEqual([]);
    problems.length = 0;
    foreignRequests.length = 0;
  });

  it('is served with a strict CSP; a deep link answers the page on reload; the script is within budget', async () => {
    const answer = await fetch(consoleUrl('certificates/00000000-0000-4000-8000-000000000000'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = answer.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await answer.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    const build = JSON.parse(readFileSync(join(ROOT, 'dist/apps/console/build.json'), 'utf8'));
    expect(build.scriptGzipBytes).toBeLessThan(300 * 1024);
  });

  it('signs in with a pasted token, shows the tenant and its counts, and signs out', async () => {
    const { context, page } = await openPage();
    await page.goto(consoleUrl());
    await expectAccessible(page, 'sign-in');
    await page.getByLabel('Bearer token (JWT)').fill(await hourToken(a));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('signed-in-tenant').textContent()).resolves.toBe(a.tenantId);
    await page.getByTestId('summary-active').waitFor();
    expect(Number(await page.getByTestId('summary-active').textContent())).toBe(SEEDED + 2 + BULK);
    const summary = (await a.get('/v2/certificates/summary', { bearer: await hourToken(a) })).json<{
      expiringWithin: Record<string, number>;
    }>();
    expect(Number(await page.getByTestId('summary-expiring-30').textContent())).toBe(
      summary.expiringWithin['30'],
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Bearer token (JWT)').waitFor();
    await context.close();
  });

  it('searches as you type (bound to q) and filters by status', async () => {
    const { context, page } = await openPage();
    await signInByFragment(page, a, 'certificates');
    expect(page.url()).not.toContain('token');
    await page.getByTestId('search').pressSequentially('needle-pay', { delay: 20 });
    await page.waitForURL(/q=needle-pay/);
    await eventually(
      async () => ((await page.getByTestId('cert-row').count()) === 1 ? true : undefined),
      10_000,
      'one row',
    );
    expect(await page.getByTestId('cert-row').first().getAttribute('data-certificate-id')).toBe(
      searchTarget.certificateId,
    );
    // Reloading the filtered page keeps the filter (it lives in the URL).
    await page.reload();
    await page.getByTestId('cert-row').first().waitFor();
    expect(await page.getByTestId('search').inputValue()).toBe('needle-pay');
    expect(await page.getByTestId('cert-row').count()).toBe(1);
    // Status filter: nothing is revoked yet in this tenant.
    await page.getByTestId('status-filter').selectOption('Revoked');
    await page.waitForURL(/status=Revoked/);
    await page.getByText('No certificate matches this filter.').waitFor();
    await context.close();
  });

  it('keeps a keystroke typed while the page applies the search paused on', async () => {
    const { context, page } = await openPage();
    await signInByFragment(page, a, 'certificates');
    await page.getByTestId('search').waitFor();
    // The pause's search goes into the URL, and the next keystroke lands before the page has caught up.
    await page.evaluate(() => {
      const { document, history, Event } = globalThis as unknown as InPage;
      const input = document.querySelector('[data-testid=search]') as InPageInput;
      const type = (value: string) => {
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      };
      const replaceState = history.replaceState.bind(history);
      history.replaceState = (data, unused, url) => {
        replaceState(data, unused, url);
        history.replaceState = replaceState;
        type('needle-');
      };
      type('needle');
    });
    await page.waitForURL(/q=needle-(&|$)/);
    expect(await page.getByTestId('search').inputValue()).toBe('needle-');
    await context.close();
  });

  it('walks a few thousand certificates by scrolling, each once, in the order asked, one row per listed certificate (a window past ten thousand)', async () => {
    const { context, page } = await openPage();
    const cursors: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v2/certificates' && url.searchParams.has('cursor'))
        cursors.push(url.searchParams.get('cursor')!);
    });
    await signInByFragment(page, a, 'certificates?sort=expiresAt');
    await page.getByTestId('cert-row').first().waitFor();
    const { ids, mostRendered } = await walkToEnd(page);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(SEEDED + 2 + BULK);
    // Paged in by cursor, each page asked once; past RENDER_ALL_UP_TO the DOM holds only its window.
    expect(cursors.length).toBeGreaterThanOrEqual(Math.ceil(ids.length / CONSOLE_PAGE_SIZE) - 1);
    expect(new Set(cursors).size).toBe(cursors.length);
    if (ids.length <= RENDER_ALL_UP_TO) expect(mostRendered).toBe(ids.length);
    else expect(mostRendered).toBeLessThanOrEqual(MOST_RENDERED_ROWS);
    // The same certificates the API lists, in the same order.
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const answer = await a.get(
        `/v2/certificates?sort=expiresAt&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { bearer: await hourToken(a) },
      );
      const page = answer.json<{ certificates: { certificateId: string }[]; nextCursor: string | null }>();
      listed.push(...page.certificates.map((c) => c.certificateId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(listed);
    await context.close();
  });

  it('revokes one certificate from its page with reason and reason code; OCSP then says revoked', async () => {
    const { context, page } = await openPage();
    await signInByFragment(page, a, `certificates/${revokeTarget.certificateId}`);
    await page.getByTestId('ocsp-status').waitFor();
    expect(await page.getByTestId('ocsp-status').textContent()).toContain('good');
    await page.getByTestId('revoke-button').click();
    await page.getByTestId('revoke-reason').fill('laptop stolen');
    await page.getByTestId('revoke-reason-code').selectOption('KeyCompromise');
    await page.getByTestId('revoke-confirm').click();
    await eventually(
      async () =>
        (await page.getByTestId('certificate-status').textContent()) === 'Revoked' ? true : undefined,
      10_000,
      'the page to show Revoked',
    );
    // The public surface, asked as a relying party would, and as the page shows it.
    expect((await ocspStatus(sut.pkiUrl, a.tenantId, a.caDer, revokeTarget.serialNumber)).kind).toBe(
      'revoked',
    );
    await page.getByTestId('ocsp-status').waitFor();
    expect(await page.getByTestId('ocsp-status').textContent()).toContain('revoked');
    expect(await page.getByTestId('ocsp-status').textContent()).toContain('keyCompromise');
    await context.close();
  });

  it('bulk-revokes the current filter after showing its count and a confirmation', async () => {
    const { context, page } = await openPage();
    await signInByFragment(page, a, 'certificates?q=bulk-retire-');
    await eventually(
      async () =>
        (await page.getByTestId('result-count').textContent()) === `${BULK} shown` ? true : undefined,
      10_000,
      'rows',
    );
    await page.getByRole('button', { name: 'Revoke all matching…' }).click();
    await page.getByTestId('bulk-revoke-count').waitFor();
    expect(await page.getByTestId('bulk-revoke-count').textContent()).toContain(`${BULK} certificates match`);
    await page.getByLabel('Reason (kept in the audit log)').fill('service retired');
    await page.getByLabel('Reason code').selectOption('CessationOfOperation');
    expect(await page.getByTestId('bulk-revoke-confirm').isDisabled()).toBe(true);
    await page.getByTestId('bulk-revoke-confirm-check').check();
    await page.getByTestId('bulk-revoke-confirm').click();
    const progress = page.getByTestId('bulk-revoke-progress');
    await eventually(
      async () => ((await progress.textContent())?.startsWith('Done.') ? true : undefined),
      60_000,
      'the job to end',
    );
    expect(await progress.textContent()).toContain(`${BULK} revoked, 0 failed, of ${BULK}`);
    const revoked = (
      await a.get('/v2/certificates?q=bulk-retire-&status=Revoked&limit=1000', { bearer: await hourToken(a) })
    ).json<{
      certificates: unknown[];
    }>();
    expect(revoked.certificates).toHaveLength(BULK);
    await context.close();
  });

  it("never shows tenant A's certificates to tenant B, deep links included", async () => {
    const { context, page } = await openPage();
    await signInByFragment(page, b, 'certificates');
    await page.getByTestId('cert-row').first().waitFor();
    const { ids } = await walkToEnd(page);
    expect(ids).toHaveLength(1);
    await page.getByTestId('search').fill('needle');
    await page.getByText('No certificate matches this filter.').waitFor();
    // A's certificate by its address: refused, and nothing of it is shown.
    allowedConsoleErrors.push(/status of 403/);
    await page.goto(consoleUrl(`certificates/${searchTarget.certificateId}`));
    await page.getByTestId('problem').waitFor();
    expect(await page.content()).not.toContain('needle-payments-gateway');
    allowedConsoleErrors.pop();
    await context.close();
  });

  it('passes axe-core (no serious or critical violation) on every page, light and dark', async () => {
    const hook = await a.post(
      '/v2/webhooks',
      { url: 'http://127.0.0.1:9/hook', events: ['certificate.revoked'] },
      { bearer: await hourToken(a) },
    );
    expect(hook.status).toBe(201);
    expect((await a.post('/v2/acme/eab-keys', undefined, { bearer: await hourToken(a) })).status).toBe(201);
    const pages: [string, string, string][] = [
      ['dashboard', '', 'Expiry outlook'],
      ['certificates', 'certificates', 'Common name'],
      ['certificate', `certificates/${revokeTarget.certificateId}`, 'Extensions'],
      ['ca', 'ca', 'Issuance policy'],
      ['acme', 'acme', 'External Account Binding keys'],
      ['webhooks', 'webhooks', 'Subscriptions'],
      ['audit', 'audit', 'certificate.revoke'],
    ];
    // Both themes at once, each in its own context (the browser's processes use both cores).
    const checkTheme = async (scheme: 'light' | 'dark') => {
      const { context, page } = await openPage(scheme);
      await signInByFragment(page, a);
      for (const [name, path, text] of pages) {
        // Within the page, as its links and the browser's history go (a reload per page would
        // load the console and axe-core again each time; deep links are proven above).
        await page.evaluate((to: string) => {
          const { history, dispatchEvent, PopStateEvent } = globalThis as unknown as InPage;
          history.pushState(null, '', to);
          dispatchEvent(new PopStateEvent('popstate'));
        }, `/console/${path}`);
        await page.getByText(text, { exact: false }).first().waitFor();
        await page
          .locator('.loading')
          .first()
          .waitFor({ state: 'detached', timeout: 30_000 })
          .catch(() => undefined);
        await expectAccessible(page, `${name} (${scheme})`);
        await shoot(page, name, scheme);
      }
      await context.close();
    };
    await Promise.all([checkTheme('light'), checkTheme('dark')]);
  });

  it('sends a person whose token expired back to sign-in, on the page they were on', async () => {
    const { context, page } = await openPage();
    // The page's clock runs as the real one until moved on past the token's expiry (no waiting).
    await page.clock.install();
    const shortLived = await sut.tokens.sign(a.tenantId, {
      claims: { scope: 'ca:admin certificates:read certificates:write' },
      exp: Math.floor(Date.now() / 1000) + 15,
    });
    await page.goto(`${consoleUrl('ca')}#token=${shortLived}`);
    await page.getByTestId('signed-in-tenant').waitFor();
    await page.getByRole('heading', { name: 'Certificate authority' }).waitFor();
    expect(await page.getByText('Your session has expired').count()).toBe(0);
    await page.clock.fastForward(16_000);
    await page.getByText('Your session has expired').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/ca');
    await page.getByLabel('Bearer token (JWT)').fill(await hourToken(a));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Certificate authority' }).waitFor();
    await context.close();
  });
});
