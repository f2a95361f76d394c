// Request and response shapes of the hosting routes and tools (the spec leaves paths under /apps, bodies and
// answers to us: README "Routes").
import { ErrorBody, OrgRef, Type } from '@quad/core';
import { Cpu, Gpu, ManifestFields, NAME_PATTERN, Port } from './app-manifest.js';

export const officer = { auth: 'officer' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export const AppName = Type.String({ pattern: NAME_PATTERN, description: 'a slug: a lower-case letter, then letters, digits and dashes, 40 characters or fewer' });
export const AppParams = Type.Object({ org: OrgRef, name: AppName });

export const RegisterBody = Type.Object({ name: AppName, ...ManifestFields }, { additionalProperties: false });
export const Tag = Type.String({ pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$', description: 'an image tag, e.g. v1.2.0' });
export const Digest = Type.String({ pattern: '^sha256:[a-f0-9]{64}$', description: 'an image digest, sha256:<64 hex>' });
export const DeployBody = Type.Object({ tag: Type.Optional(Tag), digest: Type.Optional(Digest) }, { additionalProperties: false, description: 'exactly one of tag and digest' });
export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991, description: 'the id of the last deploy of the previous page' })),
}, { additionalProperties: false });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });
const Status = Type.Union(['queued', 'starting', 'healthy', 'failed'].map((s) => Type.Literal(s)));

export const DeployOut = Type.Object({
  id: Type.Integer(),
  tag: Nullable(Type.String()),
  digest: Nullable(Type.String()),
  image: Type.String({ description: 'what the provider pulls: repo:tag or repo@digest' }),
  status: Status,
  trigger: Type.Union(['officer', 'tool', 'rollback', 'auto_rollback'].map((s) => Type.Literal(s))),
  rollback_of: Nullable(Type.Integer({ description: 'the deploy a roll back returns to' })),
  error: Nullable(Type.String()),
  created_by: Nullable(Type.String()),
  created_at: Time,
  started_at: Nullable(Time),
  health_deadline_at: Nullable(Time),
  finished_at: Nullable(Time),
});

export const ManifestOut = Type.Object({
  image: Type.String(),
  gpu: Nullable(Type.Required(Gpu)),
  cpu: Nullable(Cpu),
  ports: Type.Array(Port),
  env: Type.Record(Type.String(), Type.String()),
  secret_env: Type.Record(Type.String(), Type.String(), { description: 'ENV_NAME: key of the org secret hostprov.env_<key> (never its value)' }),
  health: Type.Object({ port: Type.Integer(), path: Type.String(), expected_status: Type.Integer(), timeout_seconds: Type.Integer(), deadline_seconds: Type.Integer() }),
});

export const AppOut = Type.Object({
  name: Type.String(),
  manifest: ManifestOut,
  pod_id: Nullable(Type.String()),
  current_deploy: Nullable(DeployOut),
  latest_deploy: Nullable(DeployOut),
  deploying: Type.Boolean({ description: 'a deploy is queued or starting' }),
  health: Type.Object({
    status: Type.Union([Type.Literal('healthy'), Type.Literal('unhealthy'), Type.Literal('unknown')]),
    detail: Nullable(Type.String()),
    checked_at: Nullable(Time),
  }),
  created_by: Nullable(Type.String()),
  created_at: Time,
  updated_at: Time,
});

export const HistoryOut = Type.Object({
  deploys: Type.Array(DeployOut, { description: 'newest first' }),
  next_before: Nullable(Type.Integer({ description: 'send as before for the next page; null on the last' })),
});

export const PodOut = Type.Object({
  pod_id: Type.String(),
  status: Type.String({ description: 'the provider\'s status (RUNNING, EXITED…), GONE when it no longer has the pod' }),
  name: Nullable(Type.String()),
  image: Nullable(Type.String()),
  gpu: Nullable(Type.Object({ type_id: Type.String(), count: Type.Integer() })),
  cpu: Nullable(Type.Object({ flavor: Type.String(), vcpus: Type.Integer() })),
  cost_per_hour: Nullable(Type.Number()),
});
