import { CrlEntryDifference } from '@ca/contracts';
import { CRL_REASON, publishedReasonCode } from '@ca/pki';
import { EntityManager } from 'typeorm';

// The reason codes published as they are; any other (removeFromCRL) is published as unspecified.
const PUBLISHED_REASON_CODES = Object.values(CRL_REASON).filter((code) => publishedReasonCode(code) === code);

/** A revocation's crlEntryKey (libs/pki) in SQL, given the parameter of the reason codes published as they are. */
const entryKeySql = (reasonCodesParam: string, alias = '') =>
  `(ltrim(lower(${alias}serial_number), '0') || ':' || floor(extract(epoch FROM ${alias}revoked_at))::bigint || ':' ||
    CASE WHEN ${alias}revocation_reason_code = ANY(${reasonCodesParam}::int[]) THEN ${alias}revocation_reason_code ELSE 0 END)`;

/** A CA's revocations as keys (`serial:seconds:reason`), a `!` after those a signed CRL listed. */
export interface CrlEntryKeys {
  /** Comma-joined, null when the CA has none. */
  keys: string | null;
  /** The newest revocation's time in seconds, null when none. */
  newest: string | null;
}

/**
 * The revocations a CA's CRLs must list, as issuance records them: its certificates
 * (`issuance.certificates`), for a root the issuing CAs it signed, and for a retired root the
 * cross certificates it signed (`issuance.certificate_authorities`).
 */
export abstract class CrlEntryStore {
  /** One read of all of them (index certificates_revoked_by_ca), each as its key. */
  abstract keysOf(caId: string): Promise<CrlEntryKeys>;
  /** Those behind `serialsHex` (lower case, no leading zeros), with their ids. */
  abstract missing(caId: string, serialsHex: string[]): Promise<CrlEntryDifference[]>;
  /**
   * Records on the revocations of `keys` that a CRL listed them (their time); `serials` are the
   * keys' serials as stored (upper and lower case, with and without a leading 0 nibble).
   */
  abstract markListed(caId: string, keys: string[], serials: string[]): Promise<void>;
}

export class SqlCrlEntryStore extends CrlEntryStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async keysOf(caId: string): Promise<CrlEntryKeys> {
    const [row]: CrlEntryKeys[] = await this.db.query(
      `SELECT string_agg(${entryKeySql('$2')} || CASE WHEN crl_listed_revoked_at = revoked_at THEN '!' ELSE '' END, ',') AS keys,
              floor(extract(epoch FROM max(revoked_at)))::bigint::text AS newest
         FROM (SELECT serial_number, revoked_at, revocation_reason_code, crl_listed_revoked_at
                 FROM issuance.certificates WHERE ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               -- Issuing CAs this CA (a root) signed and an operator revoked: root.crl lists them.
               SELECT serial_number, revoked_at, revocation_reason_code, crl_listed_revoked_at
                 FROM issuance.certificate_authorities WHERE issuer_ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               -- Cross certificates this CA (a retired root) signed for its successor, revoked.
               SELECT cross_serial_number, cross_revoked_at, cross_revocation_reason_code, NULL::timestamptz
                 FROM issuance.certificate_authorities
                WHERE previous_root_ca_id = $1 AND cross_revoked_at IS NOT NULL) revoked`,
      [caId, PUBLISHED_REASON_CODES],
    );
    return row;
  }

  async missing(caId: string, serialsHex: string[]): Promise<CrlEntryDifference[]> {
    const rows: { id: string; serial: string; seconds: string; reason: number }[] = await this.db.query(
      // The serial as issuance stores it (and its events carry it): revocation keys its ledger by it.
      `SELECT id, serial_number AS serial, floor(extract(epoch FROM revoked_at))::bigint::text AS seconds,
              CASE WHEN revocation_reason_code = ANY($3::int[]) THEN revocation_reason_code ELSE 0 END AS reason
         FROM (SELECT id, serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificates WHERE ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               SELECT id, serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificate_authorities WHERE issuer_ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               SELECT id, cross_serial_number, cross_revoked_at, cross_revocation_reason_code
                 FROM issuance.certificate_authorities
                WHERE previous_root_ca_id = $1 AND cross_revoked_at IS NOT NULL) revoked
        WHERE ltrim(lower(serial_number), '0') = ANY($2::text[])`,
      [caId, serialsHex, PUBLISHED_REASON_CODES],
    );
    return rows.map((row) => ({
      kind: 'missing',
      serialHex: row.serial,
      revokedAt: new Date(Number(row.seconds) * 1000),
      reasonCode: Number(row.reason),
      id: row.id,
    }));
  }

  async markListed(caId: string, keys: string[], serials: string[]): Promise<void> {
    for (const [table, caColumn] of [
      ['issuance.certificates', 'ca_id'],
      ['issuance.certificate_authorities', 'issuer_ca_id'],
    ] as const) {
      await this.db.query(
        `UPDATE ${table} t SET crl_listed_revoked_at = t.revoked_at
          WHERE t.${caColumn} = $1 AND t.serial_number = ANY($4::text[]) AND t.revoked_at IS NOT NULL
            AND t.crl_listed_revoked_at IS DISTINCT FROM t.revoked_at
            AND ${entryKeySql('$3', 't.')} = ANY($2::text[])`,
        [caId, keys, PUBLISHED_REASON_CODES, serials],
      );
    }
  }
}
