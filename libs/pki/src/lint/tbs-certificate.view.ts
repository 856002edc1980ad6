import { type DerElement, DerReader, readSingleElement } from '../der-reader';
import { decodeTime } from '../der-time';
import { contextConstructed, TAG } from '../der-writer';
import { oidText } from './oid';
import { type NameAttribute, readName } from './name.view';

/** A time as encoded: its tag (UTCTime or GeneralizedTime) and its value. */
export interface EncodedTime {
  tag: number;
  date: Date;
}

export interface ExtensionView {
  critical: boolean;
  /** extnValue contents: the DER of the extension's own value. */
  value: Uint8Array;
}

/** The parts of a TBSCertificate (RFC 5280 4.1) the certificate lints read, as offsets and views. */
export interface TbsCertificateView {
  serial: Uint8Array;
  issuer: NameAttribute[][];
  notBefore: EncodedTime;
  notAfter: EncodedTime;
  subject: NameAttribute[][];
  /** OID of subjectPublicKeyInfo.algorithm (id-ecPublicKey, rsaEncryption, ...). */
  keyAlgorithm: string;
  extensions: Map<string, ExtensionView>;
  /** OIDs met more than once (RFC 5280 4.2: at most one instance of an extension). */
  duplicateExtensions: string[];
}

/** Reads a TBSCertificate; throws PkiFormatError when it is not DER of that shape. */
export function readTbsCertificate(tbs: Uint8Array): TbsCertificateView {
  const outer = readSingleElement(tbs, 'TBSCertificate', TAG.sequence);
  const reader = new DerReader(tbs, outer.contentStart, outer.end);
  reader.readOptional('version', contextConstructed(0));
  const serial = reader.contents(reader.read('serialNumber', TAG.integer));
  reader.read('signature', TAG.sequence);
  const issuer = readName(reader, reader.read('issuer', TAG.sequence));
  const validity = reader.inside(reader.read('validity', TAG.sequence));
  const notBefore = readTime(validity, 'notBefore');
  const notAfter = readTime(validity, 'notAfter');
  const subject = readName(reader, reader.read('subject', TAG.sequence));
  const spki = reader.inside(reader.read('subjectPublicKeyInfo', TAG.sequence));
  const algorithm = spki.inside(spki.read('algorithm', TAG.sequence));
  const keyAlgorithm = oidText(algorithm.contents(algorithm.read('algorithm', TAG.objectIdentifier)));
  reader.readOptional('issuerUniqueID', 0x81);
  reader.readOptional('subjectUniqueID', 0x82);
  const extensionsField = reader.readOptional('extensions', contextConstructed(3));
  reader.expectEnd('TBSCertificate');
  const { extensions, duplicateExtensions } = extensionsField
    ? readExtensions(reader, extensionsField)
    : { extensions: new Map<string, ExtensionView>(), duplicateExtensions: [] };
  return { serial, issuer, notBefore, notAfter, subject, keyAlgorithm, extensions, duplicateExtensions };
}

export function readTime(reader: DerReader, what: string): EncodedTime {
  const element = reader.read(what);
  return { tag: element.tag, date: decodeTime(element.tag, reader.contents(element), what, false) };
}

/** Extensions ::= SEQUENCE OF Extension { extnID, critical BOOLEAN DEFAULT FALSE, extnValue }. */
export function readExtensions(
  reader: DerReader,
  wrapper: DerElement,
): { extensions: Map<string, ExtensionView>; duplicateExtensions: string[] } {
  const list = reader.inside(wrapper);
  const all = list.inside(list.read('Extensions', TAG.sequence));
  const extensions = new Map<string, ExtensionView>();
  const duplicateExtensions: string[] = [];
  while (!all.atEnd) {
    const extension = all.inside(all.read('Extension', TAG.sequence));
    const oid = oidText(extension.contents(extension.read('extnID', TAG.objectIdentifier)));
    const criticalElement = extension.readOptional('critical', TAG.boolean);
    const critical = criticalElement !== undefined && extension.contents(criticalElement)[0] !== 0;
    const value = extension.contents(extension.read('extnValue', TAG.octetString));
    if (extensions.has(oid)) duplicateExtensions.push(oid);
    extensions.set(oid, { critical, value });
  }
  return { extensions, duplicateExtensions };
}
