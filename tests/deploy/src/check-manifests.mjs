#!/usr/bin/env node
// Checks a kustomize overlay without a cluster or the kustomize binary:
//   node tests/deploy/src/check-manifests.mjs deploy/overlays/example
// 1. follows kustomization.yaml `resources` (files and folders), `patches` (`path:`) and
//    `configMapGenerator` (`files:`, as the ConfigMap kustomize makes) from the overlay down;
//    every file must exist and parse as YAML;
// 2. validates every resource against the Kubernetes OpenAPI schema of its kind (kubernetes-models:
//    types, required fields, enums);
// 3. checks what a schema cannot see and a rollout would trip on: probes and resource requests on
//    every container, Secret and ConfigMap references that resolve, Services, the PDB and the HPA
//    pointing at a Deployment that exists.
// Prints one line per problem and exits 1, or a summary of the kinds found and exits 0.
// (ESM: kubernetes-models is an ESM-only package.)
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';

const MODELS = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

const problems = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);

/** Every resource document reachable from a kustomization folder, with the file it came from. */
function collect(folder, seen = new Set()) {
  const kustomization = join(folder, 'kustomization.yaml');
  if (!existsSync(kustomization)) {
    problem(folder, 'no kustomization.yaml');
    return [];
  }
  if (seen.has(kustomization)) return [];
  seen.add(kustomization);
  const [spec] = readYaml(kustomization);
  if (!spec) return [];
  const found = [];
  for (const entry of spec.resources ?? []) {
    const path = resolve(folder, entry);
    if (!existsSync(path)) problem(kustomization, `resource ${entry} does not exist`);
    else if (statSync(path).isDirectory()) found.push(...collect(path, seen));
    else found.push(...readYaml(path).map((document) => ({ file: path, document })));
  }
  for (const generator of spec.configMapGenerator ?? []) {
    const data = {};
    for (const entry of generator.files ?? []) {
      const [key, file] = entry.includes('=') ? entry.split('=', 2) : [entry.split('/').pop(), entry];
      const path = resolve(folder, file);
      if (!existsSync(path))
        problem(kustomization, `configMapGenerator ${generator.name}: ${file} does not exist`);
      else data[key] = readFileSync(path, 'utf8');
    }
    const document = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data };
    found.push({ file: kustomization, document });
  }
  for (const patch of spec.patches ?? []) {
    if (patch.path && !existsSync(resolve(folder, patch.path)))
      problem(kustomization, `patch ${patch.path} does not exist`);
    else if (patch.path) readYaml(resolve(folder, patch.path));
    if (patch.target?.name && patch.target.kind) found.push({ file: kustomization, target: patch.target });
  }
  return found;
}

function readYaml(file) {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'));
  const parsed = [];
  for (const document of documents) {
    for (const error of document.errors) problem(file, `YAML: ${error.message.split('\n')[0]}`);
    const value = document.toJS();
    if (value !== null && value !== undefined) parsed.push(value);
  }
  return parsed;
}

const where = (entry) =>
  `${relative(process.cwd(), entry.file)} ${entry.document?.kind ?? ''}/${entry.document?.metadata?.name ?? ''}`;

function validateSchema(entry) {
  const { apiVersion, kind } = entry.document;
  const Model = MODELS[`${apiVersion}/${kind}`];
  if (!Model) return problem(where(entry), `no schema here for ${apiVersion} ${kind}`);
  try {
    new Model(entry.document).validate();
  } catch (error) {
    problem(where(entry), String(error.message ?? error).replace(/\s+/g, ' '));
  }
}

const matches = (selector, labels) =>
  selector &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function checkReferences(entries) {
  const byKind = (kind) => entries.filter((e) => e.document?.kind === kind);
  // Long-running workloads (probes required) and Jobs (run to completion).
  const deployments = [...byKind('Deployment'), ...byKind('StatefulSet')];
  const named = (kind, name) => byKind(kind).find((e) => e.document.metadata?.name === name);

  for (const entry of [...deployments, ...byKind('Job')]) {
    const spec = entry.document.spec ?? {};
    const podLabels = spec.template?.metadata?.labels;
    const isJob = entry.document.kind === 'Job';
    if (!isJob && !matches(spec.selector?.matchLabels, podLabels))
      problem(where(entry), 'spec.selector does not match the pod template labels');
    const pod = spec.template?.spec ?? {};
    for (const container of pod.containers ?? []) {
      const at = `${where(entry)} container ${container.name}`;
      for (const probe of isJob ? [] : ['startupProbe', 'livenessProbe', 'readinessProbe'])
        if (!container[probe]) problem(at, `has no ${probe}`);
      for (const resource of ['cpu', 'memory'])
        if (!container.resources?.requests?.[resource]) problem(at, `requests no ${resource}`);
      for (const env of container.env ?? []) {
        const secret = env.valueFrom?.secretKeyRef;
        // An optional key (a service's NKey seed, absent from a password deployment) may be missing.
        if (
          secret &&
          !secret.optional &&
          !(named('Secret', secret.name)?.document.stringData ?? {})[secret.key] &&
          !(named('Secret', secret.name)?.document.data ?? {})[secret.key]
        )
          problem(at, `env ${env.name}: Secret ${secret.name} has no key ${secret.key}`);
        const config = env.valueFrom?.configMapKeyRef;
        if (config && !(named('ConfigMap', config.name)?.document.data ?? {})[config.key])
          problem(at, `env ${env.name}: ConfigMap ${config.name} has no key ${config.key}`);
      }
      for (const from of container.envFrom ?? [])
        if (from.configMapRef && !named('ConfigMap', from.configMapRef.name))
          problem(at, `envFrom: no ConfigMap ${from.configMapRef.name}`);
      const claims = (spec.volumeClaimTemplates ?? []).map((c) => c.metadata?.name);
      const mounted = new Set([...(pod.volumes ?? []).map((v) => v.name), ...claims]);
      for (const mount of container.volumeMounts ?? [])
        if (!mounted.has(mount.name)) problem(at, `volumeMount ${mount.name} has no volume`);
    }
    for (const volume of pod.volumes ?? [])
      if (volume.configMap && !named('ConfigMap', volume.configMap.name))
        problem(where(entry), `volume ${volume.name}: no ConfigMap ${volume.configMap.name}`);
  }

  const podsOf = (selector) =>
    deployments.filter((d) => matches(selector, d.document.spec?.template?.metadata?.labels));
  for (const entry of byKind('Service')) {
    const [target] = podsOf(entry.document.spec?.selector);
    if (!target) {
      problem(where(entry), 'selects no Deployment');
      continue;
    }
    const portNames = new Set(
      target.document.spec.template.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)),
    );
    for (const port of entry.document.spec.ports ?? [])
      if (typeof port.targetPort === 'string' && !portNames.has(port.targetPort))
        problem(
          where(entry),
          `targetPort ${port.targetPort} is no container port of ${target.document.metadata.name}`,
        );
  }
  for (const entry of byKind('PodDisruptionBudget'))
    if (podsOf(entry.document.spec?.selector?.matchLabels).length === 0)
      problem(where(entry), 'selects no Deployment');
  for (const entry of byKind('HorizontalPodAutoscaler')) {
    const ref = entry.document.spec?.scaleTargetRef ?? {};
    if (ref.kind !== 'Deployment' || !named('Deployment', ref.name))
      problem(where(entry), `scaleTargetRef ${ref.kind}/${ref.name} is no Deployment here`);
    const cpu = named('Deployment', ref.name)?.document.spec.template.spec.containers.every(
      (c) => c.resources?.requests?.cpu,
    );
    if (cpu === false) problem(where(entry), 'scales on CPU utilization but a container requests no cpu');
  }
  for (const entry of entries.filter((e) => e.target))
    if (!named(entry.target.kind, entry.target.name))
      problem(
        relative(process.cwd(), entry.file),
        `patch target ${entry.target.kind}/${entry.target.name} does not exist`,
      );
}

const overlay = resolve(
  process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '../../../deploy/overlays/example'),
);
const entries = collect(overlay);
for (const entry of entries) if (entry.document) validateSchema(entry);
checkReferences(entries);

if (problems.length > 0) {
  for (const line of problems) console.log(line);
  process.exit(1);
}
const kinds = {};
for (const entry of entries)
  if (entry.document) kinds[entry.document.kind] = (kinds[entry.document.kind] ?? 0) + 1;
console.log(
  `ok: ${Object.entries(kinds)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ')}`,
);
