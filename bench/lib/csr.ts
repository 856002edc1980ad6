/**
 * Fresh P-256 keys and PKCS#10 requests (RFC 2986) for the loaders of CSR issuance, made before a
 * timed window so that the loader's own work is not in it: one key and one request per request
 * sent, CN and one DNS SAN (extensionRequest, RFC 2985 5.4.2), ecdsa-with-SHA256. Also the one-time
 * JWK tokens step-ca's `/1.0/sign` takes (ES256 JWS over step's claims), made the same way.
 */
import { KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const SEQUENCE = 0x30;
const SET = 0x31;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const septets: number[] = [];
    let v = arc;
    do {
      septets.unshift(v & 0x7f);
      v = Math.floor(v / 128);
    } while (v > 0);
    for (let i = 0; i < septets.length - 1; i++) septets[i] |= 0x80;
    out.push(...septets);
  }
  return tlv(0x06, Buffer.from(out));
}

const ECDSA_WITH_SHA256 = tlv(SEQUENCE, oid('1.2.840.10045.4.3.2'));
const EXTENSION_REQUEST = oid('1.2.840.113549.1.9.14');
const SUBJECT_ALT_NAME = oid('2.5.29.17');
const COMMON_NAME = oid('2.5.4.3');

/** A fresh P-256 key's PKCS#10 request for `name` (CN and the one DNS SAN), in PEM. */
export function freshCsrPem(name: string): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const subject = tlv(SEQUENCE, tlv(SET, tlv(SEQUENCE, COMMON_NAME, tlv(0x0c, Buffer.from(name)))));
  const san = tlv(SEQUENCE, SUBJECT_ALT_NAME, tlv(0x04, tlv(SEQUENCE, tlv(0x82, Buffer.from(name)))));
  const attributes = tlv(0xa0, tlv(SEQUENCE, EXTENSION_REQUEST, tlv(SET, tlv(SEQUENCE, san))));
  const info = tlv(SEQUENCE, Buffer.from([0x02, 0x01, 0x00]), subject, spki, attributes);
  const signature = sign('sha256', info, privateKey);
  const der = tlv(SEQUENCE, info, ECDSA_WITH_SHA256, tlv(0x03, Buffer.from([0]), signature));
  const base64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${base64}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** Our v2 issuance request for `name` from a fresh P-256 key's CSR (CN and the one DNS SAN). */
export function csrIssueBody(name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientId: 'bench',
      commonName: name,
      organization: 'Bench',
      organizationalUnit: 'Performance',
      country: 'US',
      validityDays: 90,
      usage: 'Server',
      subjectAlternativeNames: [name],
      csrPem: freshCsrPem(name),
    }),
  );
}

/** A step JWK provisioner's key: the private half signs tokens, the public JWK goes into ca.json. */
export interface JwkProvisionerKey {
  privateKey: KeyObject;
  /** The public JWK with `kid` (its RFC 7638 thumbprint, as `step crypto jwk create` names it), `use`, `alg`. */
  jwk: Record<string, string>;
}

export function jwkProvisionerKey(): JwkProvisionerKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { crv, x, y } = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv, kty: 'EC', x, y }))
    .digest('base64url');
  return { privateKey, jwk: { use: 'sig', kty: 'EC', kid, crv, alg: 'ES256', x, y } };
}

/** A one-time token for step-ca's `/1.0/sign` (its JWK provisioner's claims: sub, sans, jti). */
export function stepSignToken(
  key: JwkProvisionerKey,
  provisioner: string,
  audience: string,
  name: string,
  lifetimeSeconds = 600,
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'ES256', kid: key.jwk.kid, typ: 'JWT' };
  const claims = {
    iss: provisioner,
    aud: audience,
    sub: name,
    sans: [name],
    iat: now,
    nbf: now,
    exp: now + lifetimeSeconds,
    jti: randomBytes(16).toString('hex'),
  };
  const input = `${b64url(header)}.${b64url(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
