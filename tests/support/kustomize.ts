import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * A small kustomize for the tests (no kubectl needed): renders a kustomization directory with the features
 * deploy/kubernetes uses — resources (files and directories), namespace, images, secretGenerator and
 * configMapGenerator (literals; create, replace, merge; without name hashes), and patches (strategic merge for
 * maps and lists of named items, `$patch: delete`, and JSON 6902 add/replace/remove). Anything else in a
 * kustomization is refused, so a manifest that needs more fails here rather than rendering wrongly.
 */

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches', 'secretGenerator', 'configMapGenerator', 'generatorOptions']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'CustomResourceDefinition']);
/** The merge keys of the lists a strategic merge patch merges item by item (others are replaced whole). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
};

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: { path?: string; patch?: string; target?: { kind?: string; name?: string } }[];
  secretGenerator?: Generator[];
  configMapGenerator?: Generator[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
}
interface Generator {
  name: string;
  behavior?: 'create' | 'replace' | 'merge';
  literals?: string[];
  type?: string;
}

export function parseYamlDocuments(text: string, where: string): Json[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors[0]!.message}`);
    const value = doc.toJSON() as Json;
    return value === null ? [] : [value];
  });
}

function readYamlFile(path: string): Json[] {
  return parseYamlDocuments(readFileSync(path, 'utf8'), path);
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => structuredClone(value);

export function renderKustomization(dir: string): K8sObject[] {
  const [kustomization] = readYamlFile(join(dir, 'kustomization.yaml')) as [Kustomization & JsonObject];
  const unknown = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unknown.length > 0) throw new Error(`${dir}: the test renderer does not support ${unknown.join(', ')}`);

  let objects: K8sObject[] = [];
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? renderKustomization(path) : (readYamlFile(path) as unknown as K8sObject[])));
  }

  const generators = [
    ...(kustomization.secretGenerator ?? []).map((g) => ['Secret', g] as const),
    ...(kustomization.configMapGenerator ?? []).map((g) => ['ConfigMap', g] as const),
  ];
  if (generators.length > 0 && !kustomization.generatorOptions?.disableNameSuffixHash) throw new Error(`${dir}: generators need disableNameSuffixHash in the test renderer`);
  for (const [kind, generator] of generators) objects = generate(objects, kind, generator, dir);

  for (const patch of kustomization.patches ?? []) objects = applyPatch(objects, patch, dir);

  if (kustomization.namespace) {
    for (const object of objects) if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  for (const image of kustomization.images ?? []) {
    for (const container of containersOf(objects)) {
      const { name, tag } = splitImage(container.image);
      if (name !== image.name) continue;
      const newName = image.newName ?? name;
      container.image = image.digest ? `${newName}@${image.digest}` : `${newName}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
    }
  }
  return objects;
}

function splitImage(image: string): { name: string; tag?: string } {
  const at = image.indexOf('@');
  const bare = at >= 0 ? image.slice(0, at) : image;
  const colon = bare.lastIndexOf(':');
  return colon > bare.lastIndexOf('/') ? { name: bare.slice(0, colon), tag: bare.slice(colon + 1) } : { name: bare };
}

export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

/** The pod template of a workload (Deployment, StatefulSet, DaemonSet, Job, CronJob), if it has one. */
export function podSpecOf(object: K8sObject): (JsonObject & { containers: Container[]; initContainers?: Container[] }) | undefined {
  const spec = object.spec as JsonObject | undefined;
  // A CronJob's pods are its job template's.
  const jobSpec = (spec?.jobTemplate as JsonObject | undefined)?.spec as JsonObject | undefined;
  const template = (jobSpec ?? spec)?.template as JsonObject | undefined;
  return template?.spec as (JsonObject & { containers: Container[] }) | undefined;
}

export function containersOf(objects: K8sObject[]): Container[] {
  return objects.flatMap((object) => {
    const pod = podSpecOf(object);
    return pod ? [...pod.containers, ...(pod.initContainers ?? [])] : [];
  });
}

function generate(objects: K8sObject[], kind: 'Secret' | 'ConfigMap', generator: Generator, dir: string): K8sObject[] {
  const values = Object.fromEntries(
    (generator.literals ?? []).map((literal) => {
      const eq = literal.indexOf('=');
      return [literal.slice(0, eq), literal.slice(eq + 1)];
    }),
  );
  const data = kind === 'Secret' ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) : values;
  const behavior = generator.behavior ?? 'create';
  const existing = objects.find((o) => o.kind === kind && o.metadata.name === generator.name);
  if (behavior === 'create') {
    if (existing) throw new Error(`${dir}: ${kind} ${generator.name} exists; use behavior replace or merge`);
    const created: K8sObject = { apiVersion: 'v1', kind, metadata: { name: generator.name }, data };
    if (kind === 'Secret') created.type = generator.type ?? 'Opaque';
    return [...objects, created];
  }
  if (!existing) throw new Error(`${dir}: ${kind} ${generator.name} to ${behavior} is not in the resources`);
  if (behavior === 'replace') {
    delete existing.stringData;
    existing.data = data;
  } else {
    existing.data = { ...(existing.data as JsonObject | undefined), ...data };
  }
  return objects;
}

function applyPatch(objects: K8sObject[], patch: NonNullable<Kustomization['patches']>[number], dir: string): K8sObject[] {
  const docs = patch.path ? readYamlFile(resolve(dir, patch.path)) : parseYamlDocuments(patch.patch ?? '', `${dir} inline patch`);
  if (docs.length === 1 && Array.isArray(docs[0])) {
    const targets = objects.filter((o) => (!patch.target?.kind || o.kind === patch.target.kind) && (!patch.target?.name || o.metadata.name === patch.target.name));
    if (targets.length === 0) throw new Error(`${dir}: JSON 6902 patch matches nothing`);
    for (const target of targets) jsonPatch(target as unknown as JsonObject, docs[0] as unknown as { op: string; path: string; value?: Json }[]);
    return objects;
  }
  let result = objects;
  for (const doc of docs as JsonObject[]) {
    const meta = doc.metadata as { name: string };
    const target = result.find((o) => o.kind === doc.kind && o.metadata.name === meta.name);
    if (!target) throw new Error(`${dir}: patch for ${String(doc.kind)} ${meta.name} matches nothing`);
    if (doc.$patch === 'delete') result = result.filter((o) => o !== target);
    else strategicMerge(target as unknown as JsonObject, doc);
  }
  return result;
}

function strategicMerge(target: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    const current = target[key];
    const mergeKey = MERGE_KEYS[key];
    if (value === null) delete target[key];
    else if (isObject(value) && isObject(current)) strategicMerge(current, value);
    else if (Array.isArray(value) && Array.isArray(current) && mergeKey) {
      for (const item of value as JsonObject[]) {
        const match = (current as JsonObject[]).find((c) => c[mergeKey] === item[mergeKey]);
        if (match) strategicMerge(match, item);
        else current.push(clone(item));
      }
    } else target[key] = clone(value);
  }
}

function jsonPatch(target: JsonObject, operations: { op: string; path: string; value?: Json }[]): void {
  for (const { op, path, value } of operations) {
    const parts = path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop()!;
    let parent: Json = target;
    for (const part of parts) {
      parent = Array.isArray(parent) ? parent[Number(part)]! : (parent as JsonObject)[part]!;
      if (parent === undefined) throw new Error(`JSON 6902: ${path} does not exist`);
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(index, 0, clone(value!));
      else if (op === 'replace') parent[index] = clone(value!);
      else if (op === 'remove') parent.splice(index, 1);
      else throw new Error(`JSON 6902: ${op} is not supported`);
    } else {
      const object = parent as JsonObject;
      if ((op === 'replace' || op === 'remove') && !(last in object)) throw new Error(`JSON 6902: ${path} does not exist`);
      if (op === 'add' || op === 'replace') object[last] = clone(value!);
      else if (op === 'remove') delete object[last];
      else throw new Error(`JSON 6902: ${op} is not supported`);
    }
  }
}

/** For comparing renderings: lists of named items sorted by name, so merge order does not count. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    const named = items.every((item) => isObject(item) && typeof item.name === 'string');
    return named ? [...(items as JsonObject[])].sort((a, b) => String(a.name).localeCompare(String(b.name))) : items;
  }
  if (isObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  }
  return value;
}
