import {
  CRL_ENTRY_DIFFERENCES_NAMED,
  CRL_VALIDITY_MS,
  CaError,
  CrlEntryDifference,
  ErrorCode,
  crlEntryDifferenceError,
  crlNumberUsedError,
} from '@ca/contracts';
import { type TbsCertListSummary, tbsCertListEntryKeys } from '@ca/pki';
import { CrlEntryStore } from './crl-entry.store';
import { CrlNumberStore } from './crl-number.store';

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

export interface CrlAuthority {
  id: string;
  createdAt: Date;
}

const refuse = (message: string) => new CaError(ErrorCode.Forbidden, message);

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
    private readonly entries: CrlEntryStore,
    private readonly numbers: CrlNumberStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws FORBIDDEN naming the first rule the CRL breaks; on success its number is taken. */
  async admit(authority: CrlAuthority, tbs: Uint8Array, summary: TbsCertListSummary): Promise<void> {
    const now = this.now();
    this.checkTimes(summary, now);
    const completeUpTo = await this.numbers.completeUpTo(authority.id);
    const cutoffSeconds = Math.max(Math.floor(summary.thisUpdate.getTime() / 1000), completeUpTo ?? 0);
    const checked = await this.checkEntries(authority.id, tbs, cutoffSeconds);
    const { revokedCount, newlyListed } = checked;
    await this.takeNumber(authority, summary.crlNumber, revokedCount, checked.completeUpTo, now);
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
    const { keys, newest } = await this.entries.keysOf(caId);
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
    await this.entries.markListed(caId, keys, serials);
  }

  /** The rows behind missing keys, with their ids, so revocation can record them as issuance does. */
  private async missingEntries(caId: string, keys: string[]): Promise<CrlEntryDifference[]> {
    if (keys.length === 0) return [];
    return this.entries.missing(
      caId,
      keys.map((key) => key.split(':')[0]),
    );
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
    const taken = await this.numbers.take({
      caId: authority.id,
      crlNumber,
      firstBound,
      step: CRL_NUMBER_STEP,
      completeUpTo,
    });
    if (taken) return;
    const last = await this.numbers.last(authority.id);
    if (last === undefined)
      throw refuse(`CRL number ${crlNumber} is higher than this CA could have reached (${firstBound}).`);
    const next = last + CRL_NUMBER_STEP;
    const message = `CRL number ${crlNumber} is not ${next}: the last this CA signed is ${last}.`;
    // Too low: name the last number, so revocation moves past it (crlNumberUsedError).
    throw last >= crlNumber
      ? new CaError(ErrorCode.Forbidden, message, [crlNumberUsedError(last)])
      : refuse(message);
  }
}
