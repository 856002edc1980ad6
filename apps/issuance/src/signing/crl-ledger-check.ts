import {
  CRL_ENTRY_DIFFERENCES_NAMED,
  CRL_VALIDITY_MS,
  CaError,
  CrlEntryDifference,
  ErrorCode,
  crlEntryDifferenceError,
  crlNumberUsedError,
} from '@ca/contracts';
import { CRL_REASON, type TbsCertListSummary, publishedReasonCode, tbsCertListEntryKeys } from '@ca/pki';
import { DataSource } from 'typeorm';

/** thisUpdate may differ from this replica's clock by this much (clock skew, build time). */
export const CRL_CLOCK_SKEW_MS = 5 * 60_000;
/**
 * A CRLNumber is the last one signed plus one (RFC 5280 5.2.3: increasing; revocation counts up by
 * one per CRL and moves past a number signed but never stored). A jump would let a forged number
 * use up the range, or leave room for CRLs relying parties never saw.
 */
export const CRL_NUMBER_STEP = 1n;
/** Slack on the first number signed for a CA (one recorded before crl_numbers existed). */
export const FIRST_CRL_NUMBER_SLACK = 1_000n;

// The reason codes published as they are; any other (removeFromCRL) is published as unspecified.
const PUBLISHED_REASON_CODES = Object.values(CRL_REASON).filter((code) => publishedReasonCode(code) === code);

export interface CrlAuthority {
  id: string;
  createdAt: Date;
}

const refuse = (message: string) => new CaError(ErrorCode.Forbidden, message);

/** A revocation's crlEntryKey (libs/pki) in SQL, given the parameter of the reason codes published as they are. */
const entryKeySql = (reasonCodesParam: string, alias = '') =>
  `(ltrim(lower(${alias}serial_number), '0') || ':' || floor(extract(epoch FROM ${alias}revoked_at))::bigint || ':' ||
    CASE WHEN ${alias}revocation_reason_code = ANY(${reasonCodesParam}::int[]) THEN ${alias}revocation_reason_code ELSE 0 END)`;

/** The revocation time (seconds) of a `serial:seconds:reason` key, without splitting it. */
const keySeconds = (key: string) => Number(key.slice(key.indexOf(':') + 1, key.lastIndexOf(':')));

/**
 * What issuance checks, from its own ledger, before it signs a TBSCertList revocation built
 * (docs/security.md, "CRL signing matches issuance's ledger"):
 * - entries: none that issuance.certificates (and, for a root, certificate_authorities) does not
 *   record as revoked exactly so (serial, time to the second, reason as published), every
 *   revocation up to the CRL's thisUpdate, and every revocation an earlier CRL of the CA listed
 *   (all up to `crl_numbers.complete_up_to`, and the later ones marked one by one). No
 *   grace: a revocation after thisUpdate may be absent (the CRL says nothing of after its
 *   thisUpdate, RFC 5280 5.1.2.4), but once a CRL listed it no later number can leave it out. A
 *   refusal names each difference, so revocation corrects its ledger;
 * - times: thisUpdate near now, validity at most CRL_VALIDITY_MS (what revocation asks for);
 * - number: the last signed plus one, taken atomically so two replicas never both sign one number.
 */
export class CrlLedgerCheck {
  constructor(
    private readonly dataSource: DataSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws FORBIDDEN naming the first rule the CRL breaks; on success its number is taken. */
  async admit(authority: CrlAuthority, tbs: Uint8Array, summary: TbsCertListSummary): Promise<void> {
    const now = this.now();
    this.checkTimes(summary, now);
    const [numbers]: { complete_up_to: string | null }[] = await this.dataSource.query(
      `SELECT floor(extract(epoch FROM complete_up_to))::bigint::text AS complete_up_to
         FROM issuance.crl_numbers WHERE ca_id = $1`,
      [authority.id],
    );
    const cutoffSeconds = Math.max(
      Math.floor(summary.thisUpdate.getTime() / 1000),
      numbers?.complete_up_to ? Number(numbers.complete_up_to) : 0,
    );
    const { revokedCount, completeUpTo, newlyListed } = await this.checkEntries(
      authority.id,
      tbs,
      cutoffSeconds,
    );
    await this.takeNumber(authority, summary.crlNumber, revokedCount, completeUpTo, now);
    await this.markListed(authority.id, newlyListed);
  }

  private checkTimes({ thisUpdate, nextUpdate }: TbsCertListSummary, now: number): void {
    if (Math.abs(thisUpdate.getTime() - now) > CRL_CLOCK_SKEW_MS) {
      throw refuse(
        `The CRL's thisUpdate ${thisUpdate.toISOString()} is more than ${CRL_CLOCK_SKEW_MS / 60_000} minutes from now.`,
      );
    }
    if (nextUpdate.getTime() - thisUpdate.getTime() > CRL_VALIDITY_MS) {
      throw refuse(`The CRL is valid for longer than ${CRL_VALIDITY_MS / 3_600_000} hours.`);
    }
  }

  /**
   * One read of the CA's revocations (index certificates_revoked_by_ca), each as its crlEntryKey (libs/pki),
   * built by the database and joined into one text so that 100,000 rows cost no per-row parsing
   * here; a key ending in `!` was listed by a CRL signed before. Then a set compare with the CRL's
   * entries. Returns how many revocations the CA has and the keys this CRL lists for the first time.
   */
  private async checkEntries(
    caId: string,
    tbs: Uint8Array,
    cutoffSeconds: number,
  ): Promise<{ revokedCount: number; completeUpTo?: number; newlyListed: string[] }> {
    const [{ keys, newest }]: { keys: string | null; newest: string | null }[] = await this.dataSource.query(
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
    // Key → whether a CRL signed before listed it.
    const expected = new Map<string, boolean>();
    for (const key of keys ? keys.split(',') : []) {
      if (key.endsWith('!')) expected.set(key.slice(0, -1), true);
      else expected.set(key, false);
    }
    const revokedCount = expected.size;
    const extra: string[] = [];
    const listedNow: string[] = [];
    for (const key of tbsCertListEntryKeys(tbs)) {
      const listedBefore = expected.get(key);
      if (listedBefore === undefined) extra.push(key);
      else {
        expected.delete(key);
        if (!listedBefore) listedNow.push(key);
      }
    }
    // What is left was not in the CRL: missing if revoked up to the cutoff, or once listed.
    const missing: string[] = [];
    let firstLeftOut = Infinity;
    for (const [key, listedBefore] of expected) {
      const seconds = keySeconds(key);
      firstLeftOut = Math.min(firstLeftOut, seconds);
      if (listedBefore || seconds <= cutoffSeconds) missing.push(key);
    }
    if (extra.length > 0 || missing.length > 0) {
      const differences = [
        ...extra
          .slice(0, CRL_ENTRY_DIFFERENCES_NAMED)
          .map((key): CrlEntryDifference => ({ kind: 'extra', serialHex: key.split(':')[0] })),
        ...(await this.missingEntries(caId, missing.slice(0, CRL_ENTRY_DIFFERENCES_NAMED))),
      ];
      throw new CaError(
        ErrorCode.Forbidden,
        `The CRL's entries are not this CA's revocations: ${extra.length} not revoked here as listed ` +
          `(serial, date or reason), ${missing.length} revoked at or before ` +
          `${new Date(cutoffSeconds * 1000).toISOString()} or listed by an earlier CRL missing.`,
        differences.map(crlEntryDifferenceError),
      );
    }
    // Everything before the newest revocation's second and before the first one left out is on
    // this CRL: one time says so for all of them. The newest second's, and any listed past one left
    // out, are marked one by one (a revocation of that second may still commit).
    const completeUpTo = newest === null ? undefined : Math.min(Number(newest), firstLeftOut) - 1;
    const newlyListed =
      completeUpTo === undefined ? listedNow : listedNow.filter((key) => keySeconds(key) > completeUpTo);
    return { revokedCount, completeUpTo, newlyListed };
  }

  /**
   * Records, on each revocation this CRL lists for the first time, the revocation it listed (its
   * time): from then on no CRL of the CA may leave it out, whatever its thisUpdate. A certificate
   * held, released and held again is a new revocation, listed anew. One join, however many.
   */
  private async markListed(caId: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    // The serial as stored (serialToHex: upper case, a leading 0 nibble kept), so the unique index
    // (ca_id, serial_number) finds the rows instead of a scan of the CA's revocations.
    const serials = keys.flatMap((key) => {
      const serial = key.slice(0, key.indexOf(':'));
      return [serial, `0${serial}`, serial.toUpperCase(), `0${serial.toUpperCase()}`];
    });
    for (const [table, caColumn] of [
      ['issuance.certificates', 'ca_id'],
      ['issuance.certificate_authorities', 'issuer_ca_id'],
    ] as const) {
      await this.dataSource.query(
        `UPDATE ${table} t SET crl_listed_revoked_at = t.revoked_at
          WHERE t.${caColumn} = $1 AND t.serial_number = ANY($4::text[]) AND t.revoked_at IS NOT NULL
            AND t.crl_listed_revoked_at IS DISTINCT FROM t.revoked_at
            AND ${entryKeySql('$3', 't.')} = ANY($2::text[])`,
        [caId, keys, PUBLISHED_REASON_CODES, serials],
      );
    }
  }

  /** The rows behind missing keys, with their ids, so revocation can record them as issuance does. */
  private async missingEntries(caId: string, keys: string[]): Promise<CrlEntryDifference[]> {
    if (keys.length === 0) return [];
    const rows: { id: string; serial: string; seconds: string; reason: number }[] =
      await this.dataSource.query(
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
        [caId, keys.map((key) => key.split(':')[0]), PUBLISHED_REASON_CODES],
      );
    return rows.map((row) => ({
      kind: 'missing',
      serialHex: row.serial,
      revokedAt: new Date(Number(row.seconds) * 1000),
      reasonCode: Number(row.reason),
      id: row.id,
    }));
  }

  /**
   * Takes `crlNumber` for the CA in one statement: only if it is the last one signed plus one, so
   * concurrent replicas serialise on the row and a number is signed once at most. A CRL signed but never stored (revocation
   * stopped, or the reply was lost) leaves a gap: the refusal names the last number and revocation
   * moves past it. The first number of a CA is bounded by what revocation could have used: one
   * per revocation and a few re-signings a day, plus some slack.
   */
  private async takeNumber(
    authority: CrlAuthority,
    crlNumber: bigint,
    revokedCount: number,
    completeUpTo: number | undefined,
    now: number,
  ): Promise<void> {
    const ageDays = Math.max(0, Math.ceil((now - authority.createdAt.getTime()) / 86_400_000));
    const firstBound = BigInt(revokedCount) + BigInt(4 * ageDays) + FIRST_CRL_NUMBER_SLACK;
    const taken: unknown[] = await this.dataSource.query(
      `INSERT INTO issuance.crl_numbers AS n (ca_id, last_crl_number, signed_at, complete_up_to)
       SELECT $1::uuid, $2::numeric, now(), to_timestamp($5::bigint)
        WHERE $2::numeric <= $3::numeric OR EXISTS (SELECT 1 FROM issuance.crl_numbers WHERE ca_id = $1::uuid)
       ON CONFLICT (ca_id) DO UPDATE
         SET last_crl_number = EXCLUDED.last_crl_number, signed_at = now(),
             complete_up_to = GREATEST(n.complete_up_to, EXCLUDED.complete_up_to)
        WHERE n.last_crl_number < EXCLUDED.last_crl_number
          AND EXCLUDED.last_crl_number <= n.last_crl_number + $4::numeric
       RETURNING n.ca_id`,
      [
        authority.id,
        crlNumber.toString(),
        firstBound.toString(),
        CRL_NUMBER_STEP.toString(),
        completeUpTo === undefined ? null : String(completeUpTo),
      ],
    );
    if (taken.length === 1) return;
    const [last]: { last_crl_number: string }[] = await this.dataSource.query(
      'SELECT last_crl_number::text AS last_crl_number FROM issuance.crl_numbers WHERE ca_id = $1',
      [authority.id],
    );
    if (!last)
      throw refuse(`CRL number ${crlNumber} is higher than this CA could have reached (${firstBound}).`);
    const next = BigInt(last.last_crl_number) + CRL_NUMBER_STEP;
    const message = `CRL number ${crlNumber} is not ${next}: the last this CA signed is ${last.last_crl_number}.`;
    // Too low: name the last number, so revocation moves past it (crlNumberUsedError).
    throw BigInt(last.last_crl_number) >= crlNumber
      ? new CaError(ErrorCode.Forbidden, message, [crlNumberUsedError(BigInt(last.last_crl_number))])
      : refuse(message);
  }
}
