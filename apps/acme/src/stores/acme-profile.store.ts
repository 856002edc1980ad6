import { AcmeProfile } from '@ca/contracts';
import { DataSource } from 'typeorm';

interface ProfileRow {
  name: string;
  description: string;
  validity_days: number;
  usage: AcmeProfile['usage'];
  is_default: boolean;
}

const toProfile = (r: ProfileRow): AcmeProfile => ({
  name: r.name,
  description: r.description,
  validityDays: r.validity_days,
  usage: r.usage,
  default: r.is_default,
});

/** `acme.profiles`: each tenant's ACME profiles, at most one of them its default. */
export abstract class AcmeProfileStore {
  /** Adds or replaces the profile of its name; a default one makes every other of the tenant's not. */
  abstract put(tenantId: string, profile: AcmeProfile): Promise<void>;
  /** The tenant's profiles by name. */
  abstract list(tenantId: string): Promise<AcmeProfile[]>;
  /** False when the tenant has no profile of this name. */
  abstract delete(tenantId: string, name: string): Promise<boolean>;
  /** The profile of this name, or the tenant's default when `name` is undefined. */
  abstract find(tenantId: string, name: string | undefined): Promise<AcmeProfile | undefined>;
}

export class SqlAcmeProfileStore extends AcmeProfileStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async put(tenantId: string, profile: AcmeProfile): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      if (profile.default) {
        await tx.query('UPDATE acme.profiles SET is_default = false WHERE tenant_id = $1 AND name <> $2', [
          tenantId,
          profile.name,
        ]);
      }
      await tx.query(
        `INSERT INTO acme.profiles (tenant_id, name, description, validity_days, usage, is_default)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id, name) DO UPDATE SET description = $3, validity_days = $4, usage = $5,
           is_default = $6`,
        [tenantId, profile.name, profile.description, profile.validityDays, profile.usage, profile.default],
      );
    });
  }

  async list(tenantId: string): Promise<AcmeProfile[]> {
    const rows: ProfileRow[] = await this.dataSource.query(
      'SELECT * FROM acme.profiles WHERE tenant_id = $1 ORDER BY name',
      [tenantId],
    );
    return rows.map(toProfile);
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'DELETE FROM acme.profiles WHERE tenant_id = $1 AND name = $2 RETURNING name',
      [tenantId, name],
    );
    return rows.length > 0;
  }

  async find(tenantId: string, name: string | undefined): Promise<AcmeProfile | undefined> {
    const rows: ProfileRow[] = await this.dataSource.query(
      name === undefined
        ? 'SELECT * FROM acme.profiles WHERE tenant_id = $1 AND is_default'
        : 'SELECT * FROM acme.profiles WHERE tenant_id = $1 AND name = $2',
      name === undefined ? [tenantId] : [tenantId, name],
    );
    return rows[0] ? toProfile(rows[0]) : undefined;
  }
}
