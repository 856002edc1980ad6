import { ConfigError } from './config-error';
import { loadConfig } from './ca-manager.config';

describe('loadConfig', () => {
  it('gives the docs/api.md#configuration defaults in embedded mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      gatewayPort: 3000,
      pkiPort: 3001,
      pkiPublicUrl: 'http://127.0.0.1:3001',
      gatewayPublicUrl: 'http://127.0.0.1:3000',
      defaultCertificateLimit: 1000,
      rateLimitPerMinute: 600,
      errorCatalogUrl: 'https://errors.ca-manager.dev',
      keyCustody: 'local',
      keyAlgorithm: 'P-256',
      logLevel: 'info',
      logFormat: 'auto',
      embedded: true,
    });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('strips a trailing slash from public URLs', () => {
    expect(loadConfig({ PKI_PUBLIC_URL: 'https://pki.example.com/' }).pkiPublicUrl).toBe(
      'https://pki.example.com',
    );
  });

  it.each([
    ['GATEWAY_PORT', 'abc'],
    ['PKI_PORT', '70000'],
    ['PKI_PUBLIC_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x'],
    ['NATS_URL', 'http://x'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'yaml'],
    ['KEY_CUSTODY', 'cloud'],
    ['KEY_ALGORITHM', 'RSA-1024'],
    ['KEY_ALGORITHM', 'p-256'],
    ['KEY_ALGORITHM', 'Ed25519'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['OCSP_VALIDITY', '8 hours'],
    ['OCSP_VALIDITY', '-1'],
    ['OCSP_VALIDITY', '30d'],
    ['OCSP_MAX_CERTIDS', '0'],
    ['OCSP_CACHE_MAX_BYTES', '64MiB'],
    ['OCSP_FAST_FRONT', 'yes'],
    ['OCSP_RESPONDER_WORKERS', '0'],
    ['OCSP_RESPONDER_WORKERS', 'all'],
    ['OCSP_RESPONDER_WORKERS', '65'],
  ])('refuses a malformed %s with one line naming it', (name, bad) => {
    expect(() => loadConfig({ [name]: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(`^${name}: `));
  });

  it.each(['P-256', 'P-384', 'RSA-2048', 'RSA-3072', 'RSA-4096'])('takes KEY_ALGORITHM=%s', (name) => {
    expect(loadConfig({ KEY_ALGORITHM: name }).keyAlgorithm).toBe(name);
    expect(loadConfig({ KEY_ALGORITHM: ` ${name} ` }).keyAlgorithm).toBe(name);
  });

  it('names the values KEY_ALGORITHM takes when it refuses one', () => {
    expect(() => loadConfig({ KEY_ALGORITHM: 'RSA-1024' })).toThrow(
      'KEY_ALGORITHM: must be one of P-256, P-384, RSA-2048, RSA-3072, RSA-4096',
    );
  });

  it('requires PKCS11_LIBRARY, PKCS11_TOKEN_LABEL and PKCS11_PIN for KEY_CUSTODY=pkcs11', () => {
    const library = { KEY_CUSTODY: 'pkcs11', PKCS11_LIBRARY: '/lib/p11.so' };
    expect(() => loadConfig({ KEY_CUSTODY: 'pkcs11' })).toThrow(
      /^PKCS11_LIBRARY: is required when KEY_CUSTODY=pkcs11$/,
    );
    expect(() => loadConfig(library)).toThrow(/^PKCS11_TOKEN_LABEL: is required/);
    expect(() => loadConfig({ ...library, PKCS11_TOKEN_LABEL: 'ca' })).toThrow(/^PKCS11_PIN: is required/);
    const config = loadConfig({ ...library, PKCS11_TOKEN_LABEL: 'ca', PKCS11_PIN: '1234' });
    expect(config.pkcs11).toEqual({ library: '/lib/p11.so', tokenLabel: 'ca', pin: '1234' });
    expect(config.pkcs11.root).toBeUndefined();
  });

  describe('PKCS11_ROOT_TOKEN_LABEL and PKCS11_ROOT_PIN (root keys in a token of their own)', () => {
    const token = {
      KEY_CUSTODY: 'pkcs11',
      PKCS11_LIBRARY: '/lib/p11.so',
      PKCS11_TOKEN_LABEL: 'ca',
      PKCS11_PIN: '1234',
    };

    it('reads both into pkcs11.root', () => {
      const config = loadConfig({ ...token, PKCS11_ROOT_TOKEN_LABEL: 'ca-root', PKCS11_ROOT_PIN: '5678' });
      expect(config.pkcs11.root).toEqual({ tokenLabel: 'ca-root', pin: '5678' });
    });

    it('refuses one without the other with one line naming the missing setting', () => {
      expect(() => loadConfig({ ...token, PKCS11_ROOT_TOKEN_LABEL: 'ca-root' })).toThrow(
        new ConfigError('PKCS11_ROOT_PIN', 'is required with PKCS11_ROOT_TOKEN_LABEL (set both or neither)'),
      );
      expect(() => loadConfig({ ...token, PKCS11_ROOT_PIN: '5678' })).toThrow(
        /^PKCS11_ROOT_TOKEN_LABEL: is required with PKCS11_ROOT_PIN \(set both or neither\)$/,
      );
    });

    it('refuses the main token again as the root token', () => {
      expect(() => loadConfig({ ...token, PKCS11_ROOT_TOKEN_LABEL: 'ca', PKCS11_ROOT_PIN: '1234' })).toThrow(
        /^PKCS11_ROOT_TOKEN_LABEL: names the token of PKCS11_TOKEN_LABEL/,
      );
    });

    it('refuses them with local custody, which has no token', () => {
      expect(() => loadConfig({ PKCS11_ROOT_TOKEN_LABEL: 'ca-root', PKCS11_ROOT_PIN: '5678' })).toThrow(
        /^PKCS11_ROOT_TOKEN_LABEL: is only used with KEY_CUSTODY=pkcs11$/,
      );
      expect(() => loadConfig({ KEY_CUSTODY: 'local', PKCS11_ROOT_PIN: '5678' })).toThrow(
        /^PKCS11_ROOT_PIN: is only used with KEY_CUSTODY=pkcs11$/,
      );
    });
  });

  it('reads the OCSP settings: 8 hours, 64 CertIDs and 64 MiB by default; seconds or a unit', () => {
    expect(loadConfig({}).ocsp).toEqual({
      validitySeconds: 28_800,
      maxCertIds: 64,
      cacheMaxBytes: 64 * 1024 * 1024,
      fastFront: true,
      workers: 1,
    });
    expect(loadConfig({ OCSP_RESPONDER_WORKERS: '2' }).ocsp.workers).toBe(2);
    expect(loadConfig({ OCSP_RESPONDER_WORKERS: 'auto' }).ocsp.workers).toBe('auto');
    expect(loadConfig({ OCSP_VALIDITY: '30m' }).ocsp.validitySeconds).toBe(1800);
    expect(loadConfig({ OCSP_FAST_FRONT: 'off' }).ocsp.fastFront).toBe(false);
    expect(loadConfig({ OCSP_VALIDITY: '3600' }).ocsp.validitySeconds).toBe(3600);
    expect(loadConfig({ OCSP_VALIDITY: '2d' }).ocsp.validitySeconds).toBe(172_800);
    expect(() => loadConfig({ OCSP_VALIDITY: '8 hours' })).toThrow(
      /^OCSP_VALIDITY: must be seconds or a duration like 8h or 30m, got "8 hours"$/,
    );
  });

  it('reads the retention windows: days, or a duration for short runs; the old defaults unset', () => {
    const defaults = loadConfig({});
    expect(defaults.eventRetentionMs).toBe(7 * 86_400_000);
    expect(defaults.blobTtlMs).toBe(24 * 3_600_000);
    expect(defaults.downloadLinkTtlMs).toBe(3_600_000);
    expect(defaults.acme.nonceLifetimeMs).toBe(3_600_000);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '30' }).eventRetentionMs).toBe(30 * 86_400_000);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '2m' }).eventRetentionMs).toBe(120_000);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '12h' }).eventRetentionMs).toBe(12 * 3_600_000);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '0' })).toThrow(
      /^EVENT_RETENTION_DAYS: must be between 1 and 3650/,
    );
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '30s' })).toThrow(
      /^EVENT_RETENTION_DAYS: must be between 60 and/,
    );
    expect(
      loadConfig({ BLOB_TTL: '2m', DOWNLOAD_LINK_TTL: '10m', ACME_NONCE_LIFETIME: '90s' }),
    ).toMatchObject({ blobTtlMs: 120_000, downloadLinkTtlMs: 600_000, acme: { nonceLifetimeMs: 90_000 } });
  });

  it('reads METRICS_TOKEN, unset by default', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 's3cret' }).metricsToken).toBe('s3cret');
  });

  it('is distributed when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).embedded).toBe(false);
  });

  it('gives the edge limits their defaults: tokens, failed authentications, HTTP', () => {
    const config = loadConfig({});
    expect(config.jwt).toMatchObject({ maxLifetimeSeconds: 86_400, clockSkewSeconds: 60 });
    expect(config.authFailureLimitPerMinute).toBe(60);
    expect(config.http).toEqual({
      maxConnections: 1024,
      maxConnectionsPerClient: 64,
      requestsPerClientPerSecond: 1000,
      trustedProxies: [],
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      keepAliveTimeoutSeconds: 5,
    });
  });

  it('keeps the request timeout at least the headers timeout, as Node requires', () => {
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT: '45' }).http.requestTimeoutSeconds).toBe(45);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT: '20', HTTP_REQUEST_TIMEOUT: '10' })).toThrow(
      /^HTTP_REQUEST_TIMEOUT: /,
    );
  });

  it('reads the trusted proxies as addresses and CIDR blocks, and 0 as no request-rate cap', () => {
    const config = loadConfig({
      TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7 2001:db8::/32',
      HTTP_CLIENT_REQUESTS_PER_SECOND: '0',
    });
    expect(config.http).toMatchObject({
      trustedProxies: ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'],
      requestsPerClientPerSecond: 0,
    });
  });

  it.each([
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', 'proxy.example'],
    ['HTTP_MAX_CONNECTIONS_PER_CLIENT', '0'],
    ['JWT_MAX_TOKEN_LIFETIME', '10'],
    ['JWT_CLOCK_SKEW', '-1'],
    ['AUTH_FAILURE_LIMIT_PER_MINUTE', '0'],
    ['HTTP_MAX_CONNECTIONS', '0'],
    ['HTTP_HEADERS_TIMEOUT', 'soon'],
    ['HTTP_KEEPALIVE_TIMEOUT', '0'],
  ])('refuses a malformed %s with one line naming it', (name, bad) => {
    expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(`^${name}: `));
  });
});

describe('console settings', () => {
  it('signs in through OIDC only with both CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID', () => {
    expect(loadConfig({}).console).toEqual({});
    expect(
      loadConfig({ CONSOLE_OIDC_ISSUER: 'https://id.example.com/', CONSOLE_OIDC_CLIENT_ID: 'ca-console' })
        .console,
    ).toEqual({ oidc: { issuer: 'https://id.example.com', clientId: 'ca-console' } });
    expect(() => loadConfig({ CONSOLE_OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      'CONSOLE_OIDC_CLIENT_ID',
    );
    expect(() => loadConfig({ CONSOLE_OIDC_CLIENT_ID: 'ca-console' })).toThrow('CONSOLE_OIDC_ISSUER');
    expect(() => loadConfig({ CONSOLE_OIDC_ISSUER: 'id.example.com', CONSOLE_OIDC_CLIENT_ID: 'x' })).toThrow(
      'CONSOLE_OIDC_ISSUER',
    );
  });
});
