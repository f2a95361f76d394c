// A world for the LeetCode tests: Quad (API role: started jobs stay queued, tests run job handlers themselves) with
// the leetcode plugin (and points, unless `points: false`), the fake LeetCode on the outside address, org acm signed
// in through the fake Discord with leetcode and points on, org beta with leetcode off, org gamma with leetcode on and
// points off. Members: bob (the world's member) and two more on acm's server.
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer, cookieFrom, signInOfficer, startFakeLeetCode, startSignInWorld, type FakeLeetCode, type FakeUser, type SignInWorld,
} from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';

export interface LeetCodeWorld extends SignInWorld {
  leetcode: FakeLeetCode;
  beta: OrganizationEntity;
  gamma: OrganizationEntity;
  /** Two more members of acm's server (no officer role). */
  carol: FakeUser;
  dave: FakeUser;
  officerToken: string;
  /** Officer call to /api/leetcode/<org><path>. */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  /** Member call with a Discord session cookie. */
  memberCall(cookie: string, method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  /** A Discord session (the member sign-in flow) for a user of the fake Discord. */
  sessionOf(user: FakeUser): Promise<string>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a job's handler here and now, as the worker would (org null: a cron run). */
  runJob(name: string, payload: Record<string, unknown>, orgId?: number | null): Promise<void>;
  /** Run the queued runs of a job (as the worker would) and mark them done; answers their payloads. */
  runQueued(name: string): Promise<Record<string, unknown>[]>;
}

type Host = Parameters<typeof startSignInWorld>[0];

export async function startLeetCodeWorld(t: Host, options: { points?: boolean; config?: Record<string, unknown> } = {}): Promise<LeetCodeWorld> {
  const points = options.points ?? true;
  const leetcode = await startFakeLeetCode(t);
  const world = await startSignInWorld(t, {
    plugins: points ? ['./plugins/points', './plugins/leetcode'] : ['./plugins/leetcode'],
    orgModules: { leetcode: true, ...(points && { points: true }) },
    role: 'api',
    config: { LEETCODE_API_URL: leetcode.url, LEETCODE_TIMEOUT_MS: 2000, ...(points && { POINTS_GATEWAY: false }), ...options.config },
  });
  const { quad, discord, guildId } = world;
  // Their servers exist on the fake Discord (with the world's member on them): member routes ask Discord.
  const otherGuild = (name: string) => {
    const guild = discord.addGuild({ name });
    discord.addMember(guild.id, world.member.id);
    return guild.id;
  };
  const beta = await quad.createOrg({ prefix: 'beta', modules: { leetcode: false, ...(points && { points: true }) }, discordGuildId: otherGuild('Beta') });
  const gamma = await quad.createOrg({ prefix: 'gamma', modules: { leetcode: true, ...(points && { points: false }) }, discordGuildId: otherGuild('Gamma') });
  const carol = discord.addUser({ username: 'carol' });
  const dave = discord.addUser({ username: 'dave', global_name: 'Dave D' });
  discord.addMember(guildId, carol.id);
  discord.addMember(guildId, dave.id);
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  const sql = <T>(text: string, params: unknown[] = []) => em.getConnection().execute(text, params as never[]) as Promise<T[]>;

  const runJob = (name: string, payload: Record<string, unknown>, orgId: number | null = null) => quad.runJob(name, payload, orgId);

  return {
    ...world, leetcode, beta, gamma, carol, dave, officerToken, sql, runJob,
    call: (method, path, payload, org = 'acm') => quad.api.inject({
      method, url: `/api/leetcode/${org}${path}`, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }),
    }),
    memberCall: (cookie, method, path, payload, org = 'acm') => quad.api.inject({
      method, url: `/api/leetcode/${org}${path}`, headers: { cookie }, ...(payload !== undefined && { payload: payload as object }),
    }),
    async sessionOf(user) {
      const start = await quad.api.inject('/api/accounts/chat/login');
      discord.signInAs(user.id);
      const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
      const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
      if (callback.statusCode !== 200) throw new Error(`member sign-in answered ${callback.statusCode}: ${callback.body}`);
      return cookieFrom(callback);
    },
    async runQueued(name) {
      const runs = await sql<{ id: string; organization_id: number | null; payload: Record<string, unknown> }>(
        `select id, organization_id, payload from job_runs where name = ? and status = 'queued' order by id`, [name]);
      for (const run of runs) {
        await runJob(name, run.payload, run.organization_id);
        await sql(`update job_runs set status = 'succeeded', finished_at = now() where id = ?`, [run.id]);
      }
      return runs.map((r) => r.payload);
    },
  };
}

/** An ISO time on the fake's seeded day (2026-03-02), at `hh:mm` UTC. */
export const onSeedDay = (hhmm: string, day = '2026-03-02') => `${day}T${hhmm}:00.000Z`;
