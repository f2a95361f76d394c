// The tool server: MCP over Streamable HTTP on TOOL_PORT with the SDK's own Client, and /api/tools on the main
// port — listing, refusals that look like unknown tools, confirm, batches, the rate limit, isolation, audit.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { toolbox } from '../fixtures/toolbox-module.js';
import { roomInMinute } from '@quad/core/testing';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('tool server', async (t) => {
  const world = await startSignInWorld(t, { plugins: [toolbox], listen: true, orgModules: { toolbox: true } });
  const { quad } = world;
  const mcpUrl = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  const officer = (await signInOfficer(world, world.officer.id)).access_token;
  const sql = (q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p);
  const makeToken = async (scopes: string[], org = 'acm', limits?: object) => {
    const res = await quad.api.inject({ method: 'POST', url: `/api/organizations/${org}/tokens`, headers: bearer(officer), payload: { name: 'agent', kind: 'agent', scopes, limits } });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json().token as string;
  };
  const connect = async (token: string) => {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    t.teardown(() => client.close());
    return client;
  };
  const api = (token: string, method: 'GET' | 'POST', url: string, payload?: object) => quad.api.inject({ method, url, headers: bearer(token), payload });

  t.test('tools/list shows only what the token may call', async (t) => {
    const reader = await connect(await makeToken(['toolbox:read', 'org:read']));
    const names = (await reader.listTools()).tools.map((x) => x.name);
    t.same(names, ['modules.list', 'org.info', 'org.limits', 'toolbox.echo']);
    const echo = (await reader.listTools()).tools.find((x) => x.name === 'toolbox.echo')!;
    t.match(echo, { description: 'Echoes its text with the org prefix', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } });
    const manager = await connect(await makeToken(['tokens:manage']));
    const create = (await manager.listTools()).tools.find((x) => x.name === 'tokens.create')!;
    t.ok((create.inputSchema.properties as Record<string, unknown>).confirm, 'confirm tools take confirm');
    const narrowed = await connect(await makeToken(['toolbox:git'], 'acm', { gitx: { tools: ['toolbox.git_list'] } }));
    t.same((await narrowed.listTools()).tools.map((x) => x.name), ['toolbox.git_list'], 'limits narrow an integration\'s tools');
    const viaApi = await api(await makeToken(['toolbox:read']), 'GET', '/api/tools');
    t.same(viaApi.json().tools.map((x: { name: string }) => x.name), ['toolbox.echo']);
  });

  t.test('tools/call runs as the token\'s org', async (t) => {
    const client = await connect(await makeToken(['toolbox:read']));
    const res = await client.callTool({ name: 'toolbox.echo', arguments: { text: 'hi' } });
    t.same(res.structuredContent, { org: 'acm', text: 'hi' });
    t.notOk(res.isError);
    const bad = await client.callTool({ name: 'toolbox.echo', arguments: { text: 42 } });
    t.equal(bad.isError, true);
    t.match((bad.content as { text: string }[])[0].text, /Invalid input for toolbox\.echo: text: Expected string/);
    // MCP skips Fastify's validator: the tool service refuses what PostgreSQL cannot store itself.
    const nul = await client.callTool({ name: 'toolbox.echo', arguments: { text: 'a\u0000b' } });
    t.equal(nul.isError, true);
    t.match((nul.content as { text: string }[])[0].text, /Invalid input for toolbox\.echo: text: must not contain a NUL/);
  });

  t.test('an unknown tool and a refused tool get the same answer', async (t) => {
    const token = await makeToken(['toolbox:read', 'toolbox:git'], 'acm', { gitx: { tools: ['toolbox.git_list'] } });
    const client = await connect(token);
    const answers: string[] = [];
    for (const name of ['toolbox.nothing', 'toolbox.write_note', 'toolbox.git_push']) {
      const err = await client.callTool({ name, arguments: { label: 'x' } }).then(() => null, (e: Error) => e.message);
      answers.push(String(err).replace(name, '<tool>'));
      const viaApi = await api(token, 'POST', '/api/tools/call', { name, arguments: { label: 'x' } });
      t.equal(viaApi.statusCode, 404, name);
      t.same(viaApi.json(), { ok: false, status: 404, error: `Unknown tool "${name}"`, reason: 'unknown_tool' });
    }
    t.equal(new Set(answers).size, 1, `one answer for all: ${answers[0]}`);
    await quad.updateOrg(world.org.id, { modules: { toolbox: false } });
    const off = await api(token, 'POST', '/api/tools/call', { name: 'toolbox.echo', arguments: { text: 'x' } });
    t.equal(off.statusCode, 404, 'a module that is off hides its tools');
    t.same((await api(token, 'GET', '/api/tools')).json().tools, []);
    await quad.updateOrg(world.org.id, { modules: { toolbox: true } });
    const [row] = await sql("select count(*)::int as n from sample_items where label = 'x'");
    t.equal(row.n, 0, 'nothing ran');
  });

  t.test('destructive tools ask for confirmation first', async (t) => {
    const manager = await makeToken(['tokens:manage']);
    const victim = (await api(officer, 'GET', '/api/organizations/acm/tokens')).json().tokens.at(-1);
    const client = await connect(manager);
    const first = await client.callTool({ name: 'tokens.revoke', arguments: { id: victim.id } });
    t.match(first.structuredContent, { confirm_required: true, preview: { action: 'revoke a machine token', token: { id: victim.id } } });
    t.equal((await sql('select revoked_at from machine_tokens where id = ?', [victim.id]))[0].revoked_at, null, 'not revoked yet');
    const second = await client.callTool({ name: 'tokens.revoke', arguments: { id: victim.id, confirm: true } });
    t.same(second.structuredContent, { revoked: true, id: victim.id });
    t.ok((await sql('select revoked_at from machine_tokens where id = ?', [victim.id]))[0].revoked_at);
    const created = await api(manager, 'POST', '/api/tools/call', { name: 'tokens.create', arguments: { name: 'child', kind: 'agent', scopes: ['tokens:manage'] }, confirm: true });
    t.equal(created.statusCode, 200);
    t.match(created.json().result.token, /^plat_/);
    const wider = await api(manager, 'POST', '/api/tools/call', { name: 'tokens.create', arguments: { name: 'x', kind: 'agent', scopes: ['org:read'] }, confirm: true });
    t.equal(wider.statusCode, 403, 'a token cannot create a wider one');
  });

  t.test('a batch: each call counts and succeeds or fails on its own', async (t) => {
    const token = await makeToken(['toolbox:read', 'toolbox:write']);
    const res = await api(token, 'POST', '/api/tools/batch', { calls: [
      { name: 'toolbox.echo', arguments: { text: 'a' } },
      { name: 'toolbox.fail' },
      { name: 'toolbox.write_note', arguments: { label: 'batched' } },
      { name: 'toolbox.nope' },
    ] });
    t.equal(res.statusCode, 200);
    const results = res.json().results;
    t.match(results, [{ ok: true, result: { text: 'a' } }, { ok: false, status: 500, error: 'Internal Server Error', request_id: res.headers['x-request-id'] }, { ok: true, result: { written: 'batched' } }, { ok: false, status: 404 }]);
    const [half] = await sql("select count(*)::int as n from sample_items where label = 'half'");
    t.equal(half.n, 0, 'a failed call rolls back what it wrote');
    const [errorRow] = await sql("select * from error_log where origin = 'tool toolbox.fail'");
    t.ok(errorRow, 'a failing tool is in the error log');
  });

  t.test('the rate limit: 429 over /api/tools, an MCP error over MCP, nothing run', async (t) => {
    await roomInMinute();
    const org = await quad.createOrg({ prefix: 'tiny', modules: { toolbox: true } });
    await sql("insert into org_limits (organization_id, key, value) values (?, 'mcp.calls_per_minute', 3)", [org.id]);
    const res = await api(officer, 'POST', '/api/organizations/tiny/tokens', { name: 'x', kind: 'agent', scopes: ['toolbox:write'] });
    const token = res.json().token;
    const batch = await api(token, 'POST', '/api/tools/batch', { calls: [1, 2].map((i) => ({ name: 'toolbox.write_note', arguments: { label: `rate-${i}` } })) });
    t.same(batch.json().results.map((r: { ok: boolean }) => r.ok), [true, true], 'each call of a batch counts');
    t.equal((await api(token, 'POST', '/api/tools/call', { name: 'toolbox.write_note', arguments: { label: 'rate-3' } })).statusCode, 200);
    const over = await api(token, 'POST', '/api/tools/call', { name: 'toolbox.write_note', arguments: { label: 'rate-4' } });
    t.equal(over.statusCode, 429);
    t.equal(over.json().reason, 'rate_limited');
    t.ok(Number(over.headers['retry-after']) > 0);
    const client = await connect(token);
    const mcpErr = await client.callTool({ name: 'toolbox.write_note', arguments: { label: 'rate-5' } }).then(() => null, (e: Error) => e.message);
    t.match(mcpErr, /MCP error -32029/);
    const [row] = await sql("select count(*)::int as n from sample_items where label in ('rate-4', 'rate-5')");
    t.equal(row.n, 0, 'nothing ran over the limit');
    const [use] = await sql("select count from usage_counters where organization_id = ? and key = 'mcp.calls_per_minute'", [org.id]);
    t.equal(Number(use.count), 3, 'refused calls are not counted');
  });

  t.test('two clients with the same JSON-RPC id at once each get their own org\'s answer', async (t) => {
    const other = await quad.createOrg({ prefix: 'ieee', modules: { toolbox: true } });
    void other;
    const tokens = [await makeToken(['toolbox:read']), (await api(officer, 'POST', '/api/organizations/ieee/tokens', { name: 'x', kind: 'agent', scopes: ['toolbox:read'] })).json().token];
    const call = (token: string, text: string) => fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'toolbox.echo', arguments: { text } } }),
    }).then((r) => r.json() as Promise<{ id: number; result: { structuredContent: unknown } }>);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(tokens[i % 2], `n${i}`)));
    answers.forEach((a, i) => {
      t.equal(a.id, 1);
      t.same(a.result.structuredContent, { org: i % 2 ? 'ieee' : 'acm', text: `n${i}` });
    });
  });

  t.test('authentication and DNS-rebinding protection', async (t) => {
    const missing = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    t.equal(missing.status, 401);
    t.match(missing.headers.get('www-authenticate'), /^Bearer realm="quad", resource_metadata="[^"]+", error="invalid_token"/);
    const bad = await fetch(mcpUrl, { method: 'POST', headers: { authorization: 'Bearer plat_nope', 'content-type': 'application/json' }, body: '{}' });
    t.equal(bad.status, 401);
    const officerToken = await fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${officer}`, 'content-type': 'application/json' }, body: '{}' });
    t.equal(officerToken.status, 401, 'officer tokens are not machine tokens');
    const token = await makeToken(['toolbox:read']);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: mcpUrl.port, path: '/mcp', method: 'POST', headers: { host: `evil.example:${mcpUrl.port}`, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => { res.resume(); resolve(res.statusCode!); });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
    t.equal(status, 403, 'a foreign Host header is refused');
    t.equal((await quad.api.inject({ url: '/api/tools', headers: bearer(officer) })).statusCode, 401, '/api/tools takes machine tokens only');
  });

  t.test('every call is audited', async (t) => {
    const rows = (await sql("select details from audit_log where action = 'tools.call'")) as { details: { via: string; result: string } }[];
    const vias = new Set(rows.map((r) => r.details.via));
    t.same([...vias].sort(), ['api', 'mcp']);
    t.ok(rows.some((r) => r.details.result === 'unknown_tool'));
    t.ok(rows.some((r) => r.details.result === 'confirm_required'));
    t.ok(rows.some((r) => r.details.result === 'rate_limited'));
  });

  t.test('GET tokens lists scopes with uses and integrations', async (t) => {
    const body = (await api(officer, 'GET', '/api/organizations/acm/tokens')).json();
    t.same(body.scopes.find((s: { name: string }) => s.name === 'toolbox:search').uses, ['gitx']);
    t.same(body.integrations.find((i: { key: string }) => i.key === 'gitx'), {
      key: 'gitx', title: 'Gitx', description: 'A code host', module: 'toolbox', connected: false,
      scopes: ['toolbox:git'], tools: { 'toolbox:git': ['toolbox.git_list', 'toolbox.git_push'] }, remote: true, remote_error: null,
      through: ['toolbox:search'], used_by: [], limits: [],
    });
  });
});
