// The pods module's deployment settings (manifest `settings`; spec "Pods": server settings) and the names they use.
import { Type, type Static } from '@quad/core';

/** The spec's key for the module: its scope, job, limit, settings and events are `podhost.*` / `PODHOST_*`. */
export const MODULE = 'podhost';
/** The only provider (spec: "The provider named hostprov is the only provider"). */
export const PROVIDER = 'hostprov';
/** The org secret holding the provider API key (set on the Integrations tab). */
export const API_KEY_SECRET = 'hostprov_api_key';
export const PODS_LIMIT = 'podhost.pods';

export const PodsSettingsSchema = Type.Object({
  // No default: no image is published for everyone to pull. An operator builds plugins/pods/image and names it here,
  // or each org names its own; until then a create that names no image is refused with what to set (400 no_pod_image).
  PODHOST_POD_IMAGE: Type.Optional(Type.String({ minLength: 1, maxLength: 500, legacyNames: ['COMPUTE_POD_IMAGE'], description: 'the pod image when neither the create body nor the org\'s pod_image names one (build plugins/pods/image); unset: such a create is refused' })),
  PODHOST_CLI_NAME: Type.String({ default: 'podhost', pattern: '^[a-z][a-z0-9-]{0,31}$', legacyNames: ['COMPUTE_CLI_NAME'], description: 'the CLI\'s name in sign-in pages and errors' }),
  ACCOUNTS_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', description: 'the service\'s public base URL for the CLI sign-in: <ACCOUNTS_BASE_URL>/api/compute/cli/callback must be a redirect of the Discord app' })),
  HOSTPROV_API_URL: Type.String({ default: 'https://api.runpod.io/v2', minLength: 1, description: 'base URL of the pod provider\'s v2 REST API' }),
  PODHOST_PROVIDER_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 100, maximum: 300_000, description: 'deadline of one request to the pod provider, answer included, in ms (then 424)' }),
  PODHOST_SSH_CONNECT_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 120_000, description: 'deadline for reaching a pod over SSH (connection, handshake and login), in ms (then 502 on the file routes)' }),
});
export type PodsSettings = Static<typeof PodsSettingsSchema>;

/** Named by the spec or the provider outside PODHOST_*. */
export const CLAIMED_SETTINGS = ['HOSTPROV_API_URL', 'ACCOUNTS_BASE_URL'];
