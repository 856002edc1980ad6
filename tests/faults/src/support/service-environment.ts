import { randomBytes } from 'node:crypto';
import { exportSPKI } from 'jose';
import { webcrypto } from 'node:crypto';
import { freePorts } from '@ca/test-support';

export type ServiceName = 'gateway' | 'issuance' | 'revocation' | 'ocsp-responder' | 'acme' | 'webhooks';

/**
 * Where the six services of distributed mode listen, and the environment each one starts with:
 * free ports on loopback, one data dir, the suite's token key, and a KEK of its own for each
 * KEK-holding service (as docs/operations.md recommends). Callers add their database and NATS.
 */
export interface ServiceEnvironment {
  gatewayUrl: string;
  pkiUrl: string;
  /** For every service. */
  common: NodeJS.ProcessEnv;
  /** On top of `common`, per service. */
  perService: Record<ServiceName, NodeJS.ProcessEnv>;
  /** `/health/ready` of each service. */
  healthUrls: Record<ServiceName, string>;
  /** Ports left for the caller (asked for with `extraPorts`). */
  extraPorts: number[];
}

export async function serviceEnvironment(options: {
  dataDir: string;
  jwtPublicKey: webcrypto.CryptoKey;
  logLevel: string;
  extraPorts?: number;
}): Promise<ServiceEnvironment> {
  const [gatewayPort, pkiPort, issuanceHealth, revocationHealth, acmeHealth, webhooksHealth, ...extraPorts] =
    await freePorts(6 + (options.extraPorts ?? 0));
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const pkiUrl = `http://127.0.0.1:${pkiPort}`;
  const {
    NODE_OPTIONS: _jestFlags,
    DATABASE_URL: _shared,
    NATS_URL: _sharedNats,
    ...inherited
  } = process.env;
  return {
    gatewayUrl,
    pkiUrl,
    extraPorts,
    common: {
      ...inherited,
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      GATEWAY_PORT: String(gatewayPort),
      PKI_PORT: String(pkiPort),
      GATEWAY_PUBLIC_URL: gatewayUrl,
      PKI_PUBLIC_URL: pkiUrl,
      JWT_PUBLIC_KEY: await exportSPKI(options.jwtPublicKey),
      LOG_LEVEL: options.logLevel,
    },
    perService: {
      gateway: {},
      issuance: { CA_KEK: randomBytes(32).toString('base64'), HEALTH_PORT: String(issuanceHealth) },
      revocation: { HEALTH_PORT: String(revocationHealth) },
      'ocsp-responder': { CA_KEK: randomBytes(32).toString('base64') },
      acme: { CA_KEK: randomBytes(32).toString('base64'), HEALTH_PORT: String(acmeHealth) },
      webhooks: {
        CA_KEK: randomBytes(32).toString('base64'),
        HEALTH_PORT: String(webhooksHealth),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    },
    healthUrls: {
      gateway: `${gatewayUrl}/health/ready`,
      'ocsp-responder': `${pkiUrl}/health/ready`,
      issuance: `http://127.0.0.1:${issuanceHealth}/health/ready`,
      revocation: `http://127.0.0.1:${revocationHealth}/health/ready`,
      acme: `http://127.0.0.1:${acmeHealth}/health/ready`,
      webhooks: `http://127.0.0.1:${webhooksHealth}/health/ready`,
    },
  };
}
