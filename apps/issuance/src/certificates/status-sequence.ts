import { EntityManager } from 'typeorm';

/**
 * Moves a certificate's status sequence one on (in the transaction that changes its status, with
 * the row locked) and returns it: the responder applies a change only over a lower one, so a late
 * or replayed event never moves the status back (docs/architecture.md#certificate-status-sequence).
 */
export async function nextStatusSequence(manager: EntityManager, certificateId: string): Promise<number> {
  const rows: [{ status_sequence: number }[], number] | { status_sequence: number }[] = await manager.query(
    `UPDATE issuance.certificates SET status_sequence = status_sequence + 1 WHERE id = $1
     RETURNING status_sequence`,
    [certificateId],
  );
  // TypeORM answers an UPDATE … RETURNING on Postgres as [rows, affected].
  const returned = Array.isArray(rows[0])
    ? (rows[0] as { status_sequence: number }[])
    : (rows as { status_sequence: number }[]);
  return Number(returned[0].status_sequence);
}
