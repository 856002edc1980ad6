import type { webcrypto } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { buildCaCertificate } from './ca-certificate.builder';
import { EXTENSION_ID, KEY_PURPOSE_ID } from './extensions';
import { nameConstraintsExtension, readNameConstraints } from './name-constraints';
import { randomSerialNumber } from './serial-number';

const DAY = 86_400_000;

async function p256(): Promise<webcrypto.CryptoKeyPair> {
  return (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
}

function hex(extension: pkijs.Extension): string {
  return Buffer.from(extension.extnValue.valueBlock.valueHexView).toString('hex');
}

describe('nameConstraintsExtension', () => {
  it('is critical, with one GeneralSubtree { base dNSName } per permitted suffix and no minimum', () => {
    const extension = nameConstraintsExtension({
      permittedDnsNames: ['example.com', 'corp'],
      excludedDnsNames: [],
      excludedIpRanges: [],
    });
    expect(extension.extnID).toBe(EXTENSION_ID.nameConstraints);
    expect(extension.critical).toBe(true);
    // SEQUENCE { [0] { SEQUENCE { [2] "example.com" } SEQUENCE { [2] "corp" } } }
    expect(hex(extension)).toBe(
      '3019a017300d820b' + Buffer.from('example.com').toString('hex') + '300682' + '04' + '636f7270',
    );
  });

  it('excludes every IPv4 and IPv6 address as address and mask of zeros (RFC 5280 4.2.1.10)', () => {
    const extension = nameConstraintsExtension({
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: ['0.0.0.0/0', '::/0'],
    });
    const value = new pkijs.NameConstraints({
      schema: asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result,
    });
    const excluded = value.excludedSubtrees!.map(({ base }) => ({
      type: base.type,
      octets: Buffer.from((base.value as asn1js.OctetString).valueBlock.valueHexView).toString('hex'),
    }));
    expect(excluded).toEqual([
      { type: 7, octets: '00'.repeat(8) },
      { type: 7, octets: '00'.repeat(32) },
    ]);
    expect(value.permittedSubtrees!.map(({ base }) => base.value)).toEqual(['example.com']);
  });

  it('writes a zero-length excluded dNSName for "no DNS name at all" (CA/B BR 7.1.2.5.2)', () => {
    const extension = nameConstraintsExtension({
      permittedDnsNames: [],
      excludedDnsNames: [''],
      excludedIpRanges: [],
    });
    // SEQUENCE { [1] { SEQUENCE { [2] "" } } }: no permittedSubtrees at all.
    expect(hex(extension)).toBe('3006a10430028200');
  });

  it('writes a network and its mask, host bits cleared', () => {
    const extension = nameConstraintsExtension({
      permittedDnsNames: [],
      excludedDnsNames: [],
      excludedIpRanges: ['10.1.2.3/8', 'fd00::1/8'],
    });
    const value = new pkijs.NameConstraints({
      schema: asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result,
    });
    const octets = value.excludedSubtrees!.map(({ base }) =>
      Buffer.from((base.value as asn1js.OctetString).valueBlock.valueHexView).toString('hex'),
    );
    expect(octets).toEqual(['0a000000ff000000', 'fd' + '00'.repeat(15) + 'ff' + '00'.repeat(15)]);
  });

  it.each([
    [{ permittedDnsNames: [], excludedDnsNames: [], excludedIpRanges: [] }, /at least one/],
    [{ permittedDnsNames: ['*.example.com'], excludedDnsNames: [], excludedIpRanges: [] }, /DNS name/],
    [{ permittedDnsNames: ['exa mple.com'], excludedDnsNames: [], excludedIpRanges: [] }, /DNS name/],
    [{ permittedDnsNames: [], excludedDnsNames: [], excludedIpRanges: ['10.0.0.0'] }, /CIDR/],
    [{ permittedDnsNames: [], excludedDnsNames: [], excludedIpRanges: ['10.0.0.0/33'] }, /CIDR/],
    [{ permittedDnsNames: [], excludedDnsNames: [], excludedIpRanges: ['host/0'] }, /CIDR/],
  ])('refuses %j', (constraints, message) => {
    expect(() => nameConstraintsExtension(constraints)).toThrow(message);
  });
});

describe('a CA certificate with nameConstraints and extKeyUsage', () => {
  it('reads back, parsed by pkijs, exactly what the profile asked for', async () => {
    const keys = await p256();
    const notBefore = new Date(Date.now() - 60_000);
    const der = await buildCaCertificate(
      {
        subject: { country: 'US', organization: 'Acme', commonName: 'Acme Constrained' },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 365 * DAY),
        serialNumber: randomSerialNumber(),
        pathLenConstraint: 0,
        extendedKeyUsages: ['serverAuth', 'clientAuth'],
        nameConstraints: {
          permittedDnsNames: ['example.com', 'internal.example.net'],
          excludedDnsNames: [],
          excludedIpRanges: ['0.0.0.0/0', '::/0'],
        },
      },
      keys,
    );
    expect(readNameConstraints(der)).toEqual({
      critical: true,
      permittedDnsNames: ['example.com', 'internal.example.net'],
      excludedDnsNames: [],
      excludedIpRanges: ['0.0.0.0/0', '::/0'],
    });
    const certificate = pkijs.Certificate.fromBER(der);
    const eku = certificate.extensions!.find(({ extnID }) => extnID === EXTENSION_ID.extKeyUsage)!;
    expect(eku.critical).toBe(false);
    expect((eku.parsedValue as pkijs.ExtKeyUsage).keyPurposes).toEqual([
      KEY_PURPOSE_ID.serverAuth,
      KEY_PURPOSE_ID.clientAuth,
    ]);
  });

  it('has neither extension when the profile names none, and readNameConstraints answers null', async () => {
    const keys = await p256();
    const notBefore = new Date(Date.now() - 60_000);
    const der = await buildCaCertificate(
      {
        subject: { country: 'US', organization: 'Acme', commonName: 'Acme Plain' },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 365 * DAY),
        serialNumber: randomSerialNumber(),
      },
      keys,
    );
    expect(readNameConstraints(der)).toBeNull();
    const ids = pkijs.Certificate.fromBER(der).extensions!.map(({ extnID }) => extnID);
    expect(ids).not.toContain(EXTENSION_ID.extKeyUsage);
    expect(ids).not.toContain(EXTENSION_ID.nameConstraints);
  });
});
