import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CustodiedKey, KeyCustodyError, LocalKeyCustody, openPkcs11KeyCustody } from '@ca/custody';
import { createSoftHsmToken, describeIfSoftHsm, SoftHsmToken } from '@ca/custody/testing';
import * as pkijs from 'pkijs';
import { Client } from 'pg';
import { runThroughOperatorEndpoint } from '@ca/operations';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually } from './support/http';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus } from './support/pki';
import { SystemUnderTest, startSystemUnderTest } from './support/system-under-test';

jest.setTimeout(120_000);

/**
 * Key custody as an operator and a relying party see it: KEK rotation of the embedded system
 * (issue, rotate, restart on the new KEK, issue and revoke again with the same CA), and a whole
 * system whose CA keys live in a PKCS#11 token (SoftHSM2).
 */

/** A certificate and a CRL signed by the tenant CA, as a relying party checks them. */
async function expectSignedByCa(
  t: TestTenant,
  sut: SystemUnderTest,
  certificatePem: string,
  revokedSerial?: string,
) {
  expect(new X509Certificate(certificatePem).verify(new X509Certificate(t.caPem).publicKey)).toBe(true);
  const { der } = await eventuallyCrl(
    sut.pkiUrl,
    t.tenantId,
    (crl) => !revokedSerial || crl.entries.some((e) => e.serialNumberHex === revokedSerial),
    `CRL listing ${revokedSerial ?? 'nothing in particular'}`,
  );
  const crl = pkijs.CertificateRevocationList.fromBER(new Uint8Array(der));
  expect(await crl.verify({ issuerCertificate: pkijs.Certificate.fromBER(new Uint8Array(t.caDer)) })).toBe(
    true,
  );
}

async function revoke(t: TestTenant, certificateId: string): Promise<void> {
  const answer = await t.post(`/v1/certificates/${certificateId}/revoke`, { reason: 'key compromise drill' });
  expect(answer.status).toBe(200);
}

/** The stored CA key of a tenant, read from issuance's table. */
async function storedCaKey(
  sut: SystemUnderTest,
  tenantId: string,
): Promise<{ ctx: { tenantId: string; keyId: string }; key: CustodiedKey }> {
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
    return {
      ctx: { tenantId, keyId: row.id },
      key: {
        keyId: row.id,
        algorithm: row.key_algorithm,
        publicKeySpki: new Uint8Array(row.public_key_spki),
        wrapped: new Uint8Array(row.wrapped_key),
      },
    };
  } finally {
    await client.end();
  }
}

/** `npm run ops -- custody …` as the CLI sends it to the running embedded system. */
async function ops(
  sut: SystemUnderTest,
  argv: string[],
): Promise<{ exit: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = await runThroughOperatorEndpoint(sut.config.dataDir, argv, { stdout, stderr });
  return { exit, out, err };
}

const kekOf = (file: string) => new Uint8Array(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));

describe('KEK rotation (embedded, KEK in DATA_DIR)', () => {
  let sut: SystemUnderTest;
  let t: TestTenant;
  let kekFile: string;

  beforeAll(async () => {
    sut = await startSystemUnderTest('embedded');
    kekFile = join(sut.config.dataDir, 'keys', 'ca-kek');
    t = await createTenant(sut);
  });
  afterAll(() => sut?.stop());

  it('re-wraps the CA key under a new KEK; the CA keeps signing, across a restart, and the old KEK opens nothing', async () => {
    const before = await t.issue(issueBody());
    const oldKek = kekOf(kekFile);

    const rotated = await ops(sut, ['custody', 'rotate-kek']);
    expect(rotated).toMatchObject({ exit: 0, err: '' });
    expect(rotated.out).toMatch(
      /^custody rotate-kek: 1 CA key\(s\) re-wrapped under the new KEK, 0 already were\n/,
    );
    const newKek = kekOf(kekFile);
    expect(Buffer.from(newKek).equals(Buffer.from(oldKek))).toBe(false);
    expect(newKek).toHaveLength(32);
    expect(statSync(kekFile).mode & 0o777).toBe(0o600);
    expect(existsSync(`${kekFile}.previous`)).toBe(false);
    expect(rotated.out).not.toContain(Buffer.from(newKek).toString('base64'));

    // Still running: issues and signs CRLs with the same CA.
    const during = await t.issue(issueBody({ commonName: 'after-rotation' }));
    await revoke(t, before.certificateId);
    await expectSignedByCa(t, sut, during.certificatePem, before.serialNumber);

    await sut.restart(); // reads the new KEK file
    const after = await t.issue(issueBody({ commonName: 'after-restart' }));
    await revoke(t, during.certificateId);
    await expectSignedByCa(t, sut, after.certificatePem, during.serialNumber);

    const { ctx, key } = await storedCaKey(sut, t.tenantId);
    await expect(new LocalKeyCustody(oldKek).openSigningKey(ctx, key)).rejects.toThrow(KeyCustodyError);
    await expect(new LocalKeyCustody(newKek).openSigningKey(ctx, key)).resolves.toBeDefined();
  });

  it('takes the new KEK from --new-kek-file, and refuses a malformed one with exit code 2, changing nothing', async () => {
    const file = join(sut.config.dataDir, 'new-kek.txt');
    writeFileSync(file, 'not base64 of 32 bytes\n', { mode: 0o600 });
    const refused = await ops(sut, ['custody', 'rotate-kek', '--new-kek-file', file]);
    expect(refused.exit).toBe(2);
    expect(refused.err).toContain('the new KEK in');
    const unchanged = kekOf(kekFile);

    const chosen = Buffer.alloc(32, 7);
    writeFileSync(file, chosen.toString('base64'), { mode: 0o600 });
    expect(await ops(sut, ['custody', 'rotate-kek', `--new-kek-file=${file}`])).toMatchObject({ exit: 0 });
    expect(Buffer.from(kekOf(kekFile)).equals(chosen)).toBe(true);
    expect(Buffer.from(unchanged).equals(chosen)).toBe(false);
    await t.issue(issueBody({ commonName: 'chosen-kek' }));
  });

  it('answers an unknown custody command with exit code 2', async () => {
    expect(await ops(sut, ['custody', 'rotate-everything'])).toMatchObject({ exit: 2 });
  });
});

describeIfSoftHsm('KEY_CUSTODY=pkcs11 (SoftHSM2), embedded system', () => {
  let token: SoftHsmToken;
  let sut: SystemUnderTest;

  beforeAll(async () => {
    token = createSoftHsmToken('ca-manager-system');
    sut = await startSystemUnderTest('embedded', {
      env: {
        KEY_CUSTODY: 'pkcs11',
        PKCS11_LIBRARY: token.library,
        PKCS11_TOKEN_LABEL: token.tokenLabel,
        PKCS11_PIN: token.pin,
      },
    });
  });
  afterAll(async () => {
    await sut?.stop();
    token?.remove();
  });

  it('initializes a CA in the token, issues and revokes with it, also after a restart; stores only a reference', async () => {
    const t = await createTenant(sut);
    const first = await t.issue(issueBody());
    await revoke(t, first.certificateId);
    await expectSignedByCa(t, sut, first.certificatePem, first.serialNumber);

    await sut.restart(); // logs in again and finds the key in the token
    const second = await t.issue(issueBody({ commonName: 'after-restart' }));
    await revoke(t, second.certificateId);
    await expectSignedByCa(t, sut, second.certificatePem, second.serialNumber);
    // The OCSP signer's certificate was issued with the token's key too.
    await eventuallyRevokedInOcsp(sut.pkiUrl, t.tenantId, t.caDer, second.serialNumber);

    const { key } = await storedCaKey(sut, t.tenantId);
    expect(key.wrapped[0]).toBe(0x81); // a token reference (CKA_ID), not key material
    expect(key.wrapped.length).toBeLessThan(40);
    expect(existsSync(join(sut.config.dataDir, 'keys', 'ca-kek'))).toBe(false);
  });

  it('keeps both keys of a v2 P-384 root and issuing CA in the token; the issuing CA signs leaves and OCSP, also after a restart', async () => {
    const t = await createTenant(sut, { ca: false });
    const answer = await t.post('/v2/ca/initialize', {
      commonName: 'Token Hierarchy Root',
      organization: 'Acme',
      country: 'US',
      validityYears: 2,
      keyAlgorithm: 'P-384',
    });
    expect(answer.status).toBe(200);
    const ca = answer.json<{ certificatePem: string; issuingCa: { certificatePem: string } }>();
    const root = new X509Certificate(ca.certificatePem);
    const issuing = new X509Certificate(ca.issuingCa.certificatePem);
    expect(issuing.verify(root.publicKey)).toBe(true);
    expect(issuing.publicKey.asymmetricKeyDetails?.namedCurve).toBe('secp384r1');
    const issuingDer = Buffer.from(issuing.raw);

    await sut.restart();
    const leaf = await t.issue(issueBody({ commonName: 'token-leaf' }));
    expect(new X509Certificate(leaf.certificatePem).verify(issuing.publicKey)).toBe(true);
    await revoke(t, leaf.certificateId);
    await eventuallyRevokedInOcsp(sut.pkiUrl, t.tenantId, issuingDer, leaf.serialNumber);

    const client = new Client({ connectionString: sut.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT role, key_algorithm, wrapped_key FROM issuance.certificate_authorities WHERE tenant_id = $1 ORDER BY role DESC',
        [t.tenantId],
      );
      expect(rows.map(({ role, key_algorithm }) => [role, key_algorithm])).toEqual([
        ['root', 'ECDSA-P384'],
        ['issuing', 'ECDSA-P384'],
      ]);
      for (const row of rows) expect((row.wrapped_key as Buffer)[0]).toBe(0x81); // token references
    } finally {
      await client.end();
    }
  });

  it('answers custody rotate-kek with exit code 2: a token key is under no KEK of ours', async () => {
    const answer = await ops(sut, ['custody', 'rotate-kek']);
    expect(answer.exit).toBe(2);
    expect(answer.err).toContain('KEY_CUSTODY=pkcs11');
  });
});

/**
 * PKCS11_ROOT_TOKEN_LABEL (docs/operations.md#key-custody): root keys in a token of their own,
 * issuing CA keys in the main one; two SoftHSM2 tokens behind one module, as two HSM partitions.
 */
describeIfSoftHsm('KEY_CUSTODY=pkcs11 with a root token (SoftHSM2), embedded system', () => {
  let mainToken: SoftHsmToken;
  let rootToken: SoftHsmToken;
  let sut: SystemUnderTest;

  beforeAll(async () => {
    mainToken = createSoftHsmToken('ca-manager-issuing');
    rootToken = createSoftHsmToken('ca-manager-root', { besides: mainToken });
    sut = await startSystemUnderTest('embedded', {
      env: {
        KEY_CUSTODY: 'pkcs11',
        PKCS11_LIBRARY: mainToken.library,
        PKCS11_TOKEN_LABEL: mainToken.tokenLabel,
        PKCS11_PIN: mainToken.pin,
        PKCS11_ROOT_TOKEN_LABEL: rootToken.tokenLabel,
        PKCS11_ROOT_PIN: rootToken.pin,
      },
    });
  });
  afterAll(async () => {
    await sut?.stop();
    rootToken?.remove();
    mainToken?.remove();
  });

  interface CaKeyRow {
    id: string;
    role: 'root' | 'issuing';
    ctx: { tenantId: string; keyId: string };
    key: CustodiedKey;
  }

  /** Every CA of the tenant with its stored key reference, oldest first. */
  async function caKeys(tenantId: string): Promise<CaKeyRow[]> {
    const client = new Client({ connectionString: sut.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT id, role, key_algorithm, public_key_spki, wrapped_key FROM issuance.certificate_authorities
          WHERE tenant_id = $1 ORDER BY created_at, role DESC`,
        [tenantId],
      );
      return (
        rows as {
          id: string;
          role: 'root' | 'issuing';
          key_algorithm: CustodiedKey['algorithm'];
          public_key_spki: Buffer;
          wrapped_key: Buffer;
        }[]
      ).map((row) => ({
        id: row.id,
        role: row.role,
        ctx: { tenantId, keyId: row.id },
        key: {
          keyId: row.id,
          algorithm: row.key_algorithm,
          publicKeySpki: new Uint8Array(row.public_key_spki),
          wrapped: new Uint8Array(row.wrapped_key),
        },
      }));
    } finally {
      await client.end();
    }
  }

  /**
   * Which token holds each key: a custody on one token opens a key only when its objects (found
   * by CKA_ID, checked by label and public key) are in that token. The custody shares the
   * running system's login to the token.
   */
  async function holders(rows: CaKeyRow[]): Promise<string[]> {
    const answers: string[] = [];
    const custodies = await Promise.all([mainToken, rootToken].map((token) => openPkcs11KeyCustody(token)));
    try {
      for (const { role, ctx, key } of rows) {
        const [inMain, inRoot] = await Promise.all(
          custodies.map((custody) =>
            custody.openSigningKey(ctx, key).then(
              () => true,
              (error: unknown) => (expect(error).toBeInstanceOf(KeyCustodyError), false),
            ),
          ),
        );
        answers.push(`${role}: ${inMain ? 'main' : ''}${inMain && inRoot ? '+' : ''}${inRoot ? 'root' : ''}`);
      }
    } finally {
      for (const custody of custodies) custody.close();
    }
    return answers;
  }

  const casOf = async (t: TestTenant) =>
    (await t.get('/v2/ca')).json<{ cas: { caId: string; role: string; serialNumber: string }[] }>().cas;

  /** OCSP (under `issuerDer`) answering good for `serial`; the responder makes signers in the background. */
  const eventuallyGood = (t: TestTenant, issuerDer: Uint8Array, serial: string) =>
    eventually(
      async () => {
        const status = await ocspStatus(sut.pkiUrl, t.tenantId, issuerDer, serial).catch(() => undefined);
        return status?.kind === 'good' ? status : undefined;
      },
      10_000,
      `OCSP good for ${serial}`,
    );

  /** root.crl, verified with the root certificate: it was signed with the root token's key. */
  async function expectRootCrl(t: TestTenant, rootPem: string, listing?: string): Promise<void> {
    const { der } = await eventuallyCrl(
      sut.pkiUrl,
      t.tenantId,
      (crl) => !listing || crl.entries.some((e) => e.serialNumberHex === listing),
      `root.crl listing ${listing ?? 'anything'}`,
      'root.crl',
    );
    const crl = pkijs.CertificateRevocationList.fromBER(new Uint8Array(der));
    const issuer = pkijs.Certificate.fromBER(new Uint8Array(new X509Certificate(rootPem).raw));
    expect(await crl.verify({ issuerCertificate: issuer })).toBe(true);
  }

  it('puts a v2 root key in the root token and the issuing CA key in the main one; leaves, OCSP and root.crl work, also after a restart and a root renewal', async () => {
    const t = await createTenant(sut, { ca: false });
    const answer = await t.post('/v2/ca/initialize', {
      commonName: 'Root Token Root',
      organization: 'Acme',
      country: 'US',
      validityYears: 2,
    });
    expect(answer.status).toBe(200);
    const ca = answer.json<{ certificatePem: string; issuingCa: { certificatePem: string } }>();
    const rootDer = new Uint8Array(new X509Certificate(ca.certificatePem).raw);
    const issuing = new X509Certificate(ca.issuingCa.certificatePem);
    expect(await holders(await caKeys(t.tenantId))).toEqual(['root: root', 'issuing: main']);

    // The issuing CA (main token) signs leaves; the root (root token) certifies the signer that
    // answers for the issuing CA, and signs root.crl.
    const leaf = await t.issue(issueBody({ commonName: 'root-token-leaf' }));
    expect(new X509Certificate(leaf.certificatePem).verify(issuing.publicKey)).toBe(true);
    await eventuallyGood(t, new Uint8Array(issuing.raw), leaf.serialNumber);
    const issuingSerial = (await casOf(t)).find(({ role }) => role === 'issuing')!.serialNumber;
    await eventuallyGood(t, rootDer, issuingSerial);
    await expectRootCrl(t, ca.certificatePem);

    await sut.restart(); // logs in to both tokens again
    const after = await t.issue(issueBody({ commonName: 'after-restart' }));
    await revoke(t, after.certificateId);
    await eventuallyRevokedInOcsp(sut.pkiUrl, t.tenantId, new Uint8Array(issuing.raw), after.serialNumber);
    // A rollover after the restart: the root key opens from the root token to sign it.
    const added = await t.post('/v2/ca/issuing', {});
    expect(added.status).toBe(201);
    expect(await holders(await caKeys(t.tenantId))).toEqual(['root: root', 'issuing: main', 'issuing: main']);

    const renewal = await t.post('/v2/ca/root/renew', {});
    expect(renewal.status).toBe(201);
    const renewed = renewal.json<{ caId: string; issuingCa: { caId: string; certificatePem: string } }>();
    const keys = await caKeys(t.tenantId);
    const holderOf = async (id: string) => holders(keys.filter((row) => row.id === id));
    expect(await holderOf(renewed.caId)).toEqual(['root: root']);
    expect(await holderOf(renewed.issuingCa.caId)).toEqual(['issuing: main']);
    const newLeaf = await t.issue(issueBody({ commonName: 'after-renewal' }), '/v2/certificates');
    expect(
      new X509Certificate(newLeaf.certificatePem).verify(
        new X509Certificate(renewed.issuingCa.certificatePem).publicKey,
      ),
    ).toBe(true);
    // root.crl stays the first root's (docs/api.md#renew-the-root), signed in the root token.
    await expectRootCrl(t, ca.certificatePem);
  });
});
