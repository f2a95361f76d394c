// Request and answer shapes of the pods routes (spec "Pod create body", "Officer pod routes").
import { ErrorBody, OrgParams, Type } from '@quad/core';
import { SESSION_MAX_HOURS } from './sessions.js';

export const SnowflakePattern = '^[0-9]{1,20}$';
/** The provider's pod ids (letters, digits, - and _). */
export const PodIdPattern = '^[A-Za-z0-9_-]{1,64}$';
/** An environment variable's name, as a shell takes it. */
export const EnvNamePattern = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
export const MAX_ALLOWED_USERS = 500;

/** Every pods route so far is an officer's of the org. */
export const officer = { auth: 'officer' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const ProviderErrors = { 409: ErrorBody, 424: ErrorBody, 503: ErrorBody };
export const PodParams = Type.Object({ org: OrgParams.properties.org, pod_id: Type.String({ pattern: PodIdPattern, description: 'the provider\'s pod id' }) });

const AllowedUsers = Type.Array(Type.String({ pattern: SnowflakePattern }), { maxItems: MAX_ALLOWED_USERS, uniqueItems: true, description: 'chat user ids of the members who may use the pod' });

/** Every field optional (spec "Pod create body"); the rules between fields are checked in create-body.ts. */
export const CreateBody = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 64, description: 'default hostprov, the only provider' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  image_name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'default: the org\'s pod_image, else PODHOST_POD_IMAGE' })),
  gpu_type_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  gpu_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, description: 'GPU pods; default 1' })),
  use_cpu_only: Type.Optional(Type.Boolean({ description: 'true makes a CPU pod' })),
  cpu_flavor: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  vcpu_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 512, description: 'CPU pods; a power of two' })),
  cloud_type: Type.Optional(Type.String({ pattern: '^[A-Z_]{1,32}$', description: 'hosting tier, e.g. COMMUNITY or SECURE' })),
  volume_in_gb: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'a GPU pod gets a volume when 10 or more; a CPU pod has none' })),
  container_disk_in_gb: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  volume_mount_path: Type.Optional(Type.String({ pattern: '^/[^\\0]{0,254}$', description: 'absolute path; default /workspace' })),
  env: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), { maxProperties: 100, description: 'names as a shell takes them (letters, digits, _; not starting with a digit or PODHOST_)' })),
  is_public: Type.Optional(Type.Boolean({ description: 'any member of the org\'s server may use it' })),
  allowed_users: Type.Optional(AllowedUsers),
}, { additionalProperties: false });

export const AccessBody = Type.Object({
  is_public: Type.Optional(Type.Boolean()),
  allowed_users: Type.Optional(AllowedUsers),
}, { additionalProperties: false, minProperties: 1 });

export const ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
export type PodAction = (typeof ACTIONS)[number];
export const ActionBody = Type.Object({ action: Type.Union(ACTIONS.map((a) => Type.Literal(a))) }, { additionalProperties: false });

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Number>>(s: T) => Type.Union([s, Type.Null()]);

export const PodOut = Type.Object({
  pod_id: Type.String(),
  provider: Type.String(),
  name: Type.String(),
  image: Type.String(),
  kind: Type.Union([Type.Literal('gpu'), Type.Literal('cpu')]),
  gpu_type_id: Nullable(Type.String()), gpu_count: Nullable(Type.Integer()),
  cpu_flavor: Nullable(Type.String()), vcpu_count: Nullable(Type.Integer()),
  cloud_type: Nullable(Type.String()),
  container_disk_in_gb: Nullable(Type.Integer()), volume_in_gb: Nullable(Type.Integer()), volume_mount_path: Nullable(Type.String()),
  env_names: Type.Array(Type.String(), { description: 'names of the environment variables (their values stay with the provider)' }),
  is_public: Type.Boolean(),
  allowed_users: Type.Array(Type.String()),
  status: Type.String({ description: 'live from the provider: RUNNING, EXITED… GONE when the provider no longer has it, UNKNOWN when it could not be asked' }),
  status_reason: Nullable(Type.String({ description: 'why the status is UNKNOWN' })),
  ssh: Type.Union([Type.Object({ host: Type.String(), port: Type.Integer() }), Type.Null()]),
  cost_per_hour: Nullable(Type.Number()),
  created_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ActionOut = Type.Object({
  pod_id: Type.String(),
  action: Type.String(),
  /** The pod after the action; null after terminate. */
  pod: Type.Union([PodOut, Type.Null()]),
});

export const SettingsBody = Type.Object({
  pod_image: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()], { description: 'the org\'s default pod image; null clears it' }),
}, { additionalProperties: false });
export const SettingsOut = Type.Object({
  pod_image: Nullable(Type.String()),
  default_image: Nullable(Type.String({ description: 'PODHOST_POD_IMAGE, used when pod_image is null; null when the deployment sets none (then a create must name its image)' })),
  provider_connected: Type.Boolean({ description: 'whether the org has set hostprov_api_key' }),
});

/** Member routes: a member's session, or their CLI token (podhost:connect); membership is checked at each request. */
export const memberOrCli = { auth: 'memberOrCli' as const };

export const MePodOut = Type.Object({
  pod_id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('gpu'), Type.Literal('cpu')]),
  gpu_type_id: Nullable(Type.String()), gpu_count: Nullable(Type.Integer()),
  cpu_flavor: Nullable(Type.String()), vcpu_count: Nullable(Type.Integer()),
  status: Type.String(),
  access: Type.Union([Type.Literal('public'), Type.Literal('allowed'), Type.Literal('officer')], { description: 'why the caller may connect: the pod is public, lists them, or they are an officer of the org (root)' }),
});

export const ConnectBody = Type.Object({
  public_key: Type.String({ minLength: 1, maxLength: 16_384, description: 'the member\'s SSH public key, as in ~/.ssh/id_ed25519.pub' }),
}, { additionalProperties: false });

export const ConnectOut = Type.Object({
  pod_id: Type.String(),
  host: Type.String(),
  port: Type.Integer(),
  user: Type.String({ description: 'the SSH login (root; a member\'s certificate forces podhost-login into their own account)' }),
  username: Type.String({ description: 'the member\'s account on the pod (podhost_<username>)' }),
  user_folder: Type.String(),
  is_admin: Type.Boolean({ description: 'an officer\'s root certificate, with no forced command' }),
  principal: Type.String(),
  certificate: Type.String({ description: 'OpenSSH user certificate for public_key (save as <key>-cert.pub)' }),
  host_ca: Type.String({ description: 'the org\'s host CA public key: the only key trusted for the pod\'s host (known_hosts `@cert-authority * <host_ca>`, with HostKeyAlias host_key_alias)' }),
  host_key_alias: Type.String({ description: 'the name the pod\'s host certificate is for: ssh\'s HostKeyAlias, with StrictHostKeyChecking yes' }),
  valid_after: Type.String({ format: 'date-time' }),
  valid_before: Type.String({ format: 'date-time' }),
});

/** Sessions (time windows the schedule starts and stops the pod around). */
const ZonedTime = (what: string) => Type.String({
  minLength: 1, maxLength: 64,
  description: `${what}: ISO 8601 with a time zone (Z or an offset), e.g. 2030-06-01T18:00:00+02:00`,
});
export const SessionBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  start_at: ZonedTime('start'),
  stop_at: ZonedTime(`stop: after start_at, ${SESSION_MAX_HOURS} hours or less after it`),
}, { additionalProperties: false });
export const SessionOut = Type.Object({
  id: Type.Integer(),
  pod_id: Type.String(),
  title: Type.String(),
  start_at: Type.String({ format: 'date-time' }),
  stop_at: Type.String({ format: 'date-time' }),
  pod_started_by_schedule: Type.Boolean({ description: 'the schedule started the pod for this session (it was not already up)' }),
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
