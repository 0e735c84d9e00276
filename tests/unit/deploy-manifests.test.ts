import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../server/metrics.ts';
import { envSchema as backOfficeSchema, loadEnv } from '../../server/env.ts';
import { envSchema as upstreamSchema, loadUpstreamEnv } from '../../upstream/env.ts';
import { canonical, parseYamlDocuments, podSpecOf, renderKustomization, type Container, type K8sObject } from '../support/kustomize.ts';

/**
 * deploy/ (issue 21, ADR 039): the kustomize overlays rendered without kubectl and checked against the
 * Kubernetes schemas (kubernetes-models) and our policy; the compose file and HAProxy configuration checked
 * structurally; every metric the alerts and the dashboard read is one the back office exports.
 */

const root = join(import.meta.dirname, '..', '..');
const deploy = join(root, 'deploy');
const OVERLAYS = ['demo', 'production'] as const;
const rendered = Object.fromEntries(OVERLAYS.map((name) => [name, renderKustomization(join(deploy, 'kubernetes', 'overlays', name))])) as Record<
  (typeof OVERLAYS)[number],
  K8sObject[]
>;

/** Variables that are secret: they come from a Secret (Kubernetes) or an env file (compose), never from a ConfigMap or the manifest. */
const SECRET_VARS = [
  'COOKIE_SECRETS',
  'METRICS_TOKEN',
  'UPSTREAM_FORWARDED_SECRET',
  'AUDIT_KEY',
  'UPSTREAM_JWT_SECRET',
  'DATABASE_URL',
  'API_DATABASE_URL',
  'DEMO_PASSWORD',
  'POSTGRES_PASSWORD',
];
const BACK_OFFICE_VARS = new Set(Object.keys(backOfficeSchema.shape));
const UPSTREAM_VARS = new Set(Object.keys(upstreamSchema.shape));
/** Which program each container runs, by its name, and so which schema its environment must fit. */
const PROGRAM: Record<string, 'backoffice' | 'upstream' | 'postgres'> = {
  backoffice: 'backoffice',
  api: 'upstream',
  migrate: 'upstream',
  backup: 'upstream',
  postgres: 'postgres',
};

const workloads = (objects: K8sObject[]) => objects.filter((o) => podSpecOf(o));
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface EnvFrom {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}

/** The environment a container gets, each variable with where it comes from. */
interface Variable {
  name: string;
  from: 'configmap' | 'secret' | 'literal';
  value: string | undefined;
}
function environmentOf(objects: K8sObject[], container: Container): Variable[] {
  const data = (kind: string, name: string) => {
    const object = find(objects, kind, name);
    if (!object) return undefined;
    const plain = (object.stringData ?? {}) as Record<string, string>;
    const encoded = Object.fromEntries(
      Object.entries((object.data ?? {}) as Record<string, string>).map(([k, v]) => [k, kind === 'Secret' ? Buffer.from(v, 'base64').toString() : v]),
    );
    return { ...encoded, ...plain };
  };
  const fromConfigMaps = ((container.envFrom ?? []) as EnvFrom[]).flatMap((source): Variable[] => {
    if (source.secretRef) return Object.entries(data('Secret', source.secretRef.name) ?? {}).map(([name, value]) => ({ name, from: 'secret' as const, value }));
    const values = data('ConfigMap', source.configMapRef!.name);
    expect(values, `ConfigMap ${source.configMapRef!.name}`).toBeDefined();
    return Object.entries(values!).map(([name, value]) => ({ name, from: 'configmap' as const, value }));
  });
  const direct = ((container.env ?? []) as EnvVar[]).map((v): Variable => {
    if (v.valueFrom?.secretKeyRef) return { name: v.name, from: 'secret' as const, value: data('Secret', v.valueFrom.secretKeyRef.name)?.[v.valueFrom.secretKeyRef.key] };
    if (v.valueFrom?.configMapKeyRef)
      return { name: v.name, from: 'configmap' as const, value: data('ConfigMap', v.valueFrom.configMapKeyRef.name)?.[v.valueFrom.configMapKeyRef.key] };
    return { name: v.name, from: 'literal' as const, value: v.value };
  });
  return [...fromConfigMaps, ...direct];
}

/** Stand-ins for the Secrets production creates outside the repository: valid, never used anywhere. */
const STAND_INS: Record<string, string> = {
  COOKIE_SECRETS: 's'.repeat(40),
  METRICS_TOKEN: 'm'.repeat(24),
  UPSTREAM_FORWARDED_SECRET: 'f'.repeat(40),
  AUDIT_KEY: 'a'.repeat(40),
  UPSTREAM_JWT_SECRET: 'j'.repeat(40),
  DATABASE_URL: 'postgres://bike:secret@db.example.com:5432/bike',
  API_DATABASE_URL: 'postgres://bike_api:secret@db.example.com:5432/bike',
};

async function kubernetesModel(object: K8sObject): Promise<{ validate(): void }> {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : [undefined, object.apiVersion];
  const module = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = module[object.kind];
  if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  return new Model(object);
}

/**
 * Fields the schemas do not know. The JSON schemas kubernetes-models validates with allow any extra field (as
 * the API server's non-strict decoding does), so a misspelt `readinesProbe` would pass them; its TypeScript
 * types do not: each object is type-checked as an object literal of its kind, where an unknown field is an
 * error.
 */
function unknownFieldErrors(objects: K8sObject[], name: string): string[] {
  const dir = join(root, 'node_modules', '.cache', 'deploy-manifests');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.ts`);
  const lines = objects.flatMap((object, i) => {
    const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : [undefined, object.apiVersion];
    return [
      `import type { I${object.kind} as T${i} } from 'kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}';`,
      `export const o${i}: T${i} = ${JSON.stringify(object)};`,
    ];
  });
  writeFileSync(file, lines.join('\n') + '\n');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  });
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const object = objects[Math.floor(line / 2)];
    return `${object ? `${object.kind} ${object.metadata.name}` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

describe.each(OVERLAYS)('deploy/kubernetes overlay %s', (overlay) => {
  const objects = rendered[overlay];

  it('renders objects that are valid against the Kubernetes schemas', async () => {
    expect(objects.length).toBeGreaterThan(10);
    for (const object of objects) {
      const model = await kubernetesModel(object);
      expect(() => model.validate(), `${object.kind} ${object.metadata.name}`).not.toThrow();
    }
    const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('has no field the Kubernetes types do not know (a misspelt field fails)', { timeout: 60_000 }, () => {
    expect(unknownFieldErrors(objects, overlay)).toEqual([]);
  });

  it.skipIf(!hasCommand('kubectl'))('renders as `kubectl kustomize` does', () => {
    const output = execFileSync('kubectl', ['kustomize', join(deploy, 'kubernetes', 'overlays', overlay)], { encoding: 'utf8' });
    const theirs = parseYamlDocuments(output, 'kubectl kustomize') as unknown as K8sObject[];
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    // kubectl folds long base64 values over lines.
    const unfold = (o: K8sObject) =>
      o.kind === 'Secret' && o.data ? { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, String(v).replace(/\s/g, '')])) } : o;
    const sort = (list: K8sObject[]) => [...list].sort((a, b) => key(a).localeCompare(key(b))).map((o) => canonical(unfold(o)));
    expect(sort(objects)).toEqual(sort(theirs));
  });

  it('runs every container as non-root, read-only, without privilege escalation or capabilities, with requests and limits', () => {
    expect(workloads(objects).length).toBeGreaterThanOrEqual(overlay === 'demo' ? 5 : 4);
    for (const workload of workloads(objects)) {
      const pod = podSpecOf(workload)!;
      const podSecurity = pod.securityContext as { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
      expect(podSecurity.runAsNonRoot, workload.metadata.name).toBe(true);
      expect(podSecurity.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const where = `${workload.metadata.name}/${container.name}`;
        const security = container.securityContext as Record<string, unknown>;
        expect(security, where).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        const resources = container.resources as { requests?: Record<string, string>; limits?: Record<string, string> };
        expect(Object.keys(resources.requests ?? {}).sort(), where).toEqual(['cpu', 'memory']);
        expect(Object.keys(resources.limits ?? {}).sort(), where).toEqual(['cpu', 'memory']);
        // A read-only root needs somewhere to write temporary files.
        const mounts = (container.volumeMounts ?? []) as { mountPath: string }[];
        expect(
          mounts.map((m) => m.mountPath),
          where,
        ).toContain('/tmp');
      }
    }
  });

  it('keeps the back office available: replicas, rolling update without unavailability, probes, drain, PDB, HPA', () => {
    const deployment = find(objects, 'Deployment', 'backoffice')!;
    const spec = deployment.spec as { replicas: number; strategy: { type: string; rollingUpdate: { maxUnavailable: number } } };
    expect(spec.replicas).toBeGreaterThanOrEqual(2);
    expect(spec.strategy).toMatchObject({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } });
    const pod = podSpecOf(deployment)!;
    const [container] = pod.containers as (Container & Record<string, { httpGet?: { path: string }; preStop?: { exec?: { command: string[] } } }>)[];
    expect(container!.readinessProbe!.httpGet!.path).toBe('/readyz');
    expect(container!.livenessProbe!.httpGet!.path).toBe('/healthz');
    const [sleep, seconds] = container!.lifecycle!.preStop!.exec!.command;
    expect(sleep).toBe('sleep');
    // The grace period covers the preStop sleep and the server's own drain (at most 15 s, server/main.ts).
    expect(pod.terminationGracePeriodSeconds as number).toBeGreaterThanOrEqual(Number(seconds) + 15);

    const pdb = find(objects, 'PodDisruptionBudget', 'backoffice')!;
    const pdbSpec = pdb.spec as { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    expect(pdbSpec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(pdbSpec.minAvailable).toBeLessThan(spec.replicas);
    expect(pdbSpec.selector.matchLabels).toEqual((deployment.spec as { selector: { matchLabels: unknown } }).selector.matchLabels);
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'backoffice')!;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'backoffice' }, minReplicas: spec.replicas });
  });

  it('reads secrets from Secrets only, and only variables the programs know', () => {
    for (const object of objects.filter((o) => o.kind === 'ConfigMap')) {
      for (const key of Object.keys((object.data ?? {}) as object)) expect(SECRET_VARS, `ConfigMap ${object.metadata.name}: ${key}`).not.toContain(key);
    }
    for (const workload of workloads(objects)) {
      for (const container of podSpecOf(workload)!.containers) {
        const program = PROGRAM[container.name];
        expect(program, `container ${container.name}`).toBeDefined();
        for (const variable of environmentOf(objects, container)) {
          const where = `${workload.metadata.name}/${container.name}: ${variable.name}`;
          if (SECRET_VARS.includes(variable.name)) expect(variable.from, where).toBe('secret');
          // Every reference resolves: to a rendered Secret in demo, to one production creates outside otherwise.
          if (variable.from === 'secret' && overlay === 'demo') expect(variable.value, where).toBeDefined();
          if (variable.from === 'secret' && overlay === 'production' && program !== 'postgres') expect(Object.keys(STAND_INS), where).toContain(variable.name);
          if (program === 'backoffice') expect(BACK_OFFICE_VARS.has(variable.name), `${where} is not in server/env.ts`).toBe(true);
          if (program === 'upstream') expect(UPSTREAM_VARS.has(variable.name), `${where} is not in upstream/env.ts`).toBe(true);
        }
      }
    }
  });

  it('starts: the environment each program gets passes its own validation', () => {
    const env = (name: string) => {
      const container = podSpecOf(workloads(objects).find((w) => w.metadata.name === name)!)!.containers[0]!;
      return Object.fromEntries(environmentOf(objects, container).map((v) => [v.name, v.value ?? (overlay === 'production' ? STAND_INS[v.name] : undefined)]));
    };
    const backOffice = loadEnv(env('backoffice'));
    expect(backOffice.NODE_ENV).toBe('production');
    expect(backOffice.COOKIE_SECRETS?.length).toBeGreaterThan(0);
    expect(backOffice.METRICS_TOKEN).toBeDefined();
    const api = loadUpstreamEnv(env('api'));
    expect(api.DATABASE_URL).toMatch(/^postgres/);
    expect(api.AUDIT_KEY).toBeDefined();
    expect(api.UPSTREAM_FORWARDED_SECRET).toBe(backOffice.UPSTREAM_FORWARDED_SECRET);
    // The migration as the tables' owner, the API as its own role (ADR 067): two users, the API's the one it grants.
    const migrate = loadUpstreamEnv(env('migrate'));
    const refOf = (name: string, variable: string) =>
      (podSpecOf(workloads(objects).find((w) => w.metadata.name === name)!)!.containers[0]!.env as EnvVar[]).find((v) => v.name === variable)?.valueFrom?.secretKeyRef;
    expect(refOf('migrate', 'API_DATABASE_URL')).toEqual(refOf('api', 'DATABASE_URL'));
    expect(refOf('migrate', 'DATABASE_URL')).toEqual({ name: 'migrate-secrets', key: 'DATABASE_URL' });
    expect(migrate.API_DATABASE_URL).toBeDefined();
    if (overlay === 'demo') expect(migrate.API_DATABASE_URL).toBe(api.DATABASE_URL);
    if (overlay === 'demo') expect(new URL(migrate.DATABASE_URL!).username).not.toBe(new URL(api.DATABASE_URL!).username);
    // The history's head on a writable volume of its own, kept across pods (ADR 059, 067).
    expect(api.AUDIT_HEAD_FILE).toMatch(/^\/var\/lib\/bike\/audit\//);
    const backup = loadUpstreamEnv(env('backup'));
    expect(backup).toMatchObject({ DATABASE_URL: api.DATABASE_URL, UPSTREAM_UPLOAD_DIR: api.UPSTREAM_UPLOAD_DIR, BACKUP_KEEP: 14 });
    if (overlay === 'production') {
      expect(backOffice.PUBLIC_URL).toMatch(/^https:/);
      expect(backOffice.ALLOW_INSECURE_COOKIES).toBe(false);
      expect(api.SEED_DEMO).toBe(false);
    }
  });

  it('lets the back office be reached from the ingress controller, the API from the back office, PostgreSQL from the API, the migration and the backup', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: { matchLabels: Record<string, string> } };
    const spec = (name: string) => policies.find((p) => p.metadata.name === name)!.spec as { podSelector: { matchLabels?: Record<string, string> }; ingress?: { from: Peer[] }[] };
    expect(spec('default-deny')).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const peers = (name: string) =>
      spec(name).ingress!.flatMap((rule) =>
        rule.from.map((peer) =>
          peer.podSelector ? `pod:${peer.podSelector.matchLabels['app.kubernetes.io/name']}` : `ns:${peer.namespaceSelector!.matchLabels['kubernetes.io/metadata.name']}`,
        ),
      );
    expect(peers('backoffice').sort()).toEqual(['ns:ingress-nginx', 'ns:monitoring']);
    expect(peers('api').sort()).toEqual(['ns:ingress-nginx', 'pod:backoffice']);
    expect(peers('postgres').sort()).toEqual(['pod:api', 'pod:backup', 'pod:migrate']);
  });

  it('writes the change history’s head (AUDIT_HEAD_FILE) to a persistent volume of its own, outside the read-only root (ADR 059, 067)', () => {
    const api = workloads(objects).find((w) => w.metadata.name === 'api')!;
    const pod = podSpecOf(api)!;
    const container = pod.containers.find((c) => c.name === 'api')!;
    const file = environmentOf(objects, container).find((v) => v.name === 'AUDIT_HEAD_FILE')?.value;
    expect(file).toBeDefined();
    expect((container.securityContext as { readOnlyRootFilesystem?: boolean }).readOnlyRootFilesystem).toBe(true);
    const mounts = container.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[];
    const mount = mounts.find((m) => file!.startsWith(`${m.mountPath}/`));
    expect(mount, `a volume mounted above ${file}`).toBeDefined();
    expect(mount!.readOnly ?? false).toBe(false);
    expect(mount!.mountPath).not.toBe('/tmp');
    const volume = (pod.volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[]).find((v) => v.name === mount!.name)!;
    const claim = volume.persistentVolumeClaim?.claimName;
    expect(claim, 'a claim, not an emptyDir: a new pod finds the head kept by the last').toBeDefined();
    expect(find(objects, 'PersistentVolumeClaim', claim!)).toBeDefined();
    expect(claim).not.toBe('api-uploads');
  });

  it("backs up nightly, one job at a time, on the API's node (its uploads volume is ReadWriteOnce), to a volume of its own", () => {
    const cron = find(objects, 'CronJob', 'backup')!;
    expect(cron.spec).toMatchObject({ schedule: expect.stringMatching(/^\d+ \d+ \* \* \*$/), concurrencyPolicy: 'Forbid' });
    const pod = podSpecOf(cron)!;
    const affinity = (pod.affinity as { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { labelSelector: unknown; topologyKey: string }[] } }).podAffinity;
    expect(affinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      { labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'api' } }, topologyKey: 'kubernetes.io/hostname' },
    ]);
    const [container] = pod.containers;
    expect(container!.args).toEqual(['node', 'scripts/backup.ts']);
    const volumes = pod.volumes as { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }[];
    const mounts = container!.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[];
    expect(volumes.find((v) => v.name === 'uploads')!.persistentVolumeClaim).toEqual({ claimName: 'api-uploads', readOnly: true });
    const env = Object.fromEntries(environmentOf(objects, container!).map((v) => [v.name, v.value]));
    expect(mounts.find((m) => m.name === 'uploads')).toMatchObject({ mountPath: env.UPSTREAM_UPLOAD_DIR, readOnly: true });
    expect(mounts.find((m) => m.name === 'backups')!.mountPath).toBe(env.BACKUP_DIR);
    const claim = volumes.find((v) => v.name === 'backups')!.persistentVolumeClaim!.claimName;
    expect(find(objects, 'PersistentVolumeClaim', claim)).toBeDefined();
    expect(claim).not.toBe('api-uploads');
  });

  it('restricts egress too: DNS for all, the back office to the API and https, the API and the migration to PostgreSQL (and https for the API), PostgreSQL to nothing (ADR 058)', () => {
    type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: { matchLabels: Record<string, string> }; ipBlock?: { cidr: string } };
    type Spec = { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[]; egress?: { to?: Peer[]; ports?: { port: number; protocol?: string }[] }[] };
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((p) => [p.metadata.name, p.spec as Spec] as const);
    // Every pod is selected by a policy with Egress among its types: nothing leaves unless a rule lets it.
    for (const workload of workloads(objects)) {
      const labels = (podSpecOf(workload) ? ((workload.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {}) : {}) as Record<
        string,
        string
      >;
      const selecting = policies.filter(([, spec]) => Object.entries(spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v));
      expect(
        selecting.some(([, spec]) => spec.policyTypes.includes('Egress')),
        workload.metadata.name,
      ).toBe(true);
    }
    const rules = (name: string) =>
      (policies.find(([n]) => n === name)![1].egress ?? []).flatMap((rule) =>
        (rule.ports ?? [{ port: 0 }]).map(
          (port) =>
            `${(rule.to ?? [{}]).map((peer) => (peer.podSelector ? `pod:${peer.podSelector.matchLabels['app.kubernetes.io/name']}` : peer.namespaceSelector ? `ns:${peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name']}` : peer.ipBlock ? `ip:${peer.ipBlock.cidr}` : 'any')).join('|')}:${port.port}`,
        ),
      );
    expect(rules('dns-egress')).toEqual(['ns:kube-system:53', 'ns:kube-system:53']);
    expect(rules('backoffice').sort()).toEqual(['any:443', 'pod:api:4010']);
    expect(rules('api').sort()).toEqual(['any:443', 'pod:postgres|ip:0.0.0.0/0:5432']);
    expect(rules('migrate')).toEqual(['pod:postgres|ip:0.0.0.0/0:5432']);
    expect(rules('backup')).toEqual(['pod:postgres|ip:0.0.0.0/0:5432']);
    expect(policies.find(([n]) => n === 'postgres')![1].egress).toBeUndefined();
  });

  it('uses one image for the back office, the API and the migration, set by the overlay', () => {
    const images = new Set(
      workloads(objects).flatMap((w) =>
        podSpecOf(w)!
          .containers.filter((c) => c.name !== 'postgres')
          .map((c) => c.image),
      ),
    );
    expect([...images]).toEqual([overlay === 'demo' ? 'bike-backoffice:demo' : 'registry.example.com/bike-backoffice:0.1.0']);
  });
});

describe('deploy/kubernetes schema check', () => {
  it('refuses what the Kubernetes schemas refuse', async () => {
    const deployment = structuredClone(find(rendered.demo, 'Deployment', 'backoffice')!);
    (deployment.spec as { replicas: unknown }).replicas = 'two';
    await expect(kubernetesModel(deployment).then((m) => m.validate())).rejects.toThrow(/replicas/);
    const hpa = structuredClone(find(rendered.demo, 'HorizontalPodAutoscaler', 'backoffice')!);
    delete (hpa.spec as { maxReplicas?: number }).maxReplicas;
    await expect(kubernetesModel(hpa).then((m) => m.validate())).rejects.toThrow(/maxReplicas/);
  });

  it('refuses a field the Kubernetes types do not know', { timeout: 60_000 }, () => {
    const deployment = structuredClone(find(rendered.demo, 'Deployment', 'backoffice')!);
    (podSpecOf(deployment)!.containers[0] as Record<string, unknown>).readinesProbe = { httpGet: { path: '/readyz', port: 'http' } };
    expect(unknownFieldErrors([deployment], 'misspelt').join('\n')).toMatch(/readinesProbe/);
  });
});

describe('deploy/kubernetes secrets', () => {
  it('keeps placeholders in the base that no program accepts, demo values in demo, and none in production', () => {
    const base = renderKustomization(join(deploy, 'kubernetes', 'base'));
    const placeholders = base.filter((o) => o.kind === 'Secret').flatMap((o) => Object.values(o.stringData as Record<string, string>));
    expect(new Set(placeholders)).toEqual(new Set(['REPLACE_ME']));
    expect(() => loadEnv({ COOKIE_SECRETS: 'REPLACE_ME' })).toThrow(/COOKIE_SECRETS/);
    expect(() => loadUpstreamEnv({ DATABASE_URL: 'REPLACE_ME', AUDIT_KEY: 'REPLACE_ME' })).toThrow(/DATABASE_URL[\s\S]*AUDIT_KEY/);

    expect(rendered.production.filter((o) => o.kind === 'Secret')).toEqual([]);
    const demoValues = rendered.demo
      .filter((o) => o.kind === 'Secret')
      .flatMap((o) => Object.values(o.data as Record<string, string>).map((v) => Buffer.from(v, 'base64').toString()));
    expect(demoValues.length).toBeGreaterThanOrEqual(7);
    for (const value of demoValues) expect(value).toMatch(/demo-only/);
    // PostgreSQL only in demo; production names an external server.
    expect(find(rendered.demo, 'StatefulSet', 'postgres')).toBeDefined();
    expect(rendered.production.some((o) => o.metadata.name === 'postgres' && o.kind !== 'NetworkPolicy')).toBe(false);
  });
});

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  env_file?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  read_only?: boolean;
  cap_drop?: string[];
  cap_add?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  ports?: string[];
}

describe('deploy/compose.yaml', () => {
  const compose = parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;
  const envFile = (path: string) =>
    Object.fromEntries(
      readFileSync(join(deploy, path), 'utf8')
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('#'))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  const envOf = (name: string) => ({ ...Object.assign({}, ...(services[name]!.env_file ?? []).map(envFile)), ...services[name]!.environment }) as Record<string, string>;

  it('runs PostgreSQL, the migration, the API, two back offices and HAProxy, each started when what it needs is ready', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'backoffice-1', 'backoffice-2', 'backup', 'haproxy', 'migrate', 'postgres']);
    for (const name of ['postgres', 'api', 'backoffice-1', 'backoffice-2', 'haproxy']) expect(services[name]!.healthcheck, name).toBeDefined();
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.api!.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
    for (const name of ['backoffice-1', 'backoffice-2']) {
      expect(services[name]!.depends_on).toEqual({ api: { condition: 'service_healthy' } });
      expect(services[name]!.healthcheck!.test.join(' ')).toContain('/readyz');
    }
    expect(services.haproxy!.depends_on).toEqual({ 'backoffice-1': { condition: 'service_healthy' }, 'backoffice-2': { condition: 'service_healthy' } });
    expect(services.migrate!.command).toEqual(['node', 'scripts/migrate.ts']);
    for (const name of ['migrate', 'api', 'backoffice-1', 'backoffice-2', 'backup'])
      expect(services[name]).toMatchObject({ image: 'bike-backoffice:local', read_only: true, cap_drop: ['ALL'] });
  });

  it('hardens PostgreSQL as the app services, and publishes HAProxy on loopback only, since the secrets are public demo ones (ADR 058)', () => {
    expect(services.postgres).toMatchObject({ read_only: true, cap_drop: ['ALL'], security_opt: ['no-new-privileges:true'] });
    expect(services.postgres!.tmpfs).toEqual(expect.arrayContaining(['/tmp', '/var/run/postgresql']));
    // Only what the image's entrypoint needs to hand its data directory to the postgres user.
    expect([...(services.postgres!.cap_add ?? [])].sort()).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID']);
    for (const [name, service] of Object.entries(services)) for (const port of service.ports ?? []) expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:/);
    expect(services.haproxy!.ports).toEqual(['127.0.0.1:8080:8080']);
  });

  it('keeps secrets out of the compose file: only in env files of clearly demo values', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const key of Object.keys(service.environment ?? {})) expect(SECRET_VARS, `${name}: ${key}`).not.toContain(key);
      for (const file of service.env_file ?? []) {
        expect(file).toMatch(/^compose-demo\//);
        for (const [key, value] of Object.entries(envFile(file))) if (SECRET_VARS.includes(key)) expect(value, `${file}: ${key}`).toMatch(/demo-only/);
      }
    }
  });

  it('gives each program variables it knows, and a configuration it starts with', () => {
    for (const name of ['backoffice-1', 'backoffice-2']) {
      for (const key of Object.keys(envOf(name))) expect(BACK_OFFICE_VARS.has(key), `${name}: ${key}`).toBe(true);
    }
    for (const name of ['api', 'migrate', 'backup']) {
      for (const key of Object.keys(envOf(name))) expect(UPSTREAM_VARS.has(key), `${name}: ${key}`).toBe(true);
    }
    const backOffice = loadEnv({ NODE_ENV: 'production', ...envOf('backoffice-1') });
    const api = loadUpstreamEnv(envOf('api'));
    expect(backOffice.UPSTREAM_FORWARDED_SECRET).toBe(api.UPSTREAM_FORWARDED_SECRET);
    // The migration as the tables' owner (PostgreSQL's user), the API as its own role that the migration grants (ADR 067).
    const migrate = loadUpstreamEnv(envOf('migrate'));
    expect(migrate.DATABASE_URL).toContain(envFile('compose-demo/postgres.env').POSTGRES_PASSWORD);
    expect(new URL(migrate.DATABASE_URL!).username).toBe(envFile('compose-demo/postgres.env').POSTGRES_USER);
    expect(migrate.API_DATABASE_URL).toBe(api.DATABASE_URL);
    expect(new URL(api.DATABASE_URL!).username).not.toBe(envFile('compose-demo/postgres.env').POSTGRES_USER);
  });

  it('writes the change history’s head (AUDIT_HEAD_FILE) to a volume of its own, outside the read-only root (ADR 059, 067)', () => {
    const api = loadUpstreamEnv(envOf('api'));
    expect(services.api!.read_only).toBe(true);
    const volumes = (services.api as { volumes: string[] }).volumes;
    const dir = api.AUDIT_HEAD_FILE!.slice(0, api.AUDIT_HEAD_FILE!.lastIndexOf('/'));
    const mount = volumes.find((v) => v.split(':')[1] === dir);
    expect(mount, `a volume at ${dir}`).toBeDefined();
    const [name, , mode] = mount!.split(':');
    expect(mode).toBeUndefined();
    expect(Object.keys((parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8')) as { volumes: Record<string, unknown> }).volumes)).toContain(name);
    expect(name).not.toBe('uploads');
    // The image creates the mount point owned by the app's user, so a new named volume is writable by it.
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toMatch(new RegExp(`chown node:node [^\\n]*${dir.replaceAll('/', '\\/')}`));
  });

  it("backs up nightly to a volume of its own: the database and the uploads, read-only, with the API's database and upload store", () => {
    const backup = services.backup!;
    expect(backup.command!.join(' ')).toMatch(/while true; do node scripts\/backup\.ts; sleep 86400; done/);
    expect(backup.depends_on).toEqual({ api: { condition: 'service_healthy' } });
    const volumes = (backup as { volumes: string[] }).volumes;
    expect(volumes).toContain('uploads:/var/lib/bike/uploads:ro');
    expect(volumes.some((v) => v.startsWith('backups:'))).toBe(true);
    const env = loadUpstreamEnv(envOf('backup'));
    const api = loadUpstreamEnv(envOf('api'));
    expect(env).toMatchObject({ DATABASE_URL: api.DATABASE_URL, UPSTREAM_UPLOAD_DIR: api.UPSTREAM_UPLOAD_DIR, BACKUP_KEEP: 14 });
    expect(volumes).toContain(`backups:${env.BACKUP_DIR}`);
  });

  it('puts HAProxy in front: round robin, checks on /readyz, X-Forwarded-For, both replicas', () => {
    const cfg = readFileSync(join(deploy, 'haproxy', 'haproxy.cfg'), 'utf8');
    expect(cfg).toMatch(/^\s*balance roundrobin$/m);
    expect(cfg).toMatch(/^\s*http-check send meth GET uri \/readyz$/m);
    expect(cfg).toMatch(/^\s*option forwardfor$/m);
    expect(cfg).toMatch(/^\s*server backoffice-1 backoffice-1:3000$/m);
    expect(cfg).toMatch(/^\s*server backoffice-2 backoffice-2:3000$/m);
    // Retries only where nothing reached a server: a POST is never sent twice.
    expect(cfg).toMatch(/^\s*retry-on conn-failure empty-response$/m);
  });

  it.skipIf(!hasCommand('haproxy'))('has an HAProxy configuration that HAProxy accepts', () => {
    const output = execFileSync('haproxy', ['-c', '-f', join(deploy, 'haproxy', 'haproxy.cfg')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(output).toContain('Configuration file is valid');
  });
});

/** Series Prometheus makes itself, not the app. */
const PROMETHEUS_SERIES = new Set(['up']);
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: identifiers outside strings, label matchers, ranges and grouping clauses that are not functions. */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  // An identifier followed by `(` is a function; a number's exponent or a duration is no name.
  const names = [...bare.matchAll(/(?<![\w$.:])([a-zA-Z_:][\w:]*)(\s*\()?/g)].filter((m) => !m[2]).map((m) => m[1]!);
  return names.filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
}

async function exportedSeries(): Promise<Set<string>> {
  const series = new Set<string>();
  for (const metric of await createMetrics().registry.getMetricsAsJSON()) {
    series.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(metric.name + suffix);
    if (String(metric.type) === 'summary') for (const suffix of ['_sum', '_count']) series.add(metric.name + suffix);
  }
  return series;
}

describe('deploy/prometheus and deploy/grafana', () => {
  const alerts = parse(readFileSync(join(deploy, 'prometheus', 'alerts.yaml'), 'utf8')) as { groups: { rules: { alert: string; expr: string; for?: string }[] }[] };
  const dashboard = JSON.parse(readFileSync(join(deploy, 'grafana', 'backoffice-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
    templating: { list: { definition?: string }[] };
  };

  it('finds the metric names of an expression', () => {
    expect(metricNamesIn('histogram_quantile(0.95, sum by (le, route) (rate(x_seconds_bucket{job="a", route=~"/b.*"}[$__rate_interval])))')).toEqual(['x_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total{status=~"5.."}[5m])) / sum(rate(a_total[5m])) > 0.05')).toEqual(['a_total', 'a_total']);
    expect(metricNamesIn('up{job="backoffice"} == 0 and on(instance) b')).toEqual(['up', 'b']);
  });

  it('alerts only on metrics the back office exports (histogram series mapped to their metric)', async () => {
    const exported = await exportedSeries();
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining(['BackofficeDown', 'BackofficeHigh5xxRatio', 'BackofficeSlowRequests', 'BackofficeUpstreamErrors', 'BackofficeEventLoopLag']),
    );
    for (const rule of rules) {
      const names = metricNamesIn(rule.expr);
      expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names) expect(exported.has(name) || PROMETHEUS_SERIES.has(name), `${rule.alert}: ${name}`).toBe(true);
    }
  });

  it('charts only metrics the back office exports', async () => {
    const exported = await exportedSeries();
    const queries = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: p.title, expr: t.expr }))),
      ...dashboard.templating.list.flatMap((v) => (v.definition ? [{ where: 'variable', expr: v.definition.replace(/^label_values\((.*),\s*\w+\)$/, '$1') }] : [])),
    ];
    expect(queries.length).toBeGreaterThan(10);
    for (const { where, expr } of queries) {
      const names = metricNamesIn(expr);
      expect(names.length, where).toBeGreaterThan(0);
      for (const name of names) expect(exported.has(name), `${where}: ${name}`).toBe(true);
    }
  });
});

function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
