// The line that says Quad is up: where the API, its documentation, the dashboard, the MCP server and the metrics
// listener answer, and what to do next.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Quad, Role } from '../quad.js';

/** The ready line's fields: role, start time, the URLs served and the next step (see nextStep). */
export async function logReady(quad: Quad, role: Role, ms: number): Promise<void> {
  const fields: Record<string, unknown> = { role, ms: Math.round(ms) };
  const api = quad.app && baseUrl(quad.app);
  // The dashboard this API serves, unless DASHBOARD_URL names another (a dev server).
  if (api) Object.assign(fields, { api, docs: `${api}/docs`, dashboard: quad.settings.DASHBOARD_URL ?? `${api}/dashboard/` });
  const mcp = quad.mcp && baseUrl(quad.mcp);
  if (mcp) fields.mcp = `${mcp}/mcp`;
  const metrics = quad.metricsListener && baseUrl(quad.metricsListener);
  if (metrics) fields.metrics = `${metrics}/metrics`;
  // Report mode lets through what it would refuse: said on the line that says Quad is up (see warnReportMode).
  if (api) fields.access = quad.settings.ACCESS_ENFORCE ? 'enforce' : 'report (ACCESS_ENFORCE=false: refusals are only logged)';
  const next = await nextStep(quad, api);
  if (next) fields.next = next;
  quad.log.info(fields, 'quad ready');
  // Lines are buffered (log.ts): whoever waits for this one (a person, a supervisor, a test) sees it now.
  (quad.log as Partial<Pick<Logger, 'flush'>>).flush?.();
}

/** Without an org, the command that adds one; with one and Discord sign-in set up, the officer sign-in page. */
async function nextStep(quad: Quad, api: string | null): Promise<string | null> {
  if (!api) return null;
  const [{ any }] = await quad.orm.em.getConnection().execute<{ any: boolean }[]>('select exists (select 1 from organizations) as "any"');
  if (!any) return "add an org: npx quad org add --prefix <prefix> --name '<name>' --guild <Discord server id> --officer-role <role id>";
  if (quad.settings.CLIENT_ID) return `sign in as an officer: ${api}/api/auth/login?client=dashboard`;
  return null;
}

/** http://host:port of a listening server; a wildcard address reads as localhost. */
function baseUrl(server: FastifyInstance): string | null {
  const address = server.server.address();
  if (!address || typeof address === 'string') return null;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
