import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustodiedKey } from '@ca/custody';
import { exportLocalPrivateKeyForTest } from '@ca/custody/testing';
import { Client } from 'pg';
import { openGatewayDatabase, GatewayOperations } from '@ca/gateway';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { BusSniffer } from './support/bus-sniffer';
import { http } from './support/http';
import { captureLogs } from './support/logs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

jest.setTimeout(120_000);

/**
 * docs/api.md#keys-and-serial-numbers: no secret anywhere it should not be. A full issue / renew / revoke cycle (Text, File,
 * PKCS#12) with every service logging at debug; then all log output, the audit export and every
 * row of every table in every schema are searched for the issued private keys (PEM lines, DER,
 * base64, hex, the private scalar), the PKCS#12 passwords and bundles, the CA private key, the
 * bearer tokens, the download tokens and both KEKs. None may appear. With NATS, a plain subscriber
 * to the system's subjects, every reply inbox and the object store watches the whole cycle: no
 * private key (in any form, nor the words "PRIVATE KEY") and no PKCS#12 may cross the bus.
 */

interface Secret {
  what: string;
  /** Every form the secret could take in a log line or a row. */
  forms: Buffer[];
}

/** The encodings of binary secret material that a careless log line or column could hold. */
function binaryForms(what: string, octets: Buffer): Secret {
  const forms = [
    octets,
    ...(['base64', 'base64url', 'hex'] as const).map((e) => Buffer.from(octets.toString(e))),
  ];
  return { what, forms };
}

/** A private key as returned in PEM: each body line, its DER (PKCS#8 and SEC1) and its scalar. */
function privateKeySecrets(what: string, pem: string): Secret[] {
  const key = createPrivateKey(pem);
  const body = pem.split('\n').filter((line) => line && !line.startsWith('-----'));
  const d = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
  return [
    {
      what: `${what} (PEM lines)`,
      forms: body.filter((line) => line.length >= 40).map((line) => Buffer.from(line)),
    },
    binaryForms(`${what} (PKCS#8 DER)`, key.export({ format: 'der', type: 'pkcs8' })),
    binaryForms(`${what} (private scalar)`, d),
  ];
}

const textSecret = (what: string, text: string): Secret => ({ what, forms: [Buffer.from(text)] });

function findLeaks(haystack: Buffer, secrets: Secret[]): string[] {
  return secrets.flatMap(({ what, forms }) =>
    forms
      .filter((form) => form.length >= 16 && haystack.includes(form))
      .map((form) => `${what}: ${form.toString('latin1').slice(0, 24)}…`),
  );
}

/** Every row of every table of every schema, as JSON (binary columns as hex) and as raw octets. */
async function dumpDatabase(url: string): Promise<Buffer> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.length).toBeGreaterThan(5);
    const parts: Buffer[] = [];
    for (const { table_schema: schema, table_name: table } of tables) {
      const { rows } = await client.query(`SELECT * FROM "${schema}"."${table}"`);
      for (const row of rows as Record<string, unknown>[]) {
        for (const value of Object.values(row)) if (Buffer.isBuffer(value)) parts.push(value);
        parts.push(Buffer.from(JSON.stringify(row, (_k, v: unknown) => v)));
      }
    }
    return Buffer.concat(parts);
  } finally {
    await client.end();
  }
}

async function auditExport(url: string): Promise<string> {
  const dataSource = await openGatewayDatabase(url, 1);
  const lines: string[] = [];
  try {
    const exit = await new GatewayOperations(dataSource, { defaultCertificateLimit: 1000 }).run(
      { kind: 'audit.export' },
      { out: (line) => void lines.push(line), err: (line) => void lines.push(line) },
    );
    expect(exit).toBe(0);
  } finally {
    await dataSource.destroy();
  }
  expect(lines.length).toBeGreaterThan(3);
  return lines.join('\n');
}

/** The CA private key, opened from its wrapped form with the KEK (the custody's test hook). */
async function caPrivateKey(sut: SystemUnderTest, tenantId: string, kek: Buffer): Promise<Buffer> {
  const client = new Client({ connectionString: sut.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT id, key_algorithm, public_key_spki, wrapped_key FROM issuance.certificate_authorities WHERE tenant_id = $1',
      [tenantId],
    );
    const row = rows[0] as {
      id: string;
      key_algorithm: 'ECDSA-P256';
      public_key_spki: Buffer;
      wrapped_key: Buffer;
    };
    const key: CustodiedKey = {
      keyId: row.id,
      algorithm: row.key_algorithm,
      publicKeySpki: new Uint8Array(row.public_key_spki),
      wrapped: new Uint8Array(row.wrapped_key),
    };
    return await exportLocalPrivateKeyForTest(new Uint8Array(kek), { tenantId, keyId: row.id }, key);
  } finally {
    await client.end();
  }
}

describe.each(systemModes('key leak suite'))('no secret in logs, audit or database (%s)', (mode) => {
  const logs = captureLogs('debug');
  let sut: SystemUnderTest;
  let t: TestTenant;
  const secrets: Secret[] = [];
  let dumpWhileLinksWait: Buffer;
  let sniffer: BusSniffer | undefined;
  let textCertificatePem: string;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, {
      serviceLogger: logs.serviceLogger,
      env: { LOG_LEVEL: 'debug' },
    });
    if (mode === 'postgres+nats') {
      const { subjectPrefix, rpcSubjectPrefix } = sut.messagingOptions;
      sniffer = await BusSniffer.start(sut.config.natsUrl!, [
        `${subjectPrefix}.>`,
        `${rpcSubjectPrefix}.>`,
        '_INBOX.>',
        '$O.>',
      ]);
    }
    t = await createTenant(sut);
    secrets.push(
      textSecret('bearer token', t.bearer),
      textSecret('bearer token signature', t.bearer.split('.')[2]),
    );

    const text = await t.issue(issueBody({ commonName: 'leak-text' }));
    textCertificatePem = text.certificatePem;
    secrets.push(...privateKeySecrets('issued key (Text)', text.privateKeyPem));

    const pfxAnswer = await t.post(
      '/v1/certificates',
      issueBody({ commonName: 'leak-pfx', passwordProtected: true }),
    );
    expect(pfxAnswer.status).toBe(200);
    const pfx = pfxAnswer.json<IssuedCertificate & { pfxBase64: string; password: string }>();
    secrets.push(
      ...privateKeySecrets('issued key (PKCS#12 issuance)', pfx.privateKeyPem),
      textSecret('PKCS#12 password', pfx.password),
      binaryForms('PKCS#12', Buffer.from(pfx.pfxBase64, 'base64')),
    );

    const fileAnswer = await t.post(
      '/v1/certificates',
      issueBody({ commonName: 'leak-file', responseFormat: 'File', passwordProtected: true }),
    );
    expect(fileAnswer.status).toBe(200);
    const file = fileAnswer.json<{
      certificateId: string;
      privateKeyDownloadUrl: string;
      pfxDownloadUrl: string;
      password: string;
    }>();
    secrets.push(textSecret('PKCS#12 password (File)', file.password));
    for (const url of [file.privateKeyDownloadUrl, file.pfxDownloadUrl]) {
      secrets.push(textSecret('download token', url.slice(url.lastIndexOf('/') + 1)));
    }
    dumpWhileLinksWait = await dumpDatabase(sut.databaseUrl);

    const keyDownload = await http(file.privateKeyDownloadUrl);
    expect(keyDownload.status).toBe(200);
    secrets.push(...privateKeySecrets('issued key (File download)', keyDownload.text));
    const pfxDownload = await http(file.pfxDownloadUrl);
    expect(pfxDownload.status).toBe(200);
    secrets.push(binaryForms('PKCS#12 (File download)', pfxDownload.body));

    const renewed = await t.post(`/v1/certificates/${text.certificateId}/renew`, { validityDays: 30 });
    expect(renewed.status).toBe(200);
    secrets.push(
      ...privateKeySecrets('renewed key', renewed.json<{ privateKeyPem: string }>().privateKeyPem),
    );
    const renewedV2 = await t.post(`/v2/certificates/${text.certificateId}/renew`, {
      validityDays: 30,
      passwordProtected: true,
    });
    expect(renewedV2.status).toBe(200);
    const v2 = renewedV2.json<{ privateKeyPem: string; pfxBase64: string; password: string }>();
    secrets.push(
      ...privateKeySecrets('renewed key (v2, PKCS#12)', v2.privateKeyPem),
      binaryForms('PKCS#12 (v2 renewal)', Buffer.from(v2.pfxBase64, 'base64')),
    );
    for (const id of [pfx.certificateId, file.certificateId]) {
      expect((await t.post(`/v1/certificates/${id}/revoke`, { reason: 'leak test' })).status).toBe(200);
    }

    const issuanceKek =
      mode === 'embedded'
        ? Buffer.from(readFileSync(join(sut.config.dataDir, 'keys', 'ca-kek'), 'utf8').trim(), 'base64')
        : Buffer.from(sut.config.caKek!, 'base64');
    const responderKek =
      mode === 'embedded'
        ? Buffer.from(
            readFileSync(join(sut.config.dataDir, 'ocsp-responder', 'keys', 'ca-kek'), 'utf8').trim(),
            'base64',
          )
        : issuanceKek;
    secrets.push(
      binaryForms('CA_KEK (issuance)', issuanceKek),
      binaryForms('CA_KEK (responder)', responderKek),
    );
    const caKey = await caPrivateKey(sut, t.tenantId, issuanceKek);
    secrets.push(
      ...privateKeySecrets(
        'CA private key',
        createPrivateKey({ key: caKey, format: 'der', type: 'pkcs8' }).export({
          format: 'pem',
          type: 'pkcs8',
        }) as string,
      ),
    );
  });
  afterAll(async () => {
    await sniffer?.stop();
    await sut?.stop();
  });

  it('logged at debug level, and the secrets were really looked for', () => {
    expect(logs.lineCount()).toBeGreaterThan(20);
    expect(logs.text()).toContain('"level":20'); // debug lines were written
    expect(secrets.length).toBeGreaterThan(20);
    expect(
      findLeaks(Buffer.from(secrets.map((s) => s.forms[0].toString('latin1')).join('|')), secrets).length,
    ).toBeGreaterThan(0);
  });

  it('finds no secret in any log line', () => {
    expect(findLeaks(Buffer.from(logs.text()), secrets)).toEqual([]);
  });

  (mode === 'postgres+nats' ? it : it.skip)(
    'lets no private key or PKCS#12 cross the bus (a plain subscriber to every subject and reply inbox)',
    () => {
      const traffic = sniffer!.traffic();
      // The sniffer did see the issuance replies: the certificate it answered with is there.
      const certificateLine = textCertificatePem.split('\n').find((line) => line.length >= 64)!;
      expect(sniffer!.messageCount).toBeGreaterThan(10);
      expect(traffic.includes(Buffer.from(certificateLine))).toBe(true);
      expect(
        findLeaks(
          traffic,
          secrets.filter((s) => /key|PKCS#12|password/.test(s.what)),
        ),
      ).toEqual([]);
      expect(traffic.includes(Buffer.from('PRIVATE KEY'))).toBe(false);
    },
  );

  it('finds no secret in the audit export', async () => {
    expect(findLeaks(Buffer.from(await auditExport(sut.databaseUrl)), secrets)).toEqual([]);
  });

  it('finds no secret in any table of any schema, while download links waited and after', async () => {
    expect(findLeaks(dumpWhileLinksWait, secrets)).toEqual([]);
    expect(findLeaks(await dumpDatabase(sut.databaseUrl), secrets)).toEqual([]);
  });
});
