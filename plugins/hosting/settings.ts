// The hosting module's deployment settings (manifest `settings`): where health checks reach an app's pod (the
// provider's HTTP proxy) and how often a starting deploy is checked.
import { Type, type CoreServices, type Static } from '@quad/core';

export const MODULE = 'hostprov';

export const HostingSettings = Type.Object({
  HOSTPROV_PROXY_URL: Type.String({
    default: 'https://{pod_id}-{port}.proxy.runpod.net', pattern: '^https?://\\S+$',
    description: 'the provider\'s HTTP proxy to a pod\'s port: a URL template with {pod_id} and {port}; the health check path is added to it',
  }),
  HOSTPROV_HEALTH_POLL_SECONDS: Type.Integer({ default: 15, minimum: 1, maximum: 300, description: 'seconds between health checks of a starting deploy' }),
  HOSTPROV_HEALTH_BATCH: Type.Integer({ default: 50, minimum: 1, maximum: 1000, description: 'apps whose health the 5-minute check reads in one run' }),
});
export type HostingSettings = Static<typeof HostingSettings>;

export const settingsOf = (services: CoreServices) => services.moduleSettings<HostingSettings>(MODULE);

/** The proxy URL of a pod's port, without a trailing slash (the health path starts with one). */
export function proxyUrl(settings: HostingSettings, podId: string, port: number): string {
  return settings.HOSTPROV_PROXY_URL
    .replaceAll('{pod_id}', encodeURIComponent(podId))
    .replaceAll('{port}', String(port))
    .replace(/(?<!\/)\/+$/, '');
}
