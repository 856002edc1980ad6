import { EntityManager } from 'typeorm';

/** A number to take for a CA's next CRL, with what bounds it. */
export interface CrlNumberToTake {
  caId: string;
  crlNumber: bigint;
  /** The highest first number of a CA (none taken before). */
  firstBound: bigint;
  /** How far past the last one the number may be. */
  step: bigint;
  /** Seconds up to which every revocation is on this CRL, if known. */
  completeUpTo: number | undefined;
}

/** `issuance.crl_numbers`: per CA, the last CRLNumber signed and up to when its CRLs are complete. */
export abstract class CrlNumberStore {
  /** Up to when (seconds) every revocation of the CA is on a signed CRL, if recorded. */
  abstract completeUpTo(caId: string): Promise<number | undefined>;
  /**
   * Takes the number in one statement, only if it is within the bounds (the last one plus up to
   * `step`, or at most `firstBound` for a first): false when it is not.
   */
  abstract take(number: CrlNumberToTake): Promise<boolean>;
  /** The last number signed for the CA, if any. */
  abstract last(caId: string): Promise<bigint | undefined>;
}

export class SqlCrlNumberStore extends CrlNumberStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async completeUpTo(caId: string): Promise<number | undefined> {
    const [numbers]: { complete_up_to: string | null }[] = await this.db.query(
      `SELECT floor(extract(epoch FROM complete_up_to))::bigint::text AS complete_up_to
         FROM issuance.crl_numbers WHERE ca_id = $1`,
      [caId],
    );
    return numbers?.complete_up_to ? Number(numbers.complete_up_to) : undefined;
  }

  async take({ caId, crlNumber, firstBound, step, completeUpTo }: CrlNumberToTake): Promise<boolean> {
    const taken: unknown[] = await this.db.query(
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
        caId,
        crlNumber.toString(),
        firstBound.toString(),
        step.toString(),
        completeUpTo === undefined ? null : String(completeUpTo),
      ],
    );
    return taken.length === 1;
  }

  async last(caId: string): Promise<bigint | undefined> {
    const [last]: { last_crl_number: string }[] = await this.db.query(
      'SELECT last_crl_number::text AS last_crl_number FROM issuance.crl_numbers WHERE ca_id = $1',
      [caId],
    );
    return last ? BigInt(last.last_crl_number) : undefined;
  }
}
