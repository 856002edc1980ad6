import 'reflect-metadata';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { startWebhooks } from '@ca/webhooks';
import { Client } from 'pg';
import { TestTenant, adminRequest, createTenant, issueBody } from './support/admin-api';
import { eventually } from './support/http';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * Lifecycle events out (docs/api.md#webhooks) end to end: subscriptions over the admin API, and
 * what a receiver on loopback gets: Standard Webhooks signatures checked by an implementation of
 * the test's own, retries with the same webhook-id, order per certificate, expiry thresholds (the
 * webhooks service's scan runs on a clock the test moves), isolation between tenants, deletion,
 * and a dead endpoint beside a healthy one.
 */
jest.setTimeout(120_000);

const modes = systemModes('webhooks suite');
const WAIT_MS = 30_000;

interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** What a path of the receiver answers: a status, or nothing at all (a dead endpoint). */
type Behaviour = (request: Received, attempt: number) => number | 'hang';

/** A local receiver: every request recorded; each path answers by its behaviour (200 by default). */
class Receiver {
  readonly received: Received[] = [];
  readonly behaviours = new Map<string, Behaviour>();
  private readonly attempts = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => receiver.handle(req, res));
    return receiver;
  }

  url(path: string, behaviour?: Behaviour): string {
    if (behaviour) this.behaviours.set(path, behaviour);
    return `${this.baseUrl}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const received: Received = {
        path: req.url ?? '',
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body,
        event: JSON.parse(body) as Received['event'],
      };
      this.received.push(received);
      const key = `${received.path} ${received.id}`;
      const attempt = (this.attempts.get(key) ?? 0) + 1;
      this.attempts.set(key, attempt);
      const answer = (this.behaviours.get(received.path) ?? (() => 200))(received, attempt);
      if (answer === 'hang') {
        this.hanging.add(res);
        return;
      }
      res.writeHead(answer).end();
    });
  }
}

/**
 * The Standard Webhooks check, written from the specification: HMAC-SHA256 over
 * `id.timestamp.body`, keyed with the base64-decoded secret after `whsec_`, base64, any of the
 * space-separated `v1,` signatures.
 */
function verifies(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${r.id}.${r.timestamp}.${r.body}`).digest();
  return r.signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe.each(modes)('webhooks (%s)', (mode) => {
  let sut: SystemUnderTest;
  let receiver: Receiver;
  /** How far the webhooks service's expiry scan runs ahead of the real clock. */
  let clockAheadMs = 0;

  beforeAll(async () => {
    receiver = await Receiver.start();
    sut = await startSystemUnderTest(mode, {
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_BASE_SECONDS: '1',
        EXPIRY_SCAN_SECONDS: '1',
      },
      webhooks: { now: () => new Date(Date.now() + clockAheadMs) },
    });
  });

  afterAll(async () => {
    // The receiver first: the attempts hanging on its dead path end at once instead of at their deadline.
    await receiver?.stop();
    await sut?.stop();
  });

  async function subscribe(
    tenant: TestTenant,
    body: Record<string, unknown>,
  ): Promise<{ webhookId: string; secret: string }> {
    const answer = await tenant.post('/v2/webhooks', body);
    expect(answer.status).toBe(201);
    return answer.json();
  }

  /** The received events of `path` that satisfy `match`, once there are `count` of them. */
  const arrived = (path: string, count: number, match: (r: Received) => boolean = () => true) =>
    eventually(
      async () => {
        const found = receiver.at(path).filter(match);
        return found.length >= count ? found : undefined;
      },
      WAIT_MS,
      `${count} deliveries at ${path}`,
    );

  const ofCertificate = (id: string) => (r: Received) => r.event.data.certificateId === id;

  it('subscribes (the secret once), lists without secrets, and refuses a bad URL or event type', async () => {
    const tenant = await createTenant(sut);
    const created = await subscribe(tenant, {
      url: receiver.url('/listed'),
      events: ['certificate.issued'],
      expiringDays: [7],
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await tenant.get('/v2/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.json()).toEqual({
      webhooks: [
        {
          webhookId: created.webhookId,
          url: receiver.url('/listed'),
          events: ['certificate.issued'],
          expiringDays: [7],
          createdAt: expect.any(String),
        },
      ],
    });
    expect(listed.text).not.toContain(created.secret.slice(6));
    for (const [body, field] of [
      [{ url: 'ftp://127.0.0.1/x', events: ['certificate.issued'] }, 'url'],
      [{ url: 'not a url', events: ['certificate.issued'] }, 'url'],
      [{ url: receiver.url('/x'), events: ['certificate.made'] }, 'events'],
      [{ url: receiver.url('/x'), events: ['certificate.issued'], expiringDays: [-1] }, 'expiringDays'],
    ] as const) {
      const answer = await tenant.post('/v2/webhooks', body);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.json())).toContain(field);
    }
    const other = await createTenant(sut, { ca: false });
    expect((await other.get('/v2/webhooks')).json()).toEqual({ webhooks: [] });
    expect(
      (await adminRequest(sut, 'DELETE', `/v2/webhooks/${created.webhookId}`, other.bearer)).status,
    ).toBe(404);
  });

  it('delivers issued, renewed and revoked events signed, with the payload fields and nothing secret', async () => {
    const tenant = await createTenant(sut);
    const other = await createTenant(sut);
    const { secret } = await subscribe(tenant, {
      url: receiver.url('/lifecycle'),
      events: ['certificate.issued', 'certificate.renewed', 'certificate.revoked'],
    });
    const bystander = await subscribe(other, {
      url: receiver.url('/other-tenant'),
      events: ['certificate.issued'],
    });
    const issued = await tenant.issue(
      issueBody({ commonName: 'edge', usage: 'Server', subjectAlternativeNames: ['edge.example.com'] }),
      '/v2/certificates',
    );
    const renewed = (
      await tenant.post(`/v1/certificates/${issued.certificateId}/renew`, { validityDays: 30 })
    ).json<{ newCertificateId: string }>();
    const revoked = await tenant.post(`/v1/certificates/${renewed.newCertificateId}/revoke`, {
      reason: 'laptop stolen from the car',
      reasonCode: 'KeyCompromise',
    });
    expect(revoked.status).toBe(200);

    const [issuedEvent] = await arrived('/lifecycle', 1, ofCertificate(issued.certificateId));
    const [renewedEvent, revokedEvent] = await arrived(
      '/lifecycle',
      2,
      ofCertificate(renewed.newCertificateId),
    );
    for (const r of [issuedEvent, renewedEvent, revokedEvent]) {
      expect(verifies(secret, r)).toBe(true);
      expect(verifies(bystander.secret, r)).toBe(false);
      expect(r.body).not.toMatch(/PRIVATE KEY|laptop stolen|whsec_/);
    }
    expect(issuedEvent.event).toEqual({
      type: 'certificate.issued',
      timestamp: expect.any(String),
      data: {
        tenantId: tenant.tenantId,
        certificateId: issued.certificateId,
        serialNumber: issued.serialNumber,
        commonName: 'edge',
        clientId: 'payments-service',
        subjectAlternativeNames: ['edge.example.com'],
        notAfter: issued.expiresAt,
        status: 'Active',
      },
    });
    expect(renewedEvent.event.type).toBe('certificate.renewed');
    expect(renewedEvent.event.data).toMatchObject({ renewedFrom: issued.certificateId, commonName: 'edge' });
    expect(revokedEvent.event.type).toBe('certificate.revoked');
    expect(revokedEvent.event.data).toMatchObject({ status: 'Revoked', reasonCode: 'keyCompromise' });
    // A tampered body does not verify.
    expect(verifies(secret, { ...issuedEvent, body: issuedEvent.body.replace('edge', 'edgf') })).toBe(false);

    // The other tenant's subscription saw none of it: its own test event is all it gets.
    const test = await adminRequest(sut, 'POST', `/v2/webhooks/${bystander.webhookId}/test`, other.bearer);
    expect(test.status).toBe(202);
    const [testEvent] = await arrived('/other-tenant', 1);
    expect(testEvent.event.type).toBe('webhook.test');
    expect(testEvent.id).toBe(test.json<{ eventId: string }>().eventId);
    expect(receiver.at('/other-tenant')).toHaveLength(1);
  });

  it('announces replace-now on a CA (ca.replace-leaves-requested) without its reason, and audits it with the reason kept', async () => {
    const tenant = await createTenant(sut);
    const { secret } = await subscribe(tenant, {
      url: receiver.url('/replace-now'),
      events: ['ca.replace-leaves-requested'],
    });
    await tenant.issue(issueBody());
    await tenant.issue(issueBody());
    const { cas } = (await tenant.get('/v2/ca')).json<{
      cas: { caId: string; role: string; state: string }[];
    }>();
    const signing =
      cas.find((ca) => ca.role === 'issuing' && ca.state === 'active') ??
      cas.find((ca) => ca.role === 'root')!;
    const drill = await tenant.post(`/v2/ca/${signing.caId}/replace-leaves`, {
      reason: 'issuing key found in a public repository',
    });
    expect(drill.status).toBe(200);
    const { marked, requestedAt } = drill.json<{ marked: number; requestedAt: string }>();
    expect(marked).toBe(2);

    const [announced] = await arrived('/replace-now', 1);
    expect(verifies(secret, announced)).toBe(true);
    expect(announced.event).toEqual({
      type: 'ca.replace-leaves-requested',
      timestamp: expect.any(String),
      data: { tenantId: tenant.tenantId, caId: signing.caId, marked: 2, requestedAt },
    });
    expect(announced.body).not.toContain('public repository');

    const sql = new Client({ connectionString: sut.databaseUrl });
    await sql.connect();
    try {
      const requestId = drill.headers.get('x-request-id');
      const audit = await eventually(
        async () =>
          (
            await sql.query(
              'SELECT action, resource, result FROM gateway.audit_events WHERE request_id = $1',
              [requestId],
            )
          ).rows[0] as Record<string, unknown> | undefined,
        5_000,
        'the audit entry of the drill',
      );
      expect(audit).toEqual({
        action: 'ca.replace-leaves',
        resource: `/v2/ca/${signing.caId}/replace-leaves`,
        result: 200,
      });
      const recorded = await sql.query(
        'SELECT ca_id, reason, marked FROM issuance.replace_leaves_requests WHERE tenant_id = $1',
        [tenant.tenantId],
      );
      expect(recorded.rows).toEqual([
        { ca_id: signing.caId, reason: 'issuing key found in a public repository', marked: 2 },
      ]);
    } finally {
      await sql.end();
    }
  });

  it("retries a 500 with the same webhook-id, keeps a certificate's events in order, and logs each attempt", async () => {
    const tenant = await createTenant(sut);
    // The issued event fails twice; the revoked event of the same certificate must wait for it.
    receiver.url('/flaky', (r, attempt) =>
      r.event.type === 'certificate.issued' && attempt <= 2 ? 500 : 200,
    );
    const { webhookId } = await subscribe(tenant, {
      url: receiver.url('/flaky'),
      events: ['certificate.issued', 'certificate.revoked'],
    });
    const issued = await tenant.issue(issueBody());
    await tenant.post(`/v1/certificates/${issued.certificateId}/revoke`, {
      reason: 'replaced',
      reasonCode: 'Superseded',
    });
    const all = await arrived('/flaky', 4, ofCertificate(issued.certificateId));
    expect(all.map((r) => r.event.type)).toEqual([
      'certificate.issued',
      'certificate.issued',
      'certificate.issued',
      'certificate.revoked',
    ]);
    expect(new Set(all.slice(0, 3).map((r) => r.id)).size).toBe(1);
    expect(all[3].id).not.toBe(all[0].id);

    const log = await eventually(
      async () => {
        const answer = await tenant.get(`/v2/webhooks/${webhookId}/deliveries`);
        const { deliveries } = answer.json<{ deliveries: { statusCode?: number; attempt: number }[] }>();
        return deliveries.length >= 4 ? deliveries : undefined;
      },
      WAIT_MS,
      'four logged attempts',
    );
    expect(log.map((d) => [d.attempt, d.statusCode])).toEqual([
      [1, 200],
      [3, 200],
      [2, 500],
      [1, 500],
    ]);
  });

  it('does not let a dead endpoint delay a healthy one, and stops delivering to a deleted webhook', async () => {
    const tenant = await createTenant(sut);
    const other = await createTenant(sut);
    const dead = await subscribe(tenant, {
      url: receiver.url('/dead', () => 'hang'),
      events: ['certificate.issued'],
    });
    await subscribe(tenant, { url: receiver.url('/healthy'), events: ['certificate.issued'] });
    await subscribe(other, { url: receiver.url('/healthy-other'), events: ['certificate.issued'] });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await tenant.issue(issueBody())).certificateId);
      await other.issue(issueBody());
    }
    await arrived('/healthy', 6);
    await arrived('/healthy-other', 6);
    // The healthy endpoints got everything while the dead one still held an attempt open (each
    // waits 10 s for its deadline): fewer attempts settled in its log than it has received. On a
    // slow machine the first attempts may have settled already; the last one cannot have.
    const deadLog = await tenant.get(`/v2/webhooks/${dead.webhookId}/deliveries`);
    const settled = deadLog.json<{ deliveries: { error?: string }[] }>().deliveries;
    expect(receiver.at('/dead').length).toBeGreaterThan(settled.length);
    for (const attempt of settled) expect(attempt.error).toMatch(/no answer within/);

    expect((await adminRequest(sut, 'DELETE', `/v2/webhooks/${dead.webhookId}`, tenant.bearer)).status).toBe(
      200,
    );
    const seenBefore = receiver.at('/dead').length;
    const later = await tenant.issue(issueBody());
    await arrived('/healthy', 1, ofCertificate(later.certificateId));
    expect(receiver.at('/dead').filter(ofCertificate(later.certificateId))).toEqual([]);
    expect(receiver.at('/dead').length).toBe(seenBefore);
    expect((await tenant.get('/v2/webhooks')).json<{ webhooks: unknown[] }>().webhooks).toHaveLength(1);
    expect((await tenant.get(`/v2/webhooks/${dead.webhookId}/deliveries`)).status).toBe(404);
  });

  it('runs a second replica of the webhooks service beside the first: each event once, in order per certificate', async () => {
    const replica = await startWebhooks({
      config: sut.config,
      databaseUrl: sut.databaseUrl,
      messaging: await sut.openMessaging('webhooks-replica'),
      logger: sut.serviceLogger('webhooks-replica'),
    });
    try {
      const tenant = await createTenant(sut);
      const { webhookId } = await subscribe(tenant, {
        url: receiver.url('/replicas'),
        events: ['certificate.issued', 'certificate.revoked'],
      });
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const { certificateId } = await tenant.issue(issueBody());
        ids.push(certificateId);
        await tenant.post(`/v1/certificates/${certificateId}/revoke`, {
          reason: 'rotated',
          reasonCode: 'Superseded',
        });
      }
      const all = await arrived('/replicas', 16);
      expect(new Set(all.map((r) => r.id)).size).toBe(16);
      for (const id of ids) {
        expect(all.filter(ofCertificate(id)).map((r) => r.event.type)).toEqual([
          'certificate.issued',
          'certificate.revoked',
        ]);
      }
      const { deliveries } = (await tenant.get(`/v2/webhooks/${webhookId}/deliveries`)).json<{
        deliveries: { attempt: number; statusCode: number }[];
      }>();
      expect(deliveries).toHaveLength(16);
      expect(deliveries.every((d) => d.attempt === 1 && d.statusCode === 200)).toBe(true);
      expect(receiver.at('/replicas')).toHaveLength(16);
    } finally {
      await replica.close();
    }
  });

  it('announces each expiry threshold once, none for a renewed certificate, then the expiry', async () => {
    const tenant = await createTenant(sut);
    await subscribe(tenant, {
      url: receiver.url('/expiry'),
      events: ['certificate.expiring', 'certificate.expired', 'certificate.renewed'],
      expiringDays: [30, 7, 1],
    });
    const kept = await tenant.issue(issueBody({ validityDays: 20 }));
    const replaced = await tenant.issue(issueBody({ validityDays: 20 }));
    const [first] = await arrived('/expiry', 1, ofCertificate(kept.certificateId));
    await arrived('/expiry', 1, ofCertificate(replaced.certificateId));
    expect(first.event).toMatchObject({
      type: 'certificate.expiring',
      data: { daysLeft: 19, status: 'Active' },
    });
    await tenant.post(`/v1/certificates/${replaced.certificateId}/renew`, { validityDays: 365 });
    // Once its renewal has reached the webhooks service, the clock moves.
    await arrived('/expiry', 1, (r) => r.event.data.renewedFrom === replaced.certificateId);

    clockAheadMs = 14 * 86_400_000; // 6 days left: the 7-day threshold
    await arrived('/expiry', 2, ofCertificate(kept.certificateId));
    clockAheadMs = 19.5 * 86_400_000; // hours left: the 1-day threshold
    await arrived('/expiry', 3, ofCertificate(kept.certificateId));
    clockAheadMs = 21 * 86_400_000; // past notAfter
    const events = await arrived('/expiry', 4, ofCertificate(kept.certificateId));
    expect(events.map((r) => [r.event.type, r.event.data.daysLeft])).toEqual([
      ['certificate.expiring', 19],
      ['certificate.expiring', 5],
      ['certificate.expiring', 0],
      ['certificate.expired', undefined],
    ]);
    expect(events[3].event.data.status).toBe('Expired');
    // The renewed one: its first threshold only, then its expiry (it was never revoked).
    const replacedEvents = await arrived('/expiry', 2, ofCertificate(replaced.certificateId));
    expect(replacedEvents.map((r) => r.event.type)).toEqual(['certificate.expiring', 'certificate.expired']);
    clockAheadMs = 0;
  });
});
