import { Env, readDurationSeconds, readEnum } from './env-readers';

/** The webhooks context's settings (docs/operations.md#webhooks). */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: also `http` and loopback/private addresses (test deployments). */
  allowPrivateTargets: boolean;
  /** WEBHOOK_RETRY_BASE_SECONDS: the first retry's delay; each next one doubles it. */
  retryBaseSeconds: number;
  /** EXPIRY_SCAN_SECONDS: how often certificates are checked for expiry thresholds and expiry. */
  expiryScanSeconds: number;
}

export function readWebhookSettings(env: Env): WebhookSettings {
  return {
    allowPrivateTargets:
      readEnum(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', ['true', 'false'] as const, 'false') === 'true',
    retryBaseSeconds: readDurationSeconds(env, 'WEBHOOK_RETRY_BASE_SECONDS', 5, 1, 3600),
    expiryScanSeconds: readDurationSeconds(env, 'EXPIRY_SCAN_SECONDS', 300, 1, 86_400),
  };
}
