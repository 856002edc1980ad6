import { OpsOutput } from '@ca/operations';
import { DataSource } from 'typeorm';
import { DeadLetterStore } from './dead-letters';

export const DEAD_LETTER_USAGE = `usage: npm run ops -- events dead-letters <command>
  list                  the events each consumer set aside, one JSON object per line
  replay <id>           have its consumer apply the event again (within seconds; the row goes on success)
  drop <id>             delete it for good
<id> is as list prints it: <schema>:<number>, e.g. ocsp:12
usage: npm run ops -- events outbox <command>
  list                  the outbox rows the bus refused (set aside), one JSON object per line
  replay <id>           publish it again (after the refusal was fixed), e.g. issuance:4711`;

/** The producing services' schemas, each with its outbox (set-aside rows: OutboxRelay). */
export const OUTBOX_SCHEMAS = ['gateway', 'issuance', 'revocation'] as const;

/** The consuming services' schemas, each with its `event_dead_letters`. */
export const DEAD_LETTER_SCHEMAS = ['issuance', 'revocation', 'ocsp'] as const;

/**
 * `npm run ops -- events dead-letters list|replay <id>|drop <id>` on one database (Postgres with
 * DATABASE_URL, or the embedded process's own through its operator endpoint). Exit codes: 0 done,
 * 1 no such dead letter, 2 bad arguments.
 */
export async function runDeadLetterCommand(
  args: readonly string[],
  dataSource: DataSource,
  io: OpsOutput,
): Promise<number> {
  const [group, action, id, ...extra] = args;
  if (group === 'outbox') return runOutboxCommand(action, id, extra, dataSource, io);
  if (group !== 'dead-letters' || action === undefined || action === 'help') {
    await io[group === 'dead-letters' && action === 'help' ? 'out' : 'err'](DEAD_LETTER_USAGE);
    return group === 'dead-letters' && action === 'help' ? 0 : 2;
  }
  const stores = DEAD_LETTER_SCHEMAS.map((schema) => new DeadLetterStore(dataSource, schema));
  if (action === 'list' && id === undefined) {
    for (const store of stores) {
      if (!(await store.exists())) continue;
      for (const letter of await store.list(10_000)) {
        const { event: _event, id: number, ...fields } = letter;
        await io.out(JSON.stringify({ id: `${store.schema}:${number}`, ...fields }));
      }
    }
    return 0;
  }
  if ((action !== 'replay' && action !== 'drop') || id === undefined || extra.length > 0) {
    await io.err(DEAD_LETTER_USAGE);
    return 2;
  }
  const match = /^([a-z_]+):([0-9]{1,18})$/.exec(id);
  const store = match ? stores.find((s) => s.schema === match[1]) : undefined;
  if (!match || !store) {
    await io.err(`ops: "${id.slice(0, 64)}" is not a dead letter id (<schema>:<number>, see list)`);
    return 2;
  }
  const done =
    (await store.exists()) &&
    (action === 'drop' ? await store.drop(match[2]) : await store.requestReplay(match[2]));
  if (!done) {
    await io.err(`ops: no dead letter ${id}`);
    return 1;
  }
  await io.out(
    action === 'drop' ? `dropped ${id}` : `replay of ${id} requested; its consumer applies it within seconds`,
  );
  return 0;
}

/** `events outbox list|replay <schema>:<seq>`: the rows an outbox relay set aside. */
async function runOutboxCommand(
  action: string | undefined,
  id: string | undefined,
  extra: readonly string[],
  dataSource: DataSource,
  io: OpsOutput,
): Promise<number> {
  const withColumns: string[] = [];
  for (const schema of OUTBOX_SCHEMAS) {
    const rows: { ok: boolean }[] = await dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = $1
         AND table_name = 'outbox' AND column_name = 'set_aside_at') AS ok`,
      [schema],
    );
    if (rows[0]?.ok) withColumns.push(schema);
  }
  if (action === 'list' && id === undefined) {
    for (const schema of withColumns) {
      const rows: Record<string, unknown>[] = await dataSource.query(
        `SELECT seq, id AS "eventId", type, tenant_id AS "tenantId", occurred_at AS "occurredAt",
                set_aside_at AS "setAsideAt", set_aside_reason AS reason
           FROM ${schema}.outbox WHERE set_aside_at IS NOT NULL ORDER BY seq LIMIT 10000`,
      );
      for (const { seq, ...row } of rows) await io.out(JSON.stringify({ id: `${schema}:${seq}`, ...row }));
    }
    return 0;
  }
  const match = /^([a-z_]+):([0-9]{1,18})$/.exec(id ?? '');
  if (action !== 'replay' || !match || extra.length > 0) {
    await io.err(DEAD_LETTER_USAGE);
    return 2;
  }
  if (!withColumns.includes(match[1])) {
    await io.err(`ops: no set-aside outbox row ${id}`);
    return 1;
  }
  const result: [unknown[], number] = await dataSource.query(
    `UPDATE ${match[1]}.outbox SET set_aside_at = NULL, set_aside_reason = NULL
      WHERE seq = $1 AND set_aside_at IS NOT NULL AND published_at IS NULL`,
    [match[2]],
  );
  if (result[1] === 0) {
    await io.err(`ops: no set-aside outbox row ${id}`);
    return 1;
  }
  await io.out(`${id} goes out again with the next relay pass (it follows the rows published meanwhile)`);
  return 0;
}
