import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pkijs from 'pkijs';
import { csrRequestedNames } from './csr-requested-names';
import { EXTENSION_ID, GENERAL_NAME_TYPE } from './extensions';
import { PkiFormatError } from './pki-format.error';
import { describeIfOpenssl, OPENSSL_NEW_P256_KEY, opensslCsr } from './testing';

/** `openssl req -new` with a fresh P-256 key, the subject and any extra arguments (DER). */
const csrOf = (subject: string, ...extra: string[]) => opensslCsr(OPENSSL_NEW_P256_KEY, subject, extra);

/** The same names as PKI.js reads them: the reader this one replaced, as a reference. */
function namesByPkijs(der: Uint8Array) {
  const request = pkijs.CertificationRequest.fromBER(der);
  const cn = request.subject.typesAndValues.find((tv) => tv.type === '2.5.4.3')?.value.valueBlock
    .value as unknown;
  const dnsNames: string[] = [];
  let otherNames = 0;
  for (const attribute of request.attributes ?? []) {
    if (attribute.type !== '1.2.840.113549.1.9.14') continue;
    for (const value of attribute.values) {
      for (const extension of new pkijs.Extensions({ schema: value }).extensions) {
        if (extension.extnID !== EXTENSION_ID.subjectAltName) continue;
        for (const name of pkijs.GeneralNames.fromBER(extension.extnValue.valueBlock.valueHexView).names) {
          if (name.type === GENERAL_NAME_TYPE.dNSName) dnsNames.push(String(name.value));
          else otherNames++;
        }
      }
    }
  }
  return { commonName: typeof cn === 'string' ? cn : undefined, dnsNames, otherNames };
}

describeIfOpenssl('csrRequestedNames', () => {
  it('reads the CN and the requested DNS names, and counts the other kinds of names', () => {
    const der = csrOf(
      '/O=Example/CN=www.example.com',
      '-addext',
      'subjectAltName=DNS:www.example.com,DNS:api.example.com,IP:192.0.2.1,email:a@example.com',
    );
    expect(csrRequestedNames(der)).toEqual({
      commonName: 'www.example.com',
      dnsNames: ['www.example.com', 'api.example.com'],
      otherNames: 2,
    });
    expect(csrRequestedNames(der)).toEqual(namesByPkijs(der));
  });

  it('reads a request without a CN or without any extension request', () => {
    const sanOnly = csrOf('/O=Example', '-addext', 'subjectAltName=DNS:a.example');
    expect(csrRequestedNames(sanOnly)).toEqual({
      commonName: undefined,
      dnsNames: ['a.example'],
      otherNames: 0,
    });
    const cnOnly = csrOf('/CN=b.example');
    expect(csrRequestedNames(cnOnly)).toEqual({ commonName: 'b.example', dnsNames: [], otherNames: 0 });
    expect(csrRequestedNames(cnOnly)).toEqual(namesByPkijs(cnOnly));
  });

  it.each([
    ['UTF8String', 'utf8only', 't\u00ebst.example', 0x0c],
    ['BMPString', 'pkix', 't\u00ebst.example', 0x1e],
    ['PrintableString', 'default', 'test.example', 0x13],
  ])('decodes a %s CN as PKI.js does', (_, stringMask, name, tag) => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-names-'));
    const config = join(dir, 'openssl.cnf');
    writeFileSync(config, `[req]\ndistinguished_name=dn\nstring_mask=${stringMask}\n[dn]\n`);
    const der = csrOf(`/CN=${name}`, '-config', config, '-utf8');
    rmSync(dir, { recursive: true, force: true });
    const cnType = Buffer.from('0603550403', 'hex');
    expect(der[Buffer.from(der).indexOf(cnType) + cnType.length]).toBe(tag);
    expect(csrRequestedNames(der).commonName).toBe(name);
    expect(csrRequestedNames(der)).toEqual(namesByPkijs(der));
  });

  it('refuses what is not a request, and a request whose subjectAltName cannot be read', () => {
    expect(() => csrRequestedNames(new Uint8Array([1, 2, 3]))).toThrow(PkiFormatError);
    const der = csrOf('/CN=c.example', '-addext', 'subjectAltName=DNS:c.example');
    expect(() => csrRequestedNames(der.slice(0, der.length - 3))).toThrow(PkiFormatError);
    // The SAN's extnValue no longer holds a SEQUENCE of GeneralNames.
    const sanOid = Buffer.from('0603551d11', 'hex');
    const at = Buffer.from(der).indexOf(sanOid) + sanOid.length;
    const broken = new Uint8Array(der);
    expect(broken[at]).toBe(0x04); // the extnValue OCTET STRING
    broken[at + 2] = 0x31; // its GeneralNames SEQUENCE made a SET
    expect(() => csrRequestedNames(broken)).toThrow('unreadable extension request');
  });
});
