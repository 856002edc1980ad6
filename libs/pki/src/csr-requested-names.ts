import { DerElement, DerReader, decodeObjectIdentifier, readSingleElement } from './der-reader';
import { contextConstructed, contextPrimitive, TAG } from './der-writer';
import { EXTENSION_ID } from './extensions';
import { PkiFormatError } from './pki-format.error';

/** PKCS#9 extensionRequest (RFC 2985 5.4.2): where a CSR asks for extensions such as SANs. */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const COMMON_NAME = '2.5.4.3';

const { sequence: SEQUENCE, set: SET, objectIdentifier: OBJECT_IDENTIFIER, boolean: BOOLEAN } = TAG;
/** CertificationRequestInfo attributes [0] IMPLICIT SET OF (RFC 2986 4.1). */
const ATTRIBUTES = contextConstructed(0);
/** GeneralName dNSName [2] IMPLICIT IA5String (RFC 5280 4.2.1.6). */
const DNS_NAME = contextPrimitive(2);

/** The names a CSR asks for: its subject CN and the dNSNames of a requested subjectAltName. */
export interface CsrRequestedNames {
  commonName?: string;
  dnsNames: string[];
  /** Requested SAN entries of other kinds (IP addresses, e-mail, URIs). */
  otherNames: number;
}

/**
 * Reads the names of a DER PKCS#10 request (RFC 2986), for a protocol that must compare them with
 * what was authorized (ACME finalize, RFC 8555 7.4): the first CN of the subject, and the entries
 * of the subjectAltName in its extensionRequest. Walked with the strict DER reader, as
 * `parseCertificationRequest` walks the rest (a PKI.js object graph cost more than the finalize's
 * signature check). Use `parseCertificationRequest` for the key and the signature. Throws
 * `PkiFormatError` when the request or its extension request is unreadable.
 */
export function csrRequestedNames(der: Uint8Array): CsrRequestedNames {
  let fields: DerReader;
  let subject: DerElement;
  try {
    const outer = readSingleElement(der, 'CertificationRequest', SEQUENCE);
    const request = new DerReader(der, outer.contentStart, outer.end);
    fields = request.inside(request.read('certificationRequestInfo', SEQUENCE));
    fields.read('version');
    subject = fields.read('subject', SEQUENCE);
    fields.read('subjectPKInfo', SEQUENCE);
  } catch {
    throw new PkiFormatError('CertificationRequest: not DER');
  }
  const result: CsrRequestedNames = {
    commonName: commonNameOf(fields, subject),
    dnsNames: [],
    otherNames: 0,
  };
  try {
    const attributes = fields.readOptional('attributes', ATTRIBUTES);
    if (attributes) readExtensionRequests(fields.inside(attributes), result);
  } catch {
    throw new PkiFormatError('CertificationRequest: unreadable extension request');
  }
  return result;
}

/** The first CN of a Name (RFC 5280 4.1.2.4), if it is a string type; else undefined. */
function commonNameOf(parent: DerReader, name: DerElement): string | undefined {
  try {
    const rdns = parent.inside(name);
    while (!rdns.atEnd) {
      const rdn = rdns.inside(rdns.read('RelativeDistinguishedName', SET));
      while (!rdn.atEnd) {
        const pair = rdn.inside(rdn.read('AttributeTypeAndValue', SEQUENCE));
        const type = decodeObjectIdentifier(pair.contents(pair.read('type', OBJECT_IDENTIFIER)));
        const value = pair.read('value');
        if (type === COMMON_NAME) return decodeDirectoryString(value.tag, pair.contents(value));
      }
    }
  } catch {
    throw new PkiFormatError('CertificationRequest: unreadable subject');
  }
  return undefined;
}

/** DirectoryString and IA5String contents as text (X.680 41); undefined for any other type. */
function decodeDirectoryString(tag: number, contents: Uint8Array): string | undefined {
  const bytes = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
  switch (tag) {
    case 0x0c: // UTF8String
      return bytes.toString('utf8');
    case 0x13: // PrintableString
    case 0x14: // TeletexString
    case 0x16: // IA5String
      return bytes.toString('latin1');
    case 0x1e: // BMPString: UCS-2, big-endian
      return Buffer.from(bytes).swap16().toString('utf16le');
    case 0x1c: {
      // UniversalString: UCS-4, big-endian
      let text = '';
      for (let i = 0; i + 4 <= bytes.length; i += 4) text += String.fromCodePoint(bytes.readUInt32BE(i));
      return text;
    }
    default:
      return undefined;
  }
}

/** The subjectAltName entries of every extensionRequest attribute (RFC 2985 5.4.2). */
function readExtensionRequests(attributes: DerReader, result: CsrRequestedNames): void {
  while (!attributes.atEnd) {
    const attribute = attributes.inside(attributes.read('Attribute', SEQUENCE));
    const type = decodeObjectIdentifier(attribute.contents(attribute.read('type', OBJECT_IDENTIFIER)));
    const values = attribute.inside(attribute.read('values', SET));
    if (type !== EXTENSION_REQUEST) continue;
    while (!values.atEnd) {
      const extensions = values.inside(values.read('Extensions', SEQUENCE));
      while (!extensions.atEnd) {
        const extension = extensions.inside(extensions.read('Extension', SEQUENCE));
        const id = decodeObjectIdentifier(extension.contents(extension.read('extnID', OBJECT_IDENTIFIER)));
        extension.readOptional('critical', BOOLEAN);
        const value = extension.read('extnValue', TAG.octetString);
        if (id !== EXTENSION_ID.subjectAltName) continue;
        const names = new DerReader(extension.bytes, value.contentStart, value.end);
        const generalNames = names.inside(names.read('GeneralNames', SEQUENCE));
        names.expectEnd('extnValue');
        while (!generalNames.atEnd) {
          const name = generalNames.read('GeneralName');
          if (name.tag === DNS_NAME)
            result.dnsNames.push(Buffer.from(generalNames.contents(name)).toString('latin1'));
          else result.otherNames++;
        }
      }
    }
  }
}
