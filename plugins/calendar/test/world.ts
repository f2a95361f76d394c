// A world for the calendar tests: Quad (API role: started syncs stay queued, tests run job handlers themselves)
// with the calendar plugin, org acm signed in through the fake Discord (whose server also holds the scheduled events
// the sync reads) with the calendar on, and org beta with the calendar on but its own officer-less data.
import type { LightMyRequestResponse } from 'fastify';
import { bearer, signInOfficer, startSignInWorld, type SignInWorld } from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';

export interface CalendarWorld extends SignInWorld {
  beta: OrganizationEntity;
  officerToken: string;
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a job's handler here and now, as the worker would (org null: a cron run). */
  runJob(name: string, payload: Record<string, unknown>, orgId?: number | null): Promise<void>;
}

type Host = Parameters<typeof startSignInWorld>[0];

export async function startCalendarWorld(t: Host): Promise<CalendarWorld> {
  const world = await startSignInWorld(t, { plugins: ['./plugins/calendar'], orgModules: { calendar: true }, role: 'api' });
  const { quad } = world;
  const beta = await quad.createOrg({ prefix: 'beta', modules: { calendar: true }, discordGuildId: '880000000000000002' });
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  return {
    ...world, beta, officerToken,
    call: (method, path, payload, org = 'acm') => quad.api.inject({
      method, url: `/api/calendar/${org}${path}`, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }),
    }),
    sql: (text, params = []) => em.getConnection().execute(text, params as never[]),
    runJob: (name, payload, orgId = world.org.id) => quad.runJob(name, payload, orgId),
  };
}
