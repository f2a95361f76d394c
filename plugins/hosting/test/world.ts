// A world for the hosting tests: Quad (API role: started jobs stay queued and tests run their handlers, as a worker
// would) with the pods plugin (the provider's adapter, off for the org) and hosting (on), a fake provider that knows
// the org's API key and plays its HTTP proxy (HOSTPROV_PROXY_URL), org acm connected and signed in, org beta with
// hosting off.
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer, signInOfficer, startFakeHostprov, startSignInWorld, type FakeHostprov, type SignInWorld,
} from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';

export const API_KEY = 'hp-hosting-key';
const SECRETS_KEY = Buffer.alloc(32, 5).toString('base64');

export interface HostingWorld extends SignInWorld {
  fake: FakeHostprov;
  beta: OrganizationEntity;
  officerToken: string;
  /** A call as acm's officer under /api/dashboard/<org>. */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a job's handler here and now, as the worker would (org null: a cron run). */
  runJob(name: string, payload: Record<string, unknown>, orgId?: number | null): Promise<void>;
  /**
   * Run the queued runs of these jobs that no earlier call ran, oldest first, once each (runs they start wait for the
   * next call); `extra` is merged into each payload (e.g. a check's `now`). Answers the names run.
   */
  runQueued(names: string[], extra?: Record<string, unknown>): Promise<string[]>;
}

type Host = Parameters<typeof startSignInWorld>[0];

export async function startHostingWorld(t: Host, config: Record<string, unknown> = {}): Promise<HostingWorld> {
  const fake = await startFakeHostprov({ apiKey: API_KEY });
  t.teardown(() => fake.close());
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/pods', './plugins/hosting'],
    orgModules: { hostprov: true },
    role: 'api',
    config: { SECRETS_KEY: [SECRETS_KEY], HOSTPROV_API_URL: fake.url, HOSTPROV_PROXY_URL: fake.proxyUrl, ...config },
  });
  const { quad, org } = world;
  await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', API_KEY);
  const beta = await quad.createOrg({ prefix: 'beta', modules: { hostprov: false }, discordGuildId: '880000000000000003' });
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  const sql: HostingWorld['sql'] = (text, params = []) => em.getConnection().execute(text, params as never[]);
  const done = new Set<number>();
  const runJob: HostingWorld['runJob'] = (name, payload, orgId = org.id) => quad.runJob(name, payload, orgId);
  return {
    ...world, fake, beta, officerToken, sql, runJob,
    call: (method, path, payload, prefix = 'acm') => quad.api.inject({
      method, url: `/api/dashboard/${prefix}${path}`, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }),
    }),
    async runQueued(names, extra = {}) {
      const runs = await sql<{ id: string; name: string; organization_id: number; payload: Record<string, unknown> }>(
        `select id, name, organization_id, payload from job_runs where status = 'queued' and name in (?) order by id`, [names]);
      const ran: string[] = [];
      for (const run of runs.filter((r) => !done.has(Number(r.id)))) {
        done.add(Number(run.id));
        await runJob(run.name, { ...run.payload, ...extra }, run.organization_id);
        ran.push(run.name);
      }
      return ran;
    },
  };
}

/** A valid register body; `over` replaces fields. */
export function appBody(name: string, over: Record<string, unknown> = {}) {
  return {
    name,
    image: 'ghcr.io/acm/site',
    cpu: { flavor: 'cpu3c', vcpus: 2 },
    ports: [{ port: 8080, protocol: 'http' }, { port: 9000, protocol: 'tcp' }],
    env: { MODE: 'production' },
    health: { port: 8080, path: '/healthz' },
    ...over,
  };
}
