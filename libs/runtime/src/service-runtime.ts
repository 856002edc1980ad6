import { CaManagerConfig } from '@ca/config';
import { Messaging } from '@ca/messaging';
import { Logger } from '@ca/observability';

/** What every service is started with, in either mode; the only place the mode shows. */
export interface ServiceRuntime {
  config: CaManagerConfig;
  /** Connection URL of the Postgres (real or embedded) that holds this service's schema. */
  databaseUrl: string;
  messaging: Messaging;
  logger: Logger;
}

/** A started service: stops cleanly (drains requests, stops consumers, closes pools). */
export interface RunningService {
  name: string;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
