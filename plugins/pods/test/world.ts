// The world the pods tests start from: the core with the pods plugin (on for the org), a fake provider that knows
// the org's API key, the key set as the org's secret, a deployment pod image, and calls as the org's officer under
// /api/compute/<org>.
import { startFakeHostprov, startMemberWorld, type FakeHostprov, type MemberWorld, type TeardownHost } from '@quad/core/testing';

export const API_KEY = 'hp-test-key';
const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

export interface PodsWorld extends MemberWorld {
  fake: FakeHostprov;
  /** A call as the org's officer (or with `token`), the URL under /api/compute/<org>. */
  asOfficer(method: string, url: string, body?: unknown, token?: string): ReturnType<MemberWorld['call']>;
  /** A pod the officer made (its provider id); throws when the create is refused. */
  createPod(body?: Record<string, unknown>): Promise<string>;
}

/** The deployment's pod image in the pods tests (PODHOST_POD_IMAGE has no default). */
export const TEST_POD_IMAGE = 'example/podhost:1';

export interface PodsWorldOptions {
  /** Settings beside SECRETS_KEY, HOSTPROV_API_URL and PODHOST_POD_IMAGE (TEST_POD_IMAGE; `undefined` unsets it). */
  config?: Record<string, unknown>;
  listen?: boolean;
  /** Set the org's hostprov_api_key. Default: true. */
  connected?: boolean;
}

export async function startPodsWorld(t: TeardownHost, options: PodsWorldOptions = {}): Promise<PodsWorld> {
  const fake = await startFakeHostprov({ apiKey: API_KEY });
  t.teardown(() => fake.close());
  const w = await startMemberWorld(t, {
    plugins: ['./plugins/pods'], orgModules: { podhost: true }, listen: options.listen,
    config: { SECRETS_KEY: [SECRETS_KEY], HOSTPROV_API_URL: fake.url, PODHOST_POD_IMAGE: TEST_POD_IMAGE, ...options.config },
  });
  const { quad, org } = w;
  if (options.connected ?? true) await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', API_KEY);
  const asOfficer: PodsWorld['asOfficer'] = (method, url, body, token = w.officerToken) => w.call({ method, url: `/api/compute/${org.prefix}${url}`, token, body });
  return {
    ...w,
    fake,
    asOfficer,
    async createPod(body = { gpu_type_id: 'NVIDIA RTX A4000' }) {
      const made = await asOfficer('POST', '/pods', body);
      if (made.statusCode !== 201) throw new Error(`pod create answered ${made.statusCode}: ${made.body}`);
      return made.json().pod_id as string;
    },
  };
}
