import { openSchemaDataSource } from '@ca/persistence';
import type { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from './gateway.schema';
import { GATEWAY_MIGRATIONS } from './migrations';

/**
 * The gateway's own DataSource on its schema, migrations run. Used by the gateway itself, by the
 * operator commands against DATABASE_URL and by the embedded operator endpoint. No entities: the
 * few statements are written out, each naming the schema (PGlite serves one session).
 */
export function openGatewayDatabase(url: string, poolSize = 5): Promise<DataSource> {
  return openSchemaDataSource({
    url,
    schema: GATEWAY_SCHEMA,
    entities: [],
    migrations: GATEWAY_MIGRATIONS,
    poolSize,
  });
}
