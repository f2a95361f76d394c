// A database outage answers 503 `database_unavailable` with Retry-After — on routes, in the auth and org hooks,
// on /api/tools, MCP, /health and /health/ready — never a 500 or an address; and the service recovers when the database is back.
// The outage is real: the test database stops accepting connections and every connection to it is cut.
import t, { type Test } from 'tap';
import pg from 'pg';
import { ADMIN_URL } from '@quad/core/testing';
import { failing, LEAKS } from '../fixtures/failing-module.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

const OUTAGE = { error: 'The database is unavailable; try again shortly', reason: 'database_unavailable', retry_after: 5 };

t.test('database outage', async (t) => {
  const world = await startSignInWorld(t, { plugins: [failing], listen: true, role: 'api', orgModules: { failing: true }, config: { READY_MAX_EVENT_LOOP_DELAY_MS: 0 } });
  const { quad } = world;
  await quad.createOrg({ prefix: 'cold', modules: { failing: true } });
  const officer = (await signInOfficer(world, world.officer.id)).access_token;
  const token = (await quad.api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(officer), payload: { name: 'agent', kind: 'agent', scopes: ['failing:call'] } })).json().token as string;
  const tool = (name: string) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name } });
  const mcpUrl = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;
  const mcpCall = () => fetch(mcpUrl, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'failing.rows', arguments: {} } }),
  });
  const database = new URL(quad.databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const restore = () => admin.query(`alter database "${database}" allow_connections true`);
  t.teardown(async () => {
    await restore();
    await admin.end();
  });
  const noInternals = (t: Test, body: string, label: string) => {
    for (const leak of [LEAKS.address, '127.0.0.1', 'ECONNREFUSED', 'terminat', 'FATAL', database]) t.notOk(body.includes(leak), `${label}: no "${leak}"`);
  };

  t.equal((await quad.api.inject('/api/failing/acm/rows')).statusCode, 200, 'works before');

  /** The pools drop dead connections on their own (one may fail once more first): wait for a success, bounded. */
  const recovered = async (attempt: () => Promise<{ statusCode: number }>) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const status = (await attempt()).statusCode;
      if (status === 200 || Date.now() > deadline) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  t.test('a connection cut under a tool call or a request is 503, then the service goes on', async (t) => {
    const cutTool = await tool('failing.cut');
    t.equal(cutTool.statusCode, 503, 'in the tool service');
    t.same(cutTool.json(), { ok: false, status: 503, ...OUTAGE });
    t.equal(cutTool.headers['retry-after'], '5');
    noInternals(t, cutTool.body, 'tool');
    t.equal(await recovered(() => tool('failing.rows')), 200);

    const cut = await quad.api.inject('/api/failing/acm/cut');
    t.equal(cut.statusCode, 503, 'in a route');
    t.same(cut.json(), OUTAGE);
    t.equal(cut.headers['retry-after'], '5');
    noInternals(t, cut.body, 'route');
    t.equal(await recovered(() => quad.api.inject('/api/failing/acm/rows')), 200);

    const [logged] = await quad.orm.em.fork().getConnection().execute("select count(*)::int as n from error_log");
    t.equal(logged.n, 0, 'an outage is not a bug: no error log row');
  });

  t.test('while the database refuses connections: 503 everywhere, then recovery', async (t) => {
    await admin.query(`alter database "${database}" allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);

    const route = await quad.api.inject('/api/failing/acm/rows');
    t.equal(route.statusCode, 503, 'a route that reads');
    t.same(route.json(), OUTAGE);
    t.equal(route.headers['retry-after'], '5');
    noInternals(t, route.body, 'route');

    const resolver = await quad.api.inject('/api/failing/cold/rows');
    t.match([resolver.statusCode, resolver.json()], [503, OUTAGE], 'the org resolver (an org not cached)');

    const hook = await tool('failing.rows');
    t.match([hook.statusCode, hook.json()], [503, OUTAGE], 'the auth hook (machine token check)');
    t.equal(hook.headers['retry-after'], '5');
    noInternals(t, hook.body, '/api/tools/call');

    const viaMcp = await mcpCall();
    const mcpBody = await viaMcp.text();
    t.equal(viaMcp.status, 503, 'MCP');
    t.equal(viaMcp.headers.get('retry-after'), '5');
    t.match(JSON.parse(mcpBody), { jsonrpc: '2.0', error: { message: OUTAGE.error, data: { reason: 'database_unavailable' } } });
    noInternals(t, mcpBody, 'MCP');

    const health = await quad.api.inject('/health');
    t.equal(health.statusCode, 503, '/health');
    t.match(health.json(), { status: 'down', database: { ok: false, error: 'database_unavailable' } });
    t.equal(health.headers['retry-after'], '5');
    noInternals(t, health.body, '/health');

    const ready = await quad.api.inject('/health/ready');
    t.equal(ready.statusCode, 503, '/health/ready');
    t.same(ready.json(), OUTAGE);
    t.equal(ready.headers['retry-after'], '5');
    noInternals(t, ready.body, '/health/ready');
    t.equal((await quad.api.inject('/health/live')).statusCode, 200, '/health/live: the process is alive');

    await restore();
    t.equal(await recovered(() => quad.api.inject('/api/failing/acm/rows')), 200, 'the route recovers');
    t.equal((await quad.api.inject('/api/failing/cold/rows')).statusCode, 200);
    t.match((await tool('failing.rows')).json(), { ok: true, result: { n: 2 } });
    t.equal((await mcpCall()).status, 200);
    t.equal((await quad.api.inject('/health')).statusCode, 200);
    t.equal((await quad.api.inject('/health/ready')).statusCode, 200, 'ready again');
  });
});
