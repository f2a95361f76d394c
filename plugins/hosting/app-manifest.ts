// An app's manifest: what runs (an image repository; the tag or digest comes with each deploy), on what (exactly one
// of a GPU or a CPU), which ports it exposes, its environment (plain values, and values read from org secrets
// `hostprov.env_<key>` at each deploy) and how its health is checked. TypeBox checks the shapes; `checkManifest`
// checks the rules between fields, each refusal a 400 naming the field.
import { badRequest, Type, type Static } from '@quad/core';

export const NAME_PATTERN = '^[a-z][a-z0-9-]{0,39}$';
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
/** The key part of an org secret `hostprov.env_<key>` (the core's perKey rule). */
export const SECRET_KEY_PATTERN = '^[a-z0-9._-]{1,100}$';
export const SECRET_PREFIX = 'hostprov.env_';
export const HEALTH_DEFAULTS = { path: '/', expected_status: 200, timeout_seconds: 5, deadline_seconds: 600 };

const EnvName = Type.String({ pattern: ENV_NAME_PATTERN });

export const Gpu = Type.Object({
  type_id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9 ._-]+$', description: 'the provider\'s GPU type, e.g. NVIDIA RTX A4000' }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, default: 1 })),
}, { additionalProperties: false });

export const Cpu = Type.Object({
  flavor: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'the provider\'s CPU flavor, e.g. cpu3c' }),
  vcpus: Type.Integer({ minimum: 1, maximum: 128, description: 'a power of two' }),
}, { additionalProperties: false });

export const Port = Type.Object({
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  protocol: Type.Union([Type.Literal('http'), Type.Literal('tcp')]),
}, { additionalProperties: false });

export const Health = Type.Object({
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'one of the app\'s http ports' }),
  path: Type.Optional(Type.String({ pattern: '^/[^\\s#]*$', maxLength: 512, description: `default ${HEALTH_DEFAULTS.path}` })),
  expected_status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: `default ${HEALTH_DEFAULTS.expected_status}` })),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 60, description: `per check; default ${HEALTH_DEFAULTS.timeout_seconds}` })),
  deadline_seconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 7200, description: `a deploy not healthy this long after it started fails; default ${HEALTH_DEFAULTS.deadline_seconds}` })),
}, { additionalProperties: false });

/** The manifest fields of a register or change body. */
export const ManifestFields = {
  image: Type.String({ minLength: 1, maxLength: 255, description: 'registry/repository path without a tag or digest, e.g. ghcr.io/acm/site' }),
  gpu: Type.Optional(Gpu),
  cpu: Type.Optional(Cpu),
  ports: Type.Array(Port, { minItems: 1, maxItems: 20 }),
  env: Type.Optional(Type.Record(EnvName, Type.String({ maxLength: 4096 }), { maxProperties: 100, additionalProperties: false })),
  secret_env: Type.Optional(Type.Record(EnvName, Type.String({ pattern: SECRET_KEY_PATTERN }), {
    maxProperties: 50, additionalProperties: false, description: `ENV_NAME: key; the value is the org secret ${SECRET_PREFIX}<key> (Settings → Secrets), read at each deploy`,
  })),
  health: Health,
};
export const ManifestBody = Type.Object(ManifestFields, { additionalProperties: false });
export type ManifestBody = Static<typeof ManifestBody>;

/** The manifest as stored (defaults filled in) and answered. */
export interface AppManifest {
  image: string;
  gpu: { type_id: string; count: number } | null;
  cpu: { flavor: string; vcpus: number } | null;
  ports: { port: number; protocol: 'http' | 'tcp' }[];
  env: Record<string, string>;
  secret_env: Record<string, string>;
  health: { port: number; path: string; expected_status: number; timeout_seconds: number; deadline_seconds: number };
}

const field = (name: string, message: string) => badRequest(`${name}: ${message}`, 'validation', { field: name });

/** A repository path: lower-case components split by `/`, after an optional registry host (with a port). */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const HOST = '[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\\d{1,5})?';
const IMAGE = new RegExp(`^(?:${HOST}/)?${COMPONENT}(?:/${COMPONENT})*$`);

export function checkImage(image: string): string {
  const trimmed = image.trim();
  if (trimmed.includes('@')) throw field('body.image', 'the repository without a digest: send the digest with each deploy');
  const last = trimmed.split('/').pop()!;
  if (last.includes(':')) throw field('body.image', 'the repository without a tag: send the tag with each deploy (e.g. ghcr.io/acm/site, deploy tag v1)');
  if (!IMAGE.test(trimmed)) throw field('body.image', 'a registry/repository path in lower case, e.g. ghcr.io/acm/site');
  return trimmed;
}

/** The body's manifest with defaults filled in, or a 400 naming the field that breaks a rule. */
export function checkManifest(body: ManifestBody): AppManifest {
  const image = checkImage(body.image);
  if ((body.gpu === undefined) === (body.cpu === undefined)) throw field(body.gpu ? 'body.cpu' : 'body.gpu', 'exactly one of gpu and cpu');
  if (body.cpu && (body.cpu.vcpus & (body.cpu.vcpus - 1)) !== 0) throw field('body.cpu.vcpus', `a power of two (1, 2, 4, 8…), not ${body.cpu.vcpus}`);
  const seen = new Set<number>();
  for (const p of body.ports) {
    if (seen.has(p.port)) throw field('body.ports', `port ${p.port} is listed twice`);
    seen.add(p.port);
  }
  const env = body.env ?? {};
  const secretEnv = body.secret_env ?? {};
  const both = Object.keys(secretEnv).find((name) => name in env);
  if (both) throw field('body.secret_env', `${both} is also in env: a variable comes from one of them`);
  const health = body.health;
  if (!body.ports.some((p) => p.port === health.port && p.protocol === 'http')) {
    throw field('body.health.port', `${health.port} is not one of the app's http ports`);
  }
  return {
    image,
    gpu: body.gpu ? { type_id: body.gpu.type_id, count: body.gpu.count ?? 1 } : null,
    cpu: body.cpu ? { flavor: body.cpu.flavor, vcpus: body.cpu.vcpus } : null,
    ports: body.ports.map((p) => ({ port: p.port, protocol: p.protocol })),
    env,
    secret_env: secretEnv,
    health: {
      port: health.port,
      path: health.path ?? HEALTH_DEFAULTS.path,
      expected_status: health.expected_status ?? HEALTH_DEFAULTS.expected_status,
      timeout_seconds: health.timeout_seconds ?? HEALTH_DEFAULTS.timeout_seconds,
      deadline_seconds: health.deadline_seconds ?? HEALTH_DEFAULTS.deadline_seconds,
    },
  };
}

/** The fields a pod keeps from its creation (the provider updates only image and env). */
export function fixedFieldChanged(from: AppManifest, to: AppManifest): string | null {
  // Compared field by field: a manifest read back from jsonb has its keys in another order.
  const gpu = (m: AppManifest) => (m.gpu ? `${m.gpu.type_id}×${m.gpu.count}` : null);
  const cpu = (m: AppManifest) => (m.cpu ? `${m.cpu.flavor}×${m.cpu.vcpus}` : null);
  const ports = (m: AppManifest) => m.ports.map((p) => `${p.port}/${p.protocol}`).join(',');
  if (gpu(from) !== gpu(to) || cpu(from) !== cpu(to)) return from.gpu ? 'body.gpu' : 'body.cpu';
  if (ports(from) !== ports(to)) return 'body.ports';
  return null;
}
