import type { webcrypto } from 'node:crypto';

import { buildCaCertificate } from '../ca-certificate.builder';
import { generateEcKeyPair } from '../ec-key-pair';
import { buildLeafCertificate, type ExtendedKeyUsage } from '../leaf-certificate.builder';
import { randomSerialNumber, serialToHex } from '../serial-number';

/** A throw-away CA with a delegated OCSP signer, for tests of CRLs, OCSP and their consumers. */
export interface TestPki {
  caDer: Uint8Array;
  caKeys: webcrypto.CryptoKeyPair;
  /** Leaf with EKU OCSPSigning and id-pkix-ocsp-nocheck, issued by the CA (RFC 6960 4.2.2.2). */
  ocspSignerDer: Uint8Array;
  ocspSignerKeys: webcrypto.CryptoKeyPair;
  /** A client leaf issued by the CA, valid now; `serialNumberHex` as `serialToHex` prints it. */
  issueLeaf(
    extendedKeyUsages?: ExtendedKeyUsage[],
    commonName?: string,
  ): Promise<{
    der: Uint8Array;
    keys: webcrypto.CryptoKeyPair;
    serialNumberHex: string;
  }>;
}

const DAY = 86_400_000;

/** A P-256 root valid from a minute ago for ten years, its OCSP signer, and a way to issue leaves. */
export async function createTestPki(commonName = 'Test Root CA'): Promise<TestPki> {
  const caKeys = await generateEcKeyPair(false);
  const notBefore = new Date(Date.now() - 60_000);
  const caDer = await buildCaCertificate(
    {
      subject: { country: 'US', organization: 'Acme', commonName },
      notBefore,
      notAfter: new Date(notBefore.getTime() + 3650 * DAY),
      serialNumber: randomSerialNumber(),
    },
    caKeys,
  );
  const issuer = { certificateDer: caDer, privateKey: caKeys.privateKey };
  const issueLeaf = async (extendedKeyUsages: ExtendedKeyUsage[] = ['clientAuth'], leafName?: string) => {
    const keys = await generateEcKeyPair(true);
    const serialNumber = randomSerialNumber();
    const der = await buildLeafCertificate(
      {
        subject: { organization: 'Acme', commonName: leafName ?? `leaf ${serialToHex(serialNumber)}` },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 90 * DAY),
        serialNumber,
        extendedKeyUsages,
        ocspNoCheck: extendedKeyUsages.includes('ocspSigning'),
      },
      keys.publicKey,
      issuer,
    );
    return { der, keys, serialNumberHex: serialToHex(serialNumber) };
  };
  const signer = await issueLeaf(['ocspSigning'], `${commonName} OCSP Responder`);
  return { caDer, caKeys, ocspSignerDer: signer.der, ocspSignerKeys: signer.keys, issueLeaf };
}
