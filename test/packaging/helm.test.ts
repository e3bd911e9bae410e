import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { ROOT } from '../cli/run-cli.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { findHelm } from './helm-binary.js';

const exec = promisify(execFile);
const CHART = join(ROOT, 'deploy', 'helm', 'statusbot');

// The chart does not depend on the engine: once is enough.
const found = TEST_ENGINE === 'sqlite' ? await findHelm() : null;
if (found && 'missing' in found) {
  if (process.env.CI === 'true') throw new Error(`the Helm chart's tests need helm: ${found.missing}`);
  console.log(`Helm chart tests skipped: ${found.missing}`);
}
const helm = found && 'helm' in found ? found.helm : null;

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  // Rendered Kubernetes objects, read as plain data.
  spec?: any;
  data?: Record<string, string>;
}

const work = mkdtempSync(join(tmpdir(), 'statusbot-helm-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let files = 0;

/** `helm template` of the chart with these values (as a values file, so maps and strings stay typed). */
async function render(values: Record<string, unknown> = {}): Promise<Manifest[]> {
  const file = join(work, `values-${files++}.yaml`);
  writeFileSync(file, stringify(values));
  const { stdout } = await exec(helm!, ['template', 'sb', CHART, '-f', file], { maxBuffer: 16 << 20 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

async function renderError(values: Record<string, unknown>): Promise<string> {
  const error = await render(values).then(
    () => null,
    (e: { stderr?: string }) => e,
  );
  expect(error, 'helm template should refuse these values').not.toBeNull();
  return error!.stderr ?? '';
}

const one = (manifests: Manifest[], kind: string): Manifest => {
  const matching = manifests.filter((m) => m.kind === kind);
  expect(matching.map((m) => m.kind)).toEqual([kind]);
  return matching[0]!;
};
const container = (manifests: Manifest[]): any => one(manifests, 'Deployment').spec.template.spec.containers[0];
const envOf = (manifests: Manifest[], name: string): any => container(manifests).env.find((e: { name: string }) => e.name === name);

const POSTGRES_URL = 'postgres://statusbot:secret@db.internal:5432/statusbot';

describe.skipIf(!helm)('the Helm chart', () => {
  it('lints clean, with the defaults and with PostgreSQL', async () => {
    const plain = await exec(helm!, ['lint', CHART, '--strict']);
    expect(plain.stdout).toContain('0 chart(s) failed');
    const postgres = await exec(helm!, ['lint', CHART, '--strict', '--set', `database.url=${POSTGRES_URL}`, '--set', 'replicaCount=3']);
    expect(postgres.stdout).toContain('0 chart(s) failed');
  });

  it('runs on SQLite by default: one replica, Recreate, a PVC mounted at /data', async () => {
    const manifests = await render();
    const deployment = one(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    const pvc = one(manifests, 'PersistentVolumeClaim');
    const volumes = deployment.spec.template.spec.volumes;
    expect(volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: pvc.metadata.name } });
    expect(container(manifests).volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    expect(envOf(manifests, 'STATUSBOT_DB')).toEqual({ name: 'STATUSBOT_DB', value: '/data/statusbot.db' });
    // No config: the demo, as `npm start` serves it.
    expect(envOf(manifests, 'STATUSBOT_CONFIG')).toBeUndefined();
    expect(manifests.some((m) => m.kind === 'ConfigMap')).toBe(false);
  });

  it('runs as uid 10001 on a read-only root, with /tmp writable, probed at /healthz and /readyz', async () => {
    const manifests = await render();
    const pod = one(manifests, 'Deployment').spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    const c = container(manifests);
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(c.ports).toContainEqual({ name: 'http', containerPort: 8080, protocol: 'TCP' });
  });

  it('runs on PostgreSQL with database.url: RollingUpdate, several replicas, no PVC, the URL from a Secret', async () => {
    const manifests = await render({ database: { url: POSTGRES_URL }, replicaCount: 3 });
    const deployment = one(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(manifests.some((m) => m.kind === 'PersistentVolumeClaim')).toBe(false);
    expect(deployment.spec.template.spec.volumes.some((v: { name: string }) => v.name === 'data')).toBe(false);
    const secret = one(manifests, 'Secret');
    const ref = envOf(manifests, 'STATUSBOT_DB').valueFrom.secretKeyRef;
    expect(ref.name).toBe(secret.metadata.name);
    expect(Buffer.from(secret.data![ref.key]!, 'base64').toString()).toBe(POSTGRES_URL);
  });

  it("runs on PostgreSQL with the URL in the user's own Secret", async () => {
    const manifests = await render({ database: { existingSecret: 'statusbot-db', existingSecretKey: 'STATUSBOT_DB' }, replicaCount: 2 });
    expect(one(manifests, 'Deployment').spec.strategy.type).toBe('RollingUpdate');
    expect(envOf(manifests, 'STATUSBOT_DB').valueFrom.secretKeyRef).toEqual({ name: 'statusbot-db', key: 'STATUSBOT_DB' });
    expect(manifests.some((m) => m.kind === 'Secret' || m.kind === 'PersistentVolumeClaim')).toBe(false);
  });

  it('refuses more than one replica on SQLite, saying why', async () => {
    const stderr = await renderError({ replicaCount: 2 });
    expect(stderr).toContain('replicaCount is 2 but statusbot is on SQLite');
    expect(stderr).toContain('several pods on one SQLite file corrupt it');
    expect(stderr).toContain('PostgreSQL');
  });

  it('refuses values the schema does not allow', async () => {
    expect(await renderError({ replicaCount: 'two' })).toContain('replicaCount');
    expect(await renderError({ database: { url: 'mysql://db/statusbot' } })).toContain('database.url');
    expect(await renderError({ persistance: { size: '1Gi' } })).toContain('persistance');
  });

  it('mounts values.config as the config file, and a change of it changes the checksum that rolls the pods', async () => {
    const config = { demo: false, companies: [{ name: 'Acme' }] };
    const first = await render({ config });
    const map = one(first, 'ConfigMap');
    expect(parseAllDocuments(map.data!['statusbot.yml']!)[0]!.toJS()).toEqual(config);
    expect(envOf(first, 'STATUSBOT_CONFIG')).toEqual({ name: 'STATUSBOT_CONFIG', value: '/etc/statusbot/statusbot.yml' });
    const checksum = (m: Manifest[]) => one(m, 'Deployment').spec.template.metadata.annotations['checksum/config'];
    expect(checksum(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(await render({ config }))).toBe(checksum(first));
    expect(checksum(await render({ config: { ...config, public_url: 'https://status.acme.example' } }))).not.toBe(checksum(first));
  });

  it('takes the config from an existing ConfigMap, and secrets from an existing Secret as the environment', async () => {
    const manifests = await render({ existingConfigMap: 'acme-config', existingSecret: 'acme-secrets' });
    const pod = one(manifests, 'Deployment').spec.template.spec;
    expect(pod.volumes).toContainEqual({ name: 'config', configMap: { name: 'acme-config', items: [{ key: 'statusbot.yml', path: 'statusbot.yml' }] } });
    expect(container(manifests).envFrom).toEqual([{ secretRef: { name: 'acme-secrets' } }]);
    expect(manifests.some((m) => m.kind === 'ConfigMap')).toBe(false);
  });

  it('adds an Ingress and a ServiceMonitor whose bearer token is the Secret key statusbot reads', async () => {
    const manifests = await render({
      existingSecret: 'acme-secrets',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${NAME}, read by statusbot from the environment.
      config: { metrics: { token: '${METRICS_TOKEN}' } },
      ingress: { enabled: true, hosts: [{ host: 'status.acme.example', paths: [{ path: '/' }] }] },
      metrics: { serviceMonitor: { enabled: true, tokenSecret: { key: 'METRICS_TOKEN' } } },
    });
    const rule = one(manifests, 'Ingress').spec.rules[0];
    expect(rule.host).toBe('status.acme.example');
    expect(rule.http.paths[0].backend.service).toEqual({ name: one(manifests, 'Service').metadata.name, port: { name: 'http' } });
    const endpoint = one(manifests, 'ServiceMonitor').spec.endpoints[0];
    expect(endpoint).toMatchObject({ port: 'http', path: '/metrics', bearerTokenSecret: { name: 'acme-secrets', key: 'METRICS_TOKEN' } });
    expect(await render()).not.toContainEqual(expect.objectContaining({ kind: 'ServiceMonitor' }));
  });
});
