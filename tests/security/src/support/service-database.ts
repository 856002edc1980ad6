import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

export const INIT_ROLES_SQL = resolve(__dirname, '../../../../deploy/postgres/init-roles.sql');

/** The services' schemas, one role each. */
export const SCHEMAS = ['gateway', 'issuance', 'revocation', 'ocsp', 'acme', 'webhooks'] as const;
export type SchemaName = (typeof SCHEMAS)[number];

const run = promisify(execFile);

/**
 * A database of its own on the server of DATABASE_URL, prepared by deploy/postgres/init-roles.sql
 * with roles of their own (`<prefix>gateway`, …: roles are server-wide, so the prefix keeps them
 * apart from anyone else's). `drop` removes the database and the roles.
 */
export class ServiceDatabase {
  private constructor(
    private readonly adminUrl: URL,
    readonly name: string,
    readonly rolePrefix: string,
    private readonly passwords: Record<SchemaName, string>,
  ) {}

  static async create(adminUrl: string): Promise<ServiceDatabase> {
    const id = randomBytes(4).toString('hex');
    const name = `ca_security_${id}`;
    const rolePrefix = `ca_security_${id}_`;
    const passwords = Object.fromEntries(
      SCHEMAS.map((schema) => [schema, randomBytes(18).toString('hex')]),
    ) as Record<SchemaName, string>;
    const database = new ServiceDatabase(new URL(adminUrl), name, rolePrefix, passwords);
    await database.admin(`CREATE DATABASE ${name}`);
    try {
      const variables = SCHEMAS.flatMap((schema) => ['-v', `${schema}_password=${passwords[schema]}`]);
      await run('psql', [
        database.adminUrlOf(name),
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-v',
        `role_prefix=${rolePrefix}`,
        ...variables,
        '-f',
        INIT_ROLES_SQL,
      ]);
    } catch (error) {
      await database.drop();
      throw error;
    }
    return database;
  }

  /** The DATABASE_URL of the service that owns `schema`: its own role, nothing else. */
  urlFor(schema: SchemaName): string {
    const url = new URL(this.adminUrl);
    url.username = `${this.rolePrefix}${schema}`;
    url.password = this.passwords[schema];
    url.pathname = `/${this.name}`;
    return url.toString();
  }

  private adminUrlOf(database: string): string {
    const url = new URL(this.adminUrl);
    url.pathname = `/${database}`;
    return url.toString();
  }

  private async admin(sql: string): Promise<void> {
    const client = new Client({ connectionString: this.adminUrl.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  /**
   * Refuses `schema`'s role as an operator's mistake would (NOLOGIN, or CONNECT revoked, PUBLIC's
   * included) and ends its open sessions, so that its pool has to connect again; `allow` undoes it.
   */
  async refuse(schema: SchemaName, how: 'nologin' | 'connect'): Promise<void> {
    const role = `${this.rolePrefix}${schema}`;
    await this.admin(
      how === 'nologin'
        ? `ALTER ROLE ${role} NOLOGIN`
        : `REVOKE CONNECT ON DATABASE ${this.name} FROM PUBLIC, ${role}`,
    );
    await this.admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
  }

  async allow(schema: SchemaName, how: 'nologin' | 'connect'): Promise<void> {
    const role = `${this.rolePrefix}${schema}`;
    await this.admin(
      how === 'nologin'
        ? `ALTER ROLE ${role} LOGIN`
        : `GRANT CONNECT ON DATABASE ${this.name} TO PUBLIC, ${role}`,
    );
  }

  async drop(): Promise<void> {
    await this.admin(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    for (const schema of SCHEMAS) await this.admin(`DROP ROLE IF EXISTS ${this.rolePrefix}${schema}`);
  }
}
