// Errors, once in the core: a 500 answers a generic message and the request id (routes, /api/tools, batches, MCP)
// while the detail goes to the error log; writing the error log never fails or changes the answer; refusals before
// the /api/tools handlers answer like every route; malformed MCP params are -32602; the adapters' "unavailable"
// errors are 503 without any route catching them.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { failing, LEAKS } from '../fixtures/failing-module.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

/** No answer may hold any of these. */
function assertNoInternals(t: Test, text: string, label: string) {
  for (const [what, leak] of Object.entries(LEAKS)) t.notOk(text.includes(leak), `${label}: no ${what}`);
  t.notOk(/\bat .+:\d+:\d+/.test(text), `${label}: no stack`);
  t.notOk(/insert into|select .* from/i.test(text), `${label}: no SQL`);
}

t.test('errors', async (t) => {
  const world = await startSignInWorld(t, { plugins: [failing], listen: true, orgModules: { failing: true } });
  const { quad } = world;
  const sql = <T = Record<string, any>>(q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p) as Promise<T[]>;
  const officer = (await signInOfficer(world, world.officer.id)).access_token;
  const created = await quad.api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(officer), payload: { name: 'agent', kind: 'agent', scopes: ['failing:call'] } });
  const token = created.json().token as string;
  const mcpUrl = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  const call = (payload: object, headers: Record<string, string> = bearer(token), url = '/api/tools/call') =>
    quad.api.inject({ method: 'POST', url, headers, payload });

  t.test('a 500 answers a generic message and the request id; the error log has the detail', async (t) => {
    const res = await quad.api.inject('/api/failing/acm/boom');
    t.equal(res.statusCode, 500);
    const id = res.headers['x-request-id'] as string;
    t.same(res.json(), { error: 'Internal Server Error', request_id: id });
    assertNoInternals(t, res.body, 'body');
    const [row] = await sql('select * from error_log where request_id = ?', [id]);
    t.equal(row.origin, 'GET /api/failing/:org/boom');
    t.ok(row.message.includes(LEAKS.sql) && row.message.includes(LEAKS.address), 'the message is logged');
    t.ok(row.message.includes('a\uFFFDb'), 'a NUL in the message is replaced, not a reason to lose the row');
    t.notOk(/[\uD800-\uDFFF]/.test(row.message), 'a lone surrogate is replaced too');
    t.match(row.stack, /\n\s+at /);
  });

  t.test('the issue\'s example: a NUL in a new token\'s name leaks no SQL, token hash or prefix', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(officer), payload: { name: 'a\u0000b', kind: 'agent', scopes: ['org:read'] } });
    // The core's validation may refuse it (400) first; either way the body is only the error shape.
    t.ok([400, 500].includes(res.statusCode), `status ${res.statusCode}`);
    t.notMatch(res.body, /insert into|token_hash|token_prefix|plat_|[0-9a-f]{64}/);
    t.ok(Object.keys(res.json()).every((k) => ['error', 'reason', 'field', 'request_id'].includes(k)), res.body);
    if (res.statusCode === 500) t.same(res.json(), { error: 'Internal Server Error', request_id: res.headers['x-request-id'] });
    const [row] = await sql("select count(*)::int as n from machine_tokens where name like 'a%b'");
    t.equal(row.n, 0, 'no token was made');
  });

  t.test('a failing tool answers a generic error with the request id on /api/tools/call, batches and MCP', async (t) => {
    const one = await call({ name: 'failing.boom' }, { ...bearer(token), 'x-request-id': 'tool-call-1' });
    t.equal(one.statusCode, 500);
    t.same(one.json(), { ok: false, status: 500, error: 'Internal Server Error', request_id: 'tool-call-1' });
    assertNoInternals(t, one.body, 'call');

    const batch = await call({ calls: [{ name: 'failing.boom' }, { name: 'failing.rows' }] }, { ...bearer(token), 'x-request-id': 'tool-batch-1' }, '/api/tools/batch');
    t.equal(batch.statusCode, 200);
    t.match(batch.json().results, [{ ok: false, status: 500, error: 'Internal Server Error', request_id: 'tool-batch-1' }, { ok: true, result: { n: 1 } }]);
    assertNoInternals(t, batch.body, 'batch');

    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer(token) } }));
    t.teardown(() => client.close());
    const viaMcp = await client.callTool({ name: 'failing.boom', arguments: {} });
    t.equal(viaMcp.isError, true);
    t.match(viaMcp.structuredContent, { error: 'Internal Server Error', status: 500, request_id: /^[0-9a-f-]{36}$/ });
    assertNoInternals(t, JSON.stringify(viaMcp), 'MCP');

    const rows = await sql<{ request_id: string; message: string }>("select request_id, message from error_log where origin = 'tool failing.boom' order by id");
    t.same(rows.map((r) => r.request_id), ['tool-call-1', 'tool-batch-1', (viaMcp.structuredContent as { request_id: string }).request_id]);
    t.ok(rows.every((r) => r.message.includes(LEAKS.sql)), 'each failure is in the error log');
    const audits = await sql<{ details: { result: string; via: string } }>("select details from audit_log where action = 'tools.call' and details->>'tool' = 'failing.boom'");
    t.same(audits.map((a) => [a.details.via, a.details.result]).sort(), [['api', 'error_500'], ['api', 'error_500'], ['mcp', 'error_500']], 'every call is audited');
  });

  t.test('when the error log cannot be written, the answer and the audit stay the same', async (t) => {
    // A real failure of the error log's insert, from PostgreSQL itself.
    await sql(`create function refuse_error_log() returns trigger language plpgsql as $$ begin raise exception 'error log is read-only'; end $$`);
    await sql('create trigger refuse_error_log before insert on error_log for each row execute function refuse_error_log()');
    t.teardown(() => sql('drop trigger refuse_error_log on error_log; drop function refuse_error_log()'));
    const before = (await sql('select count(*)::int as n from error_log'))[0].n;

    const route = await quad.api.inject({ url: '/api/failing/acm/boom', headers: { 'x-request-id': 'no-log-route' } });
    t.equal(route.statusCode, 500);
    t.same(route.json(), { error: 'Internal Server Error', request_id: 'no-log-route' });

    const tool = await call({ name: 'failing.boom' }, { ...bearer(token), 'x-request-id': 'no-log-tool' });
    t.equal(tool.statusCode, 500);
    t.same(tool.json(), { ok: false, status: 500, error: 'Internal Server Error', request_id: 'no-log-tool' });
    const audits = await sql("select count(*)::int as n from audit_log where action = 'tools.call' and details->>'tool' = 'failing.boom'");
    t.equal(audits[0].n, 4, 'the call is audited');
    t.equal((await sql('select count(*)::int as n from error_log'))[0].n, before, 'nothing was logged (the trigger refused it)');
  });

  t.test('refusals before the /api/tools handlers answer 401/400 like every route', async (t) => {
    for (const url of ['/api/tools/call', '/api/tools/batch']) {
      const payload = url.endsWith('call') ? { name: 'failing.rows' } : { calls: [{ name: 'failing.rows' }] };
      const none = await call(payload, {}, url);
      t.equal(none.statusCode, 401, `${url}: no token`);
      t.type(none.json().error, 'string');
      const bad = await call(payload, bearer('plat_nope'), url);
      t.match([bad.statusCode, bad.json()], [401, { error: 'Invalid token', reason: 'token_invalid' }], `${url}: bad token`);
      const officerToken = await call(payload, bearer(officer), url);
      t.match([officerToken.statusCode, officerToken.json()], [401, { reason: 'machine_token_required' }], `${url}: officer token`);
      const badBody = await call({ nom: 'x' }, bearer(token), url);
      t.match([badBody.statusCode, badBody.json()], [400, { reason: 'validation', field: /^body\./ }], `${url}: bad body`);
      t.notMatch(badBody.body, /FST_ERR/);
    }
  });

  t.test('malformed MCP params answer -32602 (invalid params)', async (t) => {
    const rpc = async (params: unknown) => {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
      });
      return (await res.json()) as { error?: { code: number; message: string } };
    };
    t.equal((await rpc({ name: 5 })).error?.code, -32602, 'a name that is not a string');
    t.equal((await rpc({})).error?.code, -32602, 'no name');
    t.equal((await rpc({ name: 'failing.rows', arguments: 'x' })).error?.code, -32602, 'arguments that are not an object');
  });

  t.test('the adapters\' "unavailable" errors are 503 with their reason, mapped once in the core', async (t) => {
    const discord = await quad.api.inject('/api/failing/acm/down/discord');
    t.equal(discord.statusCode, 503);
    t.same(discord.json(), { error: 'Discord is unavailable; try again shortly', reason: 'bot_unavailable', retry_after: 7 });
    t.equal(discord.headers['retry-after'], '7');
    const idp = await quad.api.inject('/api/failing/acm/down/idp');
    t.match([idp.statusCode, idp.json()], [503, { reason: 'idp_unavailable' }]);
    const github = await quad.api.inject('/api/failing/acm/down/github');
    t.match([github.statusCode, github.json()], [503, { reason: 'github_unavailable' }]);
    for (const res of [discord, idp, github]) assertNoInternals(t, res.body, res.json().reason);
    const tool = await call({ name: 'failing.discord' });
    t.match([tool.statusCode, tool.json()], [503, { ok: false, status: 503, reason: 'bot_unavailable' }]);
    t.equal(tool.headers['retry-after'], '7');
    const [row] = await sql("select count(*)::int as n from error_log where origin like '%down%' or origin = 'tool failing.discord'");
    t.equal(row.n, 0, 'an outside service being down is not a bug: no error log row');
  });
});
