/**
 * Reads an X.509 certificate (RFC 5280) in the browser, far enough to show it to a person: the
 * names, validity, key, and each extension in words. A small DER reader, not a validator: the
 * certificate came from the API and is shown, never trusted for anything.
 */
export interface Der {
  tag: number;
  /** The value octets. */
  value: Uint8Array;
  /** Header and value octets. */
  whole: Uint8Array;
  children: Der[];
}

export function readDer(bytes: Uint8Array, offset = 0): Der & { end: number } {
  if (offset + 2 > bytes.length) throw new Error('truncated DER');
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i];
    header += count;
  }
  const start = offset + header;
  const end = start + length;
  if (end > bytes.length) throw new Error('truncated DER');
  const value = bytes.subarray(start, end);
  const children: Der[] = [];
  if (tag & 0x20) {
    for (let at = start; at < end;) {
      const child = readDer(bytes, at);
      children.push(child);
      at = child.end;
    }
  }
  return { tag, value, whole: bytes.subarray(offset, end), children, end };
}

export function pemToDer(pem: string): Uint8Array {
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

/** Every PEM block of a text (a chain). */
export function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
}

export function oidOf(value: Uint8Array): string {
  const parts: number[] = [];
  let n = 0;
  for (const byte of value) {
    n = n * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0) parts.push(n < 80 ? Math.floor(n / 40) : 2, n < 80 ? n % 40 : n - 80);
      else parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

export function hex(bytes: Uint8Array, separator = ''): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join(separator);
}

function text(node: Der): string {
  if (node.tag === 0x1e) {
    let out = '';
    for (let i = 0; i + 1 < node.value.length; i += 2)
      out += String.fromCharCode((node.value[i] << 8) | node.value[i + 1]);
    return out;
  }
  return new TextDecoder().decode(node.value);
}

export function timeOf(node: Der): Date {
  const t = text(node);
  if (node.tag === 0x17) {
    const year = Number(t.slice(0, 2));
    return new Date(
      `${year < 50 ? 2000 + year : 1900 + year}-${t.slice(2, 4)}-${t.slice(4, 6)}T${t.slice(6, 8)}:${t.slice(8, 10)}:${t.slice(10, 12)}Z`,
    );
  }
  return new Date(
    `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}Z`,
  );
}

const NAME_ATTRIBUTES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.5': 'serialNumber',
  '1.2.840.113549.1.9.1': 'emailAddress',
  '0.9.2342.19200300.100.1.25': 'DC',
};

/** A Name as `C=US, O=Acme, CN=Acme Root` (the order of the certificate, as the API writes subjects). */
export function nameOf(node: Der): string {
  return node.children
    .flatMap((rdn) => rdn.children)
    .map((attribute) => {
      const oid = oidOf(attribute.children[0].value);
      return `${NAME_ATTRIBUTES[oid] ?? oid}=${text(attribute.children[1])}`;
    })
    .join(', ');
}

const ALGORITHMS: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'ECDSA with SHA-256',
  '1.2.840.10045.4.3.3': 'ECDSA with SHA-384',
  '1.2.840.10045.4.3.4': 'ECDSA with SHA-512',
  '1.2.840.113549.1.1.11': 'RSA with SHA-256',
  '1.2.840.113549.1.1.12': 'RSA with SHA-384',
  '1.2.840.113549.1.1.13': 'RSA with SHA-512',
  '1.2.840.113549.1.1.10': 'RSA-PSS',
  '1.3.101.112': 'Ed25519',
};
const CURVES: Record<string, string> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

function keyOf(spki: Der): string {
  const algorithm = spki.children[0];
  const oid = oidOf(algorithm.children[0].value);
  if (oid === '1.2.840.10045.2.1') {
    const curve = algorithm.children[1] ? oidOf(algorithm.children[1].value) : '';
    return `ECDSA ${CURVES[curve] ?? curve}`;
  }
  if (oid === '1.2.840.113549.1.1.1') {
    const key = readDer(spki.children[1].value.subarray(1));
    const modulus = key.children[0].value;
    const bits = (modulus.length - (modulus[0] === 0 ? 1 : 0)) * 8;
    return `RSA ${bits} bits`;
  }
  if (oid === '1.3.101.112') return 'Ed25519';
  return oid;
}

const EXTENSION_NAMES: Record<string, string> = {
  '2.5.29.14': 'Subject Key Identifier',
  '2.5.29.15': 'Key Usage',
  '2.5.29.17': 'Subject Alternative Name',
  '2.5.29.19': 'Basic Constraints',
  '2.5.29.30': 'Name Constraints',
  '2.5.29.31': 'CRL Distribution Points',
  '2.5.29.32': 'Certificate Policies',
  '2.5.29.35': 'Authority Key Identifier',
  '2.5.29.37': 'Extended Key Usage',
  '1.3.6.1.5.5.7.1.1': 'Authority Information Access',
  '1.3.6.1.5.5.7.1.24': 'TLS Feature',
  '1.3.6.1.5.5.7.48.1.5': 'OCSP No Check',
};
const KEY_USAGES = [
  'digital signature',
  'non-repudiation',
  'key encipherment',
  'data encipherment',
  'key agreement',
  'certificate signing',
  'CRL signing',
  'encipher only',
  'decipher only',
];
const EXTENDED_USAGES: Record<string, string> = {
  '1.3.6.1.5.5.7.3.1': 'TLS server authentication',
  '1.3.6.1.5.5.7.3.2': 'TLS client authentication',
  '1.3.6.1.5.5.7.3.3': 'code signing',
  '1.3.6.1.5.5.7.3.4': 'e-mail protection',
  '1.3.6.1.5.5.7.3.8': 'time stamping',
  '1.3.6.1.5.5.7.3.9': 'OCSP signing',
};

function generalName(node: Der): string {
  const kind = node.tag & 0x1f;
  if (kind === 1) return `e-mail ${text(node)}`;
  if (kind === 2) return `DNS ${text(node)}`;
  if (kind === 6) return `URI ${text(node)}`;
  if (kind === 4) return `directory name ${nameOf(node.children[0])}`;
  if (kind === 7) {
    const v = node.value;
    if (v.length === 4 || v.length === 8) {
      const ip = Array.from(v.subarray(0, 4)).join('.');
      return v.length === 8 ? `IP range ${ip}/${Array.from(v.subarray(4)).join('.')}` : `IP ${ip}`;
    }
    return `IP ${hex(v, ':')}`;
  }
  return `name of type ${kind}`;
}

function bitsOf(value: Uint8Array): number[] {
  const unused = value[0];
  const bits: number[] = [];
  for (let i = 1; i < value.length; i++)
    for (let b = 0; b < 8; b++) {
      const index = (i - 1) * 8 + b;
      if (i === value.length - 1 && b >= 8 - unused) break;
      if (value[i] & (0x80 >> b)) bits.push(index);
    }
  return bits;
}

/** One extension, in words. */
export function describeExtension(oid: string, value: Der): string {
  switch (oid) {
    case '2.5.29.14':
      return hex(value.value, ':');
    case '2.5.29.35': {
      const id = value.children.find((c) => c.tag === 0x80);
      return id ? `key ${hex(id.value, ':')}` : 'no key identifier';
    }
    case '2.5.29.15':
      return bitsOf(value.value)
        .map((bit) => KEY_USAGES[bit] ?? `bit ${bit}`)
        .join(', ');
    case '2.5.29.37':
      return value.children.map((c) => EXTENDED_USAGES[oidOf(c.value)] ?? oidOf(c.value)).join(', ');
    case '2.5.29.17':
      return value.children.map(generalName).join(', ');
    case '2.5.29.19': {
      const ca = value.children.find((c) => c.tag === 0x01);
      const path = value.children.find((c) => c.tag === 0x02);
      if (!ca || ca.value[0] === 0) return 'not a CA';
      return path
        ? `a CA; at most ${path.value[path.value.length - 1]} CA below it`
        : 'a CA, any depth below it';
    }
    case '2.5.29.30':
      return value.children
        .map((subtrees) => {
          const names = subtrees.children.map((s) => generalName(s.children[0])).join(', ');
          return `${(subtrees.tag & 0x1f) === 0 ? 'permitted' : 'excluded'}: ${names}`;
        })
        .join('; ');
    case '2.5.29.31':
      return value.children
        .flatMap((point) => point.children[0]?.children[0]?.children ?? [])
        .map(generalName)
        .join(', ');
    case '1.3.6.1.5.5.7.1.1':
      return value.children
        .map((access) => {
          const method = oidOf(access.children[0].value);
          const what =
            method === '1.3.6.1.5.5.7.48.1'
              ? 'OCSP'
              : method === '1.3.6.1.5.5.7.48.2'
                ? 'CA issuers'
                : method;
          return `${what}: ${generalName(access.children[1])}`;
        })
        .join(', ');
    case '1.3.6.1.5.5.7.1.24':
      return value.children
        .map((c) => (c.value[c.value.length - 1] === 5 ? 'OCSP must-staple' : `feature ${c.value[0]}`))
        .join(', ');
    case '1.3.6.1.5.5.7.48.1.5':
      return 'relying parties need not check this certificate’s revocation';
    default:
      return `${value.whole.length} octets`;
  }
}

export interface Extension {
  oid: string;
  name: string;
  critical: boolean;
  description: string;
}

export interface CertificateFields {
  version: number;
  serialNumber: string;
  signatureAlgorithm: string;
  issuer: string;
  subject: string;
  notBefore: Date;
  notAfter: Date;
  publicKey: string;
  extensions: Extension[];
  /** Subject and authority key identifiers (hex), to link a certificate to its issuer. */
  subjectKeyId?: string;
  authorityKeyId?: string;
  /** DER of the issuer Name and of the subject public key BIT STRING contents (for an OCSP CertID). */
  issuerNameDer: Uint8Array;
  subjectNameDer: Uint8Array;
  publicKeyBits: Uint8Array;
  ocspUrls: string[];
}

export function readCertificate(pem: string): CertificateFields {
  const certificate = readDer(pemToDer(pem));
  const tbs = certificate.children[0];
  let i = 0;
  let version = 1;
  if (tbs.children[0].tag === 0xa0) {
    version = tbs.children[0].children[0].value[0] + 1;
    i = 1;
  }
  const [serial, signature, issuer, validity, subject, spki] = tbs.children.slice(i, i + 6);
  const extensions: Extension[] = [];
  let subjectKeyId: string | undefined;
  let authorityKeyId: string | undefined;
  const ocspUrls: string[] = [];
  const extensionsNode = tbs.children.find((c) => c.tag === 0xa3);
  for (const extension of extensionsNode?.children[0].children ?? []) {
    const oid = oidOf(extension.children[0].value);
    const critical = extension.children.length === 3 && extension.children[1].value[0] !== 0;
    const octets = extension.children[extension.children.length - 1].value;
    let description: string;
    try {
      const value = readDer(octets);
      description = describeExtension(oid, value);
      if (oid === '2.5.29.14') subjectKeyId = hex(value.value);
      if (oid === '2.5.29.35') {
        const id = value.children.find((c) => c.tag === 0x80);
        if (id) authorityKeyId = hex(id.value);
      }
      if (oid === '1.3.6.1.5.5.7.1.1')
        for (const access of value.children)
          if (oidOf(access.children[0].value) === '1.3.6.1.5.5.7.48.1')
            ocspUrls.push(text(access.children[1]));
    } catch {
      description = 'cannot be read';
    }
    extensions.push({ oid, name: EXTENSION_NAMES[oid] ?? oid, critical, description });
  }
  const serialBytes =
    serial.value[0] === 0 && serial.value.length > 1 ? serial.value.subarray(1) : serial.value;
  const algorithm = oidOf(signature.children[0].value);
  return {
    version,
    serialNumber: hex(serialBytes),
    signatureAlgorithm: ALGORITHMS[algorithm] ?? algorithm,
    issuer: nameOf(issuer),
    subject: nameOf(subject),
    notBefore: timeOf(validity.children[0]),
    notAfter: timeOf(validity.children[1]),
    publicKey: keyOf(spki),
    extensions,
    subjectKeyId,
    authorityKeyId,
    issuerNameDer: issuer.whole,
    subjectNameDer: subject.whole,
    publicKeyBits: spki.children[1].value.subarray(1),
    ocspUrls,
  };
}
