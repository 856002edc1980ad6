import type { DataSource } from 'typeorm';

/** The responder's database as a whole, for `/health/ready`. */
export abstract class OcspDatabase {
  /** Whether the database answers. */
  abstract ready(): Promise<boolean>;
}

export class SqlOcspDatabase extends OcspDatabase {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}
