import { DataSource } from 'typeorm';

/** The gateway's database as a whole: whether it answers (readiness). */
export class GatewayDatabase {
  constructor(private readonly dataSource: DataSource) {}

  /** The connection is open and answers a trivial statement. */
  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}
