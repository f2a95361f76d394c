// A world for the uptime tests: Quad (API role: no worker; tests run job handlers themselves, passing `now`) with the
// uptime plugin, org acm signed in through the fake Discord with uptime on, org beta with uptime off, org gamma with
// uptime on (another org's monitors), and a monitored site on the outside address, reachable through allowOutside.
import type { LightMyRequestResponse } from 'fastify';
import {
  allowOutside, bearer, signInOfficer, startMonitoredSite, startSignInWorld, type MonitoredSite, type SignInWorld,
} from '@quad/core/testing';
import type { OrganizationEntity } from '@quad/core';

export interface UptimeWorld extends SignInWorld {
  site: MonitoredSite;
  beta: OrganizationEntity;
  gamma: OrganizationEntity;
  officerToken: string;
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, org?: string): Promise<LightMyRequestResponse>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a cron job's handler here and now, as the worker would. */
  runJob(name: string, payload?: Record<string, unknown>): Promise<void>;
  /** Make a monitor of `orgId` straight in the table (another org's, or one a test needs due at once). */
  insertMonitor(orgId: number, fields: Record<string, unknown>): Promise<number>;
  /** The events and problems of one of acm's monitors, oldest first. */
  notifications(monitorId: number): Promise<{ category: string; kind: string; problem_key: string | null; title: string; status: string }[]>;
}

type Host = Parameters<typeof startSignInWorld>[0] & { teardown(fn: () => unknown): void };

export async function startUptimeWorld(t: Host, config: Record<string, unknown> = {}): Promise<UptimeWorld> {
  allowOutside(t);
  const site = await startMonitoredSite(t);
  const world = await startSignInWorld(t, { plugins: ['./plugins/uptime'], orgModules: { uptime: true }, role: 'api', config });
  const { quad } = world;
  const beta = await quad.createOrg({ prefix: 'beta', modules: { uptime: false }, discordGuildId: '880000000000000002' });
  const gamma = await quad.createOrg({ prefix: 'gamma', modules: { uptime: true }, discordGuildId: '880000000000000003' });
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  const sql: UptimeWorld['sql'] = (text, params = []) => em.getConnection().execute(text, params as never[]);
  return {
    ...world, site, beta, gamma, officerToken, sql,
    call: (method, path, payload, org = 'acm') => quad.api.inject({
      method, url: `/api/uptime/${org}${path}`, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }),
    }),
    runJob: (name, payload = {}) => quad.runJob(name, payload, null),
    async insertMonitor(orgId, fields) {
      const row = { name: 'probe', url: site.url(), ...fields };
      const keys = Object.keys(row);
      const [made] = await sql<{ id: number }>(
        `insert into uptime_monitors (organization_id, ${keys.join(', ')}) values (?, ${keys.map(() => '?').join(', ')}) returning id`,
        [orgId, ...Object.values(row)]);
      return made!.id;
    },
    notifications: (monitorId) => sql(
      `select category, kind, problem_key, title, status from notifications
       where organization_id = ? and kind like 'uptime.%' and data ->> 'monitor_id' = ? order by id`, [world.org.id, String(monitorId)]),
  };
}
