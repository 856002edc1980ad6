import { createHash } from 'node:crypto';
import { Client } from 'pg';

/** Statement text → the name it is prepared under (one per distinct text, so bounded by the code). */
const names = new Map<string, string>();

/**
 * Marks a statement the hot paths run over and over (every certificate, every event batch): the
 * connections of `PreparingClient` prepare it once and then only bind and execute it. Parsing and
 * planning is most of such a statement's cost: 80% of a keyed three-table read on the embedded
 * database (docs/benchmarks.md). Only for statements whose best plan does not depend on their
 * parameters (keyed reads and writes): after five executions Postgres may keep one generic plan.
 * Returns the text, so a store writes `const SQL = prepared(`…`)` and passes SQL as before.
 */
export function prepared(text: string): string {
  if (!names.has(text)) names.set(text, `p_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`);
  return text;
}

/**
 * A `pg` client that runs the texts marked with `prepared()` as named statements: pools take it as
 * their `Client` (TypeORM through `extra`). Any other query goes through unchanged. On the
 * embedded database the wire server shares the named statements between connections.
 */
export class PreparingClient extends Client {
  // pg's query() has a dozen overloads; this one only adds a name to a marked text's query.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    const name = typeof config === 'string' ? names.get(config) : undefined;
    if (name === undefined) return super.query(config, values, callback);
    if (typeof values === 'function') return super.query({ name, text: config }, values);
    return super.query({ name, text: config, values }, callback);
  }
}
