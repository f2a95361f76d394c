// One health check of an app's pod through the provider's HTTP proxy (setting HOSTPROV_PROXY_URL): GET
// <proxy of pod and port><path>, healthy when the status is the expected one. The URL comes from the operator's
// setting, so the safe fetcher runs it as trusted; it follows no redirect and reads at most 64 KB, within the
// manifest's timeout.
import { safeFetch, SafeFetchError } from '@quad/core';
import type { AppManifest } from './app-manifest.js';
import { proxyUrl, type HostingSettings } from './settings.js';

export interface HealthResult { healthy: boolean; detail: string }

export async function checkHealth(settings: HostingSettings, podId: string, health: AppManifest['health']): Promise<HealthResult> {
  const url = `${proxyUrl(settings, podId, health.port)}${health.path}`;
  const what = `GET ${health.path} on port ${health.port}`;
  try {
    const res = await safeFetch(url, { trusted: true, timeoutMs: health.timeout_seconds * 1000, maxRedirects: 0, maxBytes: 64 * 1024 });
    if (res.status === health.expected_status) return { healthy: true, detail: `${what} answered ${res.status}` };
    return { healthy: false, detail: `${what} answered ${res.status}, expected ${health.expected_status}` };
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    if (err.reason === 'timeout') return { healthy: false, detail: `${what} did not answer within ${health.timeout_seconds} s` };
    if (err.reason === 'too_large') return { healthy: false, detail: `${what} answered more than 64 KB` };
    return { healthy: false, detail: `${what} could not be reached through the provider's proxy` };
  }
}
