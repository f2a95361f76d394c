// A world for the feeds tests: Quad (API role: started runs stay queued, tests run job handlers themselves) with the
// feeds plugin, org acm signed in through the fake Discord with feeds on, org beta with feeds off, a second fake
// Discord as the webhook receiver, the raw-file host and the hackathon listings as fakes on the outside address.
import type { LightMyRequestResponse } from 'fastify';
import {
  allowOutside, bearer, signInOfficer, startFakeDiscord, startFakeHackathons, startFakeRepoFiles, startSignInWorld,
  type FakeDiscord, type FakeHackathons, type FakeRepoFiles, type SignInWorld,
} from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';

export const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export interface FeedsWorld extends SignInWorld {
  receiver: FakeDiscord;
  repo: FakeRepoFiles;
  listings: FakeHackathons;
  beta: OrganizationEntity;
  officerToken: string;
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a job's handler here and now, as the worker would (org null: a cron run). */
  runJob(name: string, payload: Record<string, unknown>, orgId?: number | null): Promise<void>;
}

type Host = Parameters<typeof startSignInWorld>[0] & { teardown(fn: () => unknown): void };

export async function startFeedsWorld(t: Host, config: Record<string, unknown> = {}): Promise<FeedsWorld> {
  allowOutside(t);
  const receiver = await startFakeDiscord();
  const repo = await startFakeRepoFiles();
  const listings = await startFakeHackathons();
  t.teardown(() => Promise.all([receiver.close(), repo.close(), listings.close()]));
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/feeds'],
    orgModules: { feeds: true },
    role: 'api',
    config: {
      SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/`, FEEDS_REPO_RAW_URL: repo.url,
      FEEDS_LISTING_A_URL: listings.urls.listing_a, FEEDS_LISTING_B_URL: listings.urls.listing_b, FEEDS_LISTING_C_URL: listings.urls.listing_c,
      ...config,
    },
  });
  const { quad } = world;
  const beta = await quad.createOrg({ prefix: 'beta', modules: { feeds: false }, discordGuildId: '880000000000000002' });
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  return {
    ...world, receiver, repo, listings, beta, officerToken,
    call: (method, path, payload, org = 'acm') => quad.api.inject({
      method, url: `/api/feeds/${org}${path}`, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }),
    }),
    sql: (text, params = []) => em.getConnection().execute(text, params as never[]),
    runJob: (name, payload, orgId = world.org.id) => quad.runJob(name, payload, orgId),
  };
}

/** A README job table in the lists' style, one row per [company, role, posted "Mon DD"]. */
export function jobsReadme(rows: [company: string, role: string, posted: string][]): string {
  return [
    '# Internships', '',
    '| Company | Role | Location | Application/Link | Date Posted |',
    '| ------- | ---- | -------- | ---------------- | ----------- |',
    ...rows.map(([company, role, posted], i) =>
      `| **[${company}](https://${company.toLowerCase().replace(/\W/g, '')}.example)** | ${role} | Remote in USA | <a href="https://jobs.example/${i}-${encodeURIComponent(role)}?utm_source=Simplify"><img src="apply.png" alt="Apply"></a> | ${posted} |`),
  ].join('\n');
}
