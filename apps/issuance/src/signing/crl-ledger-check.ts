import { CaError, ErrorCode, crlNumberUsedError } from '@ca/contracts';
import { CRL_REASON, type TbsCertListSummary, publishedReasonCode, tbsCertListEntryKeys } from '@ca/pki';
import { DataSource } from 'typeorm';

/** thisUpdate may differ from this replica's clock by this much (clock skew, build time). */
export const CRL_CLOCK_SKEW_MS = 5 * 60_000;
/** The longest nextUpdate − thisUpdate signed (revocation asks for 24 h). */
export const MAX_CRL_VALIDITY_MS = 7 * 24 * 60 * 60_000;
/**
 * A revocation committed here this recently may be missing from a CRL: its event may still be on
 * its way to the revocation context that builds the CRL. Older ones must be in it.
 */
export const REVOCATION_PROPAGATION_GRACE_MS = 30_000;
/**
 * How far a CRLNumber may jump past the last one signed: revocation counts up by one per CRL, so
 * a larger jump is a forged number meant to exhaust the range (RFC 5280 5.2.3: at most 20 octets).
 */
export const MAX_CRL_NUMBER_STEP = 1_000n;

// The reason codes published as they are; any other (removeFromCRL) is published as unspecified.
const PUBLISHED_REASON_CODES = Object.values(CRL_REASON).filter((code) => publishedReasonCode(code) === code);

export interface CrlAuthority {
  id: string;
  createdAt: Date;
}

const refuse = (message: string) => new CaError(ErrorCode.Forbidden, message);

/**
 * What issuance checks, from its own ledger, before it signs a TBSCertList revocation built
 * (docs/security.md, "Issuance trusts no caller"): the entries are exactly this CA's revoked
 * certificates as issuance.certificates (and, for a root, certificate_authorities) records them (serial, revocation time to the second,
 * reason as published), none extra and none missing (but the last few seconds' revocations); its
 * times are plausible; and its CRLNumber is higher than any signed before (RFC 5280 5.2.3),
 * recorded atomically so two replicas can never both sign one number.
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
    const revokedCount = await this.checkEntries(authority.id, tbs, now);
    await this.takeNumber(authority, summary.crlNumber, revokedCount, now);
  }

  private checkTimes({ thisUpdate, nextUpdate }: TbsCertListSummary, now: number): void {
    if (Math.abs(thisUpdate.getTime() - now) > CRL_CLOCK_SKEW_MS) {
      throw refuse(
        `The CRL's thisUpdate ${thisUpdate.toISOString()} is more than ${CRL_CLOCK_SKEW_MS / 60_000} minutes from now.`,
      );
    }
    if (nextUpdate.getTime() - thisUpdate.getTime() > MAX_CRL_VALIDITY_MS) {
      throw refuse(`The CRL is valid for longer than ${MAX_CRL_VALIDITY_MS / 86_400_000} days.`);
    }
  }

  /**
   * One read of the CA's revocations (index certificates_revoked_by_ca), each as its crlEntryKey (libs/pki),
   * built by the database and joined into one text so that 100,000 rows cost no per-row parsing
   * here; then a set compare with the CRL's entries. Returns how many revocations the CA has.
   */
  private async checkEntries(caId: string, tbs: Uint8Array, now: number): Promise<number> {
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
    let extra = 0;
    for (const key of tbsCertListEntryKeys(tbs)) if (!expected.delete(key)) extra++;
    // What is left was not in the CRL: missing, unless revoked too recently to have reached it.
    const recentSeconds = Math.floor((now - REVOCATION_PROPAGATION_GRACE_MS) / 1000);
    let missing = 0;
    for (const key of expected) {
      const revokedAtSeconds = Number(key.split(':')[1]);
      if (revokedAtSeconds <= recentSeconds) missing++;
    }
    if (extra > 0 || missing > 0) {
      throw refuse(
        `The CRL's entries are not this CA's revocations: ${extra} not revoked here as listed ` +
          `(serial, date or reason), ${missing} revoked certificates missing.`,
      );
    }
    return revokedCount;
  }

  /**
   * Takes `crlNumber` for the CA in one statement: only if it is higher than the last one signed
   * (and not a jump past MAX_CRL_NUMBER_STEP), so concurrent replicas serialise on the row and a
   * number is signed once at most. A CRL signed but never stored (revocation stopped, or the reply
   * was lost) leaves a gap: the refusal names the last number and revocation moves past it. The first number of a CA is bounded by what revocation could
   * have used: one per revocation and a few re-signings a day, plus the step.
   */
  private async takeNumber(
    authority: CrlAuthority,
    crlNumber: bigint,
    revokedCount: number,
    now: number,
  ): Promise<void> {
    const ageDays = Math.max(0, Math.ceil((now - authority.createdAt.getTime()) / 86_400_000));
    const firstBound = BigInt(revokedCount) + BigInt(4 * ageDays) + MAX_CRL_NUMBER_STEP;
    const taken: unknown[] = await this.dataSource.query(
      `INSERT INTO issuance.crl_numbers AS n (ca_id, last_crl_number, signed_at)
       SELECT $1::uuid, $2::numeric, now()
        WHERE $2::numeric <= $3::numeric OR EXISTS (SELECT 1 FROM issuance.crl_numbers WHERE ca_id = $1::uuid)
       ON CONFLICT (ca_id) DO UPDATE SET last_crl_number = EXCLUDED.last_crl_number, signed_at = now()
        WHERE n.last_crl_number < EXCLUDED.last_crl_number
          AND EXCLUDED.last_crl_number <= n.last_crl_number + $4::numeric
       RETURNING n.ca_id`,
      [authority.id, crlNumber.toString(), firstBound.toString(), MAX_CRL_NUMBER_STEP.toString()],
    );
    if (taken.length === 1) return;
    const [last]: { last_crl_number: string }[] = await this.dataSource.query(
      'SELECT last_crl_number::text AS last_crl_number FROM issuance.crl_numbers WHERE ca_id = $1',
      [authority.id],
    );
    if (!last)
      throw refuse(`CRL number ${crlNumber} is higher than this CA could have reached (${firstBound}).`);
    const message = `CRL number ${crlNumber} is not in (${last.last_crl_number}, ${last.last_crl_number} + ${MAX_CRL_NUMBER_STEP}]: the last this CA signed is ${last.last_crl_number}.`;
    // Too low: name the last number, so revocation moves past it (crlNumberUsedError).
    throw BigInt(last.last_crl_number) >= crlNumber
      ? new CaError(ErrorCode.Forbidden, message, [crlNumberUsedError(BigInt(last.last_crl_number))])
      : refuse(message);
  }
}
