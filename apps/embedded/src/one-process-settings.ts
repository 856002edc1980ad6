import { CaManagerConfig, ConfigError } from '@ca/config';

/**
 * Settings that only mean something when a service runs on its own: `npm start` runs every
 * service in this one process, so they are refused rather than silently ignored
 * (docs/operations.md#scaling-the-responder).
 */
export function refuseSettingsOfOwnProcesses(config: CaManagerConfig): void {
  if (config.ocsp.workers !== 1)
    throw new ConfigError(
      'OCSP_RESPONDER_WORKERS',
      'applies to the responder run on its own (npx nx serve ocsp-responder); npm start runs every service in one process, so unset it or run several replicas',
    );
}
