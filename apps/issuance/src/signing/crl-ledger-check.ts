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

interface LastSigned {
  last_crl_number: string;
  /** Seconds since the epoch of the newest revocation the last CRL listed; null if it listed none. */
  listed_up_to: string | null;
}

const refuse = (message: string) => new CaError(ErrorCode.Forbidden, message);

/**
 * What issuance checks, from its own ledger, before it signs a TBSCertList revocation built
 * (docs/security.md, "CRL signing matches issuance's ledger"):
 * - entries: none that issuance.certificates (and, for a root, certificate_authorities) does not
 *   record as revoked exactly so (serial, time to the second, reason as published), and every
 *   revocation recorded up to the cutoff: the CRL's thisUpdate, or the newest revocation the CA's
 *   previous CRL listed if later. No grace: a revocation after the cutoff may be absent (the CRL
 *   says nothing of after its thisUpdate, RFC 5280 5.1.2.4), and once a CRL listed it, no later
 *   number can leave it out. A refusal names each difference, so revocation corrects its ledger;
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
    const [last]: LastSigned[] = await this.dataSource.query(
      `SELECT last_crl_number::text AS last_crl_number,
              floor(extract(epoch FROM listed_up_to))::bigint::text AS listed_up_to
         FROM issuance.crl_numbers WHERE ca_id = $1`,
      [authority.id],
    );
    const cutoffSeconds = Math.max(
      Math.floor(summary.thisUpdate.getTime() / 1000),
      last?.listed_up_to ? Number(last.listed_up_to) : 0,
    );
    const { revokedCount, listedUpTo } = await this.checkEntries(authority.id, tbs, cutoffSeconds);
    await this.takeNumber(authority, summary.crlNumber, revokedCount, listedUpTo, now);
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
   * here; then a set compare with the CRL's entries. Returns how many revocations the CA has and
   * the newest revocation time (seconds) the CRL lists.
   */
  private async checkEntries(
    caId: string,
    tbs: Uint8Array,
    cutoffSeconds: number,
  ): Promise<{ revokedCount: number; listedUpTo?: number }> {
    const [{ keys }]: { keys: string | null }[] = await this.dataSource.query(
      `SELECT string_agg(
                ltrim(lower(serial_number), '0') || ':' || floor(extract(epoch FROM revoked_at))::bigint || ':' ||
                CASE WHEN revocation_reason_code = ANY($2::int[]) THEN revocation_reason_code ELSE 0 END,
                ',') AS keys
         FROM (SELECT serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificates WHERE ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               -- Issuing CAs this CA (a root) signed and an operator revoked: root.crl lists them.
               SELECT serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificate_authorities WHERE issuer_ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               -- Cross certificates this CA (a retired root) signed for its successor, revoked.
               SELECT cross_serial_number, cross_revoked_at, cross_revocation_reason_code
                 FROM issuance.certificate_authorities
                WHERE previous_root_ca_id = $1 AND cross_revoked_at IS NOT NULL) revoked`,
      [caId, PUBLISHED_REASON_CODES],
    );
    const expected = new Set(keys ? keys.split(',') : []);
    const revokedCount = expected.size;
    const extra: string[] = [];
    let listedUpTo: number | undefined;
    for (const key of tbsCertListEntryKeys(tbs)) {
      if (!expected.delete(key)) {
        extra.push(key);
        continue;
      }
      const seconds = Number(key.split(':')[1]);
      if (listedUpTo === undefined || seconds > listedUpTo) listedUpTo = seconds;
    }
    // What is left was not in the CRL: missing, unless revoked after the cutoff.
    const missing = [...expected].filter((key) => Number(key.split(':')[1]) <= cutoffSeconds);
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
          `${new Date(cutoffSeconds * 1000).toISOString()} missing.`,
        differences.map(crlEntryDifferenceError),
      );
    }
    return { revokedCount, listedUpTo };
  }

  /** The rows behind missing keys, with their ids, so revocation can record them as issuance does. */
  private async missingEntries(caId: string, keys: string[]): Promise<CrlEntryDifference[]> {
    if (keys.length === 0) return [];
    const rows: { id: string; serial: string; seconds: string; reason: number }[] =
      await this.dataSource.query(
        `SELECT id, lower(serial_number) AS serial, floor(extract(epoch FROM revoked_at))::bigint::text AS seconds,
              CASE WHEN revocation_reason_code = ANY($3::int[]) THEN revocation_reason_code ELSE 0 END AS reason
         FROM (SELECT id, serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificates WHERE ca_id = $1 AND revoked_at IS NOT NULL
               UNION ALL
               SELECT id, serial_number, revoked_at, revocation_reason_code
                 FROM issuance.certificate_authorities WHERE issuer_ca_id = $1 AND revoked_at IS NOT NULL) revoked
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
   * concurrent replicas serialise on the row and a number is signed once at most; records the
   * newest revocation listed, the next CRL's cutoff. A CRL signed but never stored (revocation
   * stopped, or the reply was lost) leaves a gap: the refusal names the last number and revocation
   * moves past it. The first number of a CA is bounded by what revocation could have used: one
   * per revocation and a few re-signings a day, plus some slack.
   */
  private async takeNumber(
    authority: CrlAuthority,
    crlNumber: bigint,
    revokedCount: number,
    listedUpTo: number | undefined,
    now: number,
  ): Promise<void> {
    const ageDays = Math.max(0, Math.ceil((now - authority.createdAt.getTime()) / 86_400_000));
    const firstBound = BigInt(revokedCount) + BigInt(4 * ageDays) + FIRST_CRL_NUMBER_SLACK;
    const taken: unknown[] = await this.dataSource.query(
      `INSERT INTO issuance.crl_numbers AS n (ca_id, last_crl_number, signed_at, listed_up_to)
       SELECT $1::uuid, $2::numeric, now(), to_timestamp($5::bigint)
        WHERE $2::numeric <= $3::numeric OR EXISTS (SELECT 1 FROM issuance.crl_numbers WHERE ca_id = $1::uuid)
       ON CONFLICT (ca_id) DO UPDATE
         SET last_crl_number = EXCLUDED.last_crl_number, signed_at = now(),
             listed_up_to = GREATEST(n.listed_up_to, EXCLUDED.listed_up_to)
        WHERE n.last_crl_number < EXCLUDED.last_crl_number
          AND EXCLUDED.last_crl_number <= n.last_crl_number + $4::numeric
       RETURNING n.ca_id`,
      [
        authority.id,
        crlNumber.toString(),
        firstBound.toString(),
        CRL_NUMBER_STEP.toString(),
        listedUpTo === undefined ? null : String(listedUpTo),
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
