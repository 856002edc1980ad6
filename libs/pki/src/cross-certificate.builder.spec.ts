import type { webcrypto } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildCaCertificate } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { buildCrossCertificate } from './cross-certificate.builder';
import { crossCertificateProblem } from './cross-certificate.check';
import { generateEcKeyPair } from './ec-key-pair';
import { buildLeafCertificate } from './leaf-certificate.builder';
import { derToPem } from './pem';
import { randomSerialNumber, serialToHex } from './serial-number';
import { hasOpenssl, spawnOpenssl } from './testing';

const DAY = 86_400_000;
const subject = { country: 'US', organization: 'Acme', commonName: 'Acme Root' };

interface Ca {
  der: Uint8Array;
  keys: webcrypto.CryptoKeyPair;
}

async function root(
  notBefore: Date,
  days: number,
  name = subject,
  /** null: no pathLenConstraint, as a RootOnly root has none. */
  pathLenConstraint: number | null = 1,
): Promise<Ca> {
  const keys = await generateEcKeyPair(false);
  const der = await buildCaCertificate(
    {
      subject: name,
      notBefore,
      notAfter: new Date(notBefore.getTime() + days * DAY),
      serialNumber: randomSerialNumber(),
      ...(pathLenConstraint === null ? {} : { pathLenConstraint }),
    },
    keys,
  );
  return { der, keys };
}

describe('buildCrossCertificate', () => {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  let oldRoot: Ca;
  let newRoot: Ca;

  beforeAll(async () => {
    oldRoot = await root(new Date(now.getTime() - 400 * DAY), 800);
    newRoot = await root(now, 3650);
  });

  it("names the new root's subject and key, the old root as issuer, and keeps within the old root's validity", async () => {
    const serialNumber = randomSerialNumber();
    const der = await buildCrossCertificate(
      newRoot.der,
      { serialNumber },
      { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey },
    );
    const cross = parseCertificate(der);
    const next = parseCertificate(newRoot.der);
    const old = parseCertificate(oldRoot.der);
    expect(cross.serialNumberHex).toBe(serialToHex(serialNumber));
    expect(cross.subjectDer).toEqual(next.subjectDer);
    expect(cross.issuer).toEqual(old.subject);
    expect(cross.subjectKeyIdentifierHex).toBe(next.subjectKeyIdentifierHex);
    expect(cross.authorityKeyIdentifierHex).toBe(old.subjectKeyIdentifierHex);
    expect(cross.isCa).toBe(true);
    expect(cross.notBefore).toEqual(next.notBefore);
    // The new root runs ten years; the cross certificate ends with the old root.
    expect(cross.notAfter).toEqual(old.notAfter);

    const x509 = new X509Certificate(der);
    expect(x509.publicKey.export({ format: 'der', type: 'spki' })).toEqual(
      new X509Certificate(newRoot.der).publicKey.export({ format: 'der', type: 'spki' }),
    );
    expect(x509.verify(new X509Certificate(oldRoot.der).publicKey)).toBe(true);
    expect(x509.verify(new X509Certificate(newRoot.der).publicKey)).toBe(false);
    expect(x509.ca).toBe(true);
  });

  it("copies the new root's pathLenConstraint, or none, and writes the old root's CDP and caIssuers", async () => {
    const unconstrained = await root(now, 365, subject, null);
    const url = 'http://pki.test/v1/tenants/t/ca/00000000-0000-4000-8000-000000000001';
    const der = await buildCrossCertificate(
      unconstrained.der,
      {
        serialNumber: randomSerialNumber(),
        crlDistributionPointUrl: `${url}/crl`,
        caIssuersUrl: `${url}.crt`,
      },
      { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey },
    );
    const info = parseCertificate(der);
    expect(info.crlDistributionPointUrls).toEqual([`${url}/crl`]);
    expect(info.caIssuersUrls).toEqual([`${url}.crt`]);
    expect(info.ocspUrls).toEqual([]);
    const withLength = await buildCrossCertificate(
      newRoot.der,
      { serialNumber: randomSerialNumber() },
      { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey },
    );
    if (hasOpenssl()) {
      const text = (der: Uint8Array) =>
        spawnOpenssl(['x509', '-noout', '-text'], derToPem(der)).stdout.replace(/\s+/g, ' ');
      expect(text(der)).toMatch(/CA:TRUE(?!, pathlen)/);
      expect(text(withLength)).toMatch(/CA:TRUE, pathlen:1/);
    }
  });

  it("refuses a key that is not the old root's, and roots whose validities do not overlap", async () => {
    const stranger = await generateEcKeyPair(false);
    await expect(
      buildCrossCertificate(
        newRoot.der,
        { serialNumber: randomSerialNumber() },
        { certificateDer: oldRoot.der, privateKey: stranger.privateKey },
      ),
    ).rejects.toThrow(/does not match/);
    const expired = await root(new Date(now.getTime() - 20 * DAY), 10);
    await expect(
      buildCrossCertificate(
        newRoot.der,
        { serialNumber: randomSerialNumber() },
        { certificateDer: expired.der, privateKey: expired.keys.privateKey },
      ),
    ).rejects.toThrow(/does not overlap/);
  });

  it('checks that a cross certificate binds the new root to the previous one', async () => {
    const issuer = { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey };
    const cross = await buildCrossCertificate(newRoot.der, { serialNumber: randomSerialNumber() }, issuer);
    expect(crossCertificateProblem(oldRoot.der, newRoot.der, cross)).toBeUndefined();
    const other = await root(now, 365);
    expect(crossCertificateProblem(other.der, newRoot.der, cross)).toMatch(/not signed by the previous root/);
    expect(crossCertificateProblem(oldRoot.der, other.der, cross)).toMatch(/another key/);
    const renamed = await root(now, 365, { ...subject, commonName: 'Other' });
    expect(crossCertificateProblem(oldRoot.der, renamed.der, cross)).toMatch(/another subject/);
    expect(crossCertificateProblem(oldRoot.der, cross, cross)).toMatch(/not self-signed/);
    expect(crossCertificateProblem(oldRoot.der, newRoot.der, Uint8Array.of(0x30, 0))).toMatch(
      /does not decode/,
    );
  });

  describe('read by the openssl CLI', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pki-cross-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** A leaf under an issuing CA under `anchor`; its chain is the issuing CA and the cross certificate. */
    async function verifyBoth(renewed: Ca, cross: Uint8Array) {
      const issuingKeys = await generateEcKeyPair(false);
      const issuingDer = await buildCaCertificate(
        {
          subject: { ...subject, commonName: 'Acme Root Issuing CA 2' },
          notBefore: now,
          notAfter: new Date(now.getTime() + 300 * DAY),
          serialNumber: randomSerialNumber(),
          pathLenConstraint: 0,
        },
        issuingKeys,
        { certificateDer: renewed.der, privateKey: renewed.keys.privateKey },
      );
      const leafKeys = await generateEcKeyPair(false);
      const leafDer = await buildLeafCertificate(
        {
          subject: { organization: 'Acme', commonName: 'client' },
          notBefore: now,
          notAfter: new Date(now.getTime() + 30 * DAY),
          serialNumber: randomSerialNumber(),
          extendedKeyUsages: ['clientAuth'],
        },
        leafKeys.publicKey,
        { certificateDer: issuingDer, privateKey: issuingKeys.privateKey },
      );
      const file = (name: string, pem: string) => {
        const path = join(dir, name);
        writeFileSync(path, pem);
        return path;
      };
      const chain = file('chain.pem', derToPem(issuingDer) + derToPem(cross));
      const leaf = file('leaf.pem', derToPem(leafDer));
      const verify = (anchor: Uint8Array) =>
        spawnOpenssl([
          'verify',
          '-x509_strict',
          '-CAfile',
          file('anchor.pem', derToPem(anchor)),
          '-untrusted',
          chain,
          leaf,
        ]);
      return { withOld: verify(oldRoot.der), withNew: verify(renewed.der) };
    }

    (hasOpenssl() ? it : it.skip)(
      'a leaf under the new root verifies with only the old root (via the cross certificate) and with only the new one',
      async () => {
        const cross = await buildCrossCertificate(
          newRoot.der,
          { serialNumber: randomSerialNumber() },
          { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey },
        );
        const { withOld, withNew } = await verifyBoth(newRoot, cross);
        expect(withOld.stdout).toContain('OK');
        expect(withOld.status).toBe(0);
        expect(withNew.stdout).toContain('OK');
        expect(withNew.status).toBe(0);
      },
    );

    (hasOpenssl() ? it : it.skip)(
      "why the new root keeps the old root's subject: under another name the old root's pathlen:1 refuses the path",
      async () => {
        const renamed = await root(now, 3650, { ...subject, commonName: 'Acme Root 2' });
        const cross = await buildCrossCertificate(
          renamed.der,
          { serialNumber: randomSerialNumber() },
          { certificateDer: oldRoot.der, privateKey: oldRoot.keys.privateKey },
        );
        const { withOld, withNew } = await verifyBoth(renamed, cross);
        expect(withNew.status).toBe(0);
        expect(withOld.status).not.toBe(0);
        expect(`${withOld.stdout}${withOld.stderr}`).toMatch(/path length constraint exceeded/);
      },
    );
  });
});
