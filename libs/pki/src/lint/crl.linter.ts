import { type DerElement, DerReader, readSingleElement } from '../der-reader';
import { contextConstructed, TAG } from '../der-writer';
import { EXTENSION_ID } from '../extensions';
import { PkiFormatError } from '../pki-format.error';
import { type Lint, type LintFinding, runLints } from './lint';
import { lintFailed } from './lint-failed.error';
import { type NameAttribute, readName } from './name.view';
import { nameEncodingProblem } from './name-encoding.lints';
import { type EncodedTime, type ExtensionView, readExtensions, readTime } from './tbs-certificate.view';
import { timeChoiceProblem } from './validity.lints';

/** The parts of a TBSCertList (RFC 5280 5.1.2) the CRL lints read. */
export interface TbsCertListView {
  version: number | undefined;
  issuer: NameAttribute[][];
  thisUpdate: EncodedTime;
  nextUpdate: EncodedTime | undefined;
  /** The reasonCode of every entry that has one, and the first entry with a time of the wrong type. */
  reasonCodes: number[];
  entryTimeProblem: string | undefined;
  extensions: Map<string, ExtensionView>;
}

const CRL_REASON_VALUES = new Set([0, 1, 2, 3, 4, 5, 6, 8, 9, 10]);
const REMOVE_FROM_CRL = 8;
const REASON_CODE_OID_DER = Uint8Array.of(0x06, 0x03, 0x55, 0x1d, 0x15); // 2.5.29.21

/** Full CRLs as this CA publishes them (RFC 5280 5.1.2, 5.2.1, 5.2.3, 5.3.1). */
export const CRL_LINTS: readonly Lint<TbsCertListView>[] = [
  {
    name: 'e_crl_not_version_2',
    source: 'RFC 5280 5.1.2.1',
    check: ({ version }) => (version === 1 ? undefined : 'a CRL with extensions must be version 2'),
  },
  {
    name: 'e_crl_issuer_name_encoding',
    source: 'RFC 5280 5.1.2.3',
    check: ({ issuer }) =>
      issuer.length === 0 ? 'the issuer Name is empty' : nameEncodingProblem(issuer, 'issuer'),
  },
  {
    name: 'e_crl_next_update_missing',
    source: 'RFC 5280 5.1.2.5',
    check: ({ nextUpdate }) => (nextUpdate ? undefined : 'nextUpdate is missing'),
  },
  {
    name: 'e_crl_this_update_not_before_next_update',
    source: 'RFC 5280 5.1.2.4, 5.1.2.5',
    check: ({ thisUpdate, nextUpdate }) =>
      nextUpdate && thisUpdate.date.getTime() >= nextUpdate.date.getTime()
        ? 'thisUpdate is not before nextUpdate'
        : undefined,
  },
  {
    name: 'e_crl_time_encoding',
    source: 'RFC 5280 5.1.2.4 to 5.1.2.6',
    check: ({ thisUpdate, nextUpdate, entryTimeProblem }) =>
      timeChoiceProblem(thisUpdate, 'thisUpdate') ??
      (nextUpdate && timeChoiceProblem(nextUpdate, 'nextUpdate')) ??
      entryTimeProblem,
  },
  {
    name: 'e_crl_number_missing',
    source: 'RFC 5280 5.2.3',
    check: ({ extensions }) => (extensions.has(EXTENSION_ID.cRLNumber) ? undefined : 'cRLNumber is missing'),
  },
  {
    name: 'e_crl_number_critical',
    source: 'RFC 5280 5.2.3',
    check: ({ extensions }) =>
      extensions.get(EXTENSION_ID.cRLNumber)?.critical ? 'cRLNumber must not be critical' : undefined,
  },
  {
    name: 'e_crl_number_longer_than_20_octets',
    source: 'RFC 5280 5.2.3',
    check: ({ extensions }) => {
      const value = extensions.get(EXTENSION_ID.cRLNumber)?.value;
      if (!value) return undefined;
      const integer = readSingleElement(value, 'CRLNumber', TAG.integer);
      const length = integer.end - integer.contentStart;
      if (value[integer.contentStart] & 0x80) return 'cRLNumber is negative';
      return length > 20 ? `cRLNumber has ${length} octets; at most 20 are allowed` : undefined;
    },
  },
  {
    name: 'e_crl_authority_key_identifier_missing',
    source: 'RFC 5280 5.2.1',
    check: ({ extensions }) =>
      extensions.has(EXTENSION_ID.authorityKeyIdentifier) ? undefined : 'authorityKeyIdentifier is missing',
  },
  {
    name: 'e_crl_reason_code_invalid',
    source: 'RFC 5280 5.3.1',
    check: ({ reasonCodes }) => {
      const bad = reasonCodes.find((code) => !CRL_REASON_VALUES.has(code));
      return bad === undefined ? undefined : `reasonCode ${bad} is not a CRLReason`;
    },
  },
  {
    name: 'e_crl_reason_remove_from_crl_in_full_crl',
    source: 'RFC 5280 5.3.1 (removeFromCRL only in delta CRLs)',
    check: ({ reasonCodes }) =>
      reasonCodes.includes(REMOVE_FROM_CRL) ? 'removeFromCRL appears in a full CRL' : undefined,
  },
];

/** Reads a TBSCertList, walking the entries in place; throws PkiFormatError when it is not DER. */
export function readTbsCertList(tbs: Uint8Array): TbsCertListView {
  const outer = readSingleElement(tbs, 'TBSCertList', TAG.sequence);
  const reader = new DerReader(tbs, outer.contentStart, outer.end);
  const versionElement = reader.readOptional('version', TAG.integer);
  const version = versionElement ? reader.contents(versionElement)[0] : undefined;
  reader.read('signature', TAG.sequence);
  const issuer = readName(reader, reader.read('issuer', TAG.sequence));
  const thisUpdate = readTime(reader, 'thisUpdate');
  const next = reader.peekTag();
  const nextUpdate =
    next === TAG.utcTime || next === TAG.generalizedTime ? readTime(reader, 'nextUpdate') : undefined;
  const revoked = reader.readOptional('revokedCertificates', TAG.sequence);
  const { reasonCodes, entryTimeProblem } = revoked
    ? readEntries(reader.inside(revoked))
    : { reasonCodes: [], entryTimeProblem: undefined };
  const extensionsField = reader.readOptional('crlExtensions', contextConstructed(0));
  reader.expectEnd('TBSCertList');
  const extensions = extensionsField ? readExtensions(reader, extensionsField).extensions : new Map();
  return { version, issuer, thisUpdate, nextUpdate, reasonCodes, entryTimeProblem, extensions };
}

/**
 * Walks the entries in place, making no Date and keeping nothing per entry (a CRL may hold a million):
 * the reason codes, and the first revocationDate of the wrong Time type.
 */
function readEntries(entries: DerReader): { reasonCodes: number[]; entryTimeProblem: string | undefined } {
  const { bytes } = entries;
  const reasonCodes: number[] = [];
  let entryTimeProblem: string | undefined;
  while (!entries.atEnd) {
    const entry = entries.inside(entries.read('revokedCertificate', TAG.sequence));
    entry.read('userCertificate', TAG.integer);
    const revocationDate = entry.read('revocationDate'); // read even once a problem is known
    entryTimeProblem ??= generalizedTimeBefore2050(bytes, revocationDate);
    if (entry.atEnd) continue;
    const list = entry.inside(entry.read('crlEntryExtensions', TAG.sequence));
    while (!list.atEnd) {
      const extension = list.inside(list.read('Extension', TAG.sequence));
      const oid = extension.read('extnID', TAG.objectIdentifier);
      if (!sameBytesAt(bytes, oid.start, REASON_CODE_OID_DER)) continue;
      extension.readOptional('critical', TAG.boolean);
      const value = extension.read('extnValue', TAG.octetString);
      // OCTET STRING { ENUMERATED (one octet) }: 0x0a 0x01 code.
      const ok = value.end - value.contentStart === 3 && bytes[value.contentStart] === TAG.enumerated;
      reasonCodes.push(ok && bytes[value.contentStart + 1] === 1 ? bytes[value.contentStart + 2] : -1);
    }
  }
  return { reasonCodes, entryTimeProblem };
}

/**
 * A UTCTime always says 1950 to 2049, so only a GeneralizedTime can be the wrong choice: one in
 * those years (RFC 5280 5.1.2.6). Read from its first four digits.
 */
function generalizedTimeBefore2050(bytes: Uint8Array, time: DerElement): string | undefined {
  if (time.tag !== TAG.generalizedTime || time.end - time.contentStart < 4) return undefined;
  let year = 0;
  for (let i = time.contentStart; i < time.contentStart + 4; i++) year = year * 10 + (bytes[i] - 0x30);
  return year >= 1950 && year < 2050 ? `revocationDate in ${year} must be a UTCTime` : undefined;
}

function sameBytesAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** The lints a TBSCertList fails; one finding `e_crl_not_der` when it cannot be read at all. */
export function lintTbsCertList(tbs: Uint8Array): LintFinding[] {
  try {
    return runLints(CRL_LINTS, readTbsCertList(tbs));
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw error;
    return [{ lint: 'e_crl_not_der', message: error.message }];
  }
}

/** Throws CERTIFICATE_LINT_FAILED (and counts it) unless the TBSCertList passes every lint. */
export function assertTbsCertListLints(tbs: Uint8Array): void {
  const findings = lintTbsCertList(tbs);
  if (findings.length > 0) throw lintFailed('CRL', findings);
}
