// Remote tools: a connected integration's own MCP server (the generic `mcp` integration on an org URL, GitHub's on
// GITHUB_MCP_URL) served as `<integration>.<tool>` — listed to tokens whose scopes grant it, narrowed by the
// token's tools and repos patterns (a refused call never reaches the fake), forwarded with the org's credentials,
// failures as clear tool errors, counted and audited like local tools, the listing cached until the org's fields
// change; and the GET tokens listing and the preview route with remote integrations.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allowOutside, roomInMinute, startFakeRemoteMcp, startTestApp } from '@quad/core/testing';
import { patternMatches } from '../../core/src/auth/machine-tokens.js';

const REMOTE_TOOLS = ['broken', 'echo', 'get_repo', 'list_issues', 'whoami'];

t.test('limits patterns: * is any run of characters, the whole value matches, in linear time', async (t) => {
  t.ok(patternMatches('acm/*', 'acm/site') && patternMatches('*', '') && patternMatches('github.get_*', 'github.get_me'));
  t.notOk(patternMatches('acm/*', 'acme/site') || patternMatches('acm', 'acm/x') || patternMatches('ACM/*', 'acm/x'));
  t.ok(patternMatches('ACM/*', 'acm/x', true), 'repos ignore case');
  const started = Date.now();
  t.notOk(patternMatches(`${'*a'.repeat(99)}*b`, 'a'.repeat(200)));
  t.ok(Date.now() - started < 100, 'no exponential backtracking');
});

t.test('remote tools', async (t) => {
  allowOutside(t);
  const remote = await startFakeRemoteMcp(t, { token: 's3cret' });
  const github = await startFakeRemoteMcp(t, { token: 'ghp_test', sse: true });
  const quad = await startTestApp(t, {
    listen: true,
    config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')], GITHUB_MCP_URL: github.url, REMOTE_MCP_TIMEOUT_MS: 3000 },
  });
  const mcpUrl = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  const sql = (q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p);
  const setSecret = (orgId: number, name: string, value: string) => quad.services.secrets.set(quad.orm.em.fork(), orgId, name, value, 'test');
  const orgIds = new Map<string, number>();
  const orgWith = async (prefix: string, url: string | null, token = 's3cret') => {
    const org = await quad.createOrg({ prefix });
    orgIds.set(prefix, org.id);
    if (url) {
      await setSecret(org.id, 'mcp.url', url);
      await setSecret(org.id, 'mcp.token', token);
    }
    return org;
  };
  const tokenFor = async (orgId: number, scopes: string[], limits?: Record<string, { tools?: string[]; repos?: string[] }>) => (await quad.issueToken(orgId, { scopes, limits })).token;
  const connect = async (token: string) => {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    t.teardown(() => client.close());
    return client;
  };
  const api = (token: string, method: 'GET' | 'POST', url: string, payload?: object) => quad.api.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
  const call = (token: string, name: string, args: object = {}) => api(token, 'POST', '/api/tools/call', { name, arguments: args });
  const names = async (token: string) => (await api(token, 'GET', '/api/tools')).json().tools.map((x: { name: string }) => x.name) as string[];

  const acm = await orgWith('acm', remote.url);
  await setSecret(acm.id, 'github.token', 'ghp_test');

  t.test('listed to tokens whose scopes grant the integration, narrowed by tools patterns', async (t) => {
    t.same(await names(await tokenFor(acm.id, ['org:read'])), ['modules.list', 'org.info', 'org.limits'], 'no granting scope: no remote tools');
    const client = await connect(await tokenFor(acm.id, ['mcp:remote', 'mcp:github']));
    const listed = (await client.listTools()).tools;
    t.same(listed.map((x) => x.name), [...REMOTE_TOOLS.map((n) => `github.${n}`), ...REMOTE_TOOLS.map((n) => `mcp.${n}`)]);
    t.match(listed.find((x) => x.name === 'mcp.get_repo'), {
      title: 'Get a repository', description: 'A repository by owner and name',
      inputSchema: { type: 'object', required: ['owner', 'repo'] }, annotations: { readOnlyHint: true, destructiveHint: false },
    });
    const narrowed = await tokenFor(acm.id, ['mcp:remote'], { mcp: { tools: ['mcp.get_*', 'echo'] } });
    t.same(await names(narrowed), ['mcp.echo', 'mcp.get_repo'], 'a pattern matches the full name or the remote name');
    t.equal(remote.listings(), 1, 'one listing served every token of the org (cached)');
    t.ok(github.requests.every((r) => r.authorization === 'Bearer ghp_test'), 'GitHub\'s server got the org\'s GitHub token');
    t.ok(github.requests.every((r) => r.method === 'POST'), 'no standalone SSE stream (GET) is opened');
  });

  t.test('calls are forwarded with the org\'s credentials; the result is the remote\'s', async (t) => {
    const token = await tokenFor(acm.id, ['mcp:remote']);
    const client = await connect(token);
    const res = await client.callTool({ name: 'mcp.get_repo', arguments: { owner: 'acm', repo: 'site' } });
    t.same(res.content, [{ type: 'text', text: 'repo acm/site' }]);
    t.same(res.structuredContent, { full_name: 'acm/site' });
    t.same(remote.calls.at(-1), { name: 'get_repo', arguments: { owner: 'acm', repo: 'site' }, authorization: 'Bearer s3cret' });
    const viaApi = await call(token, 'mcp.echo', { text: 'hello there' });
    t.same(viaApi.json(), { ok: true, remote: true, result: { content: [{ type: 'text', text: 'hello there' }] } });
    const broken = await client.callTool({ name: 'mcp.broken', arguments: {} });
    t.equal(broken.isError, true, 'a remote error result is passed on');
    const before = remote.calls.length;
    const invalid = await call(token, 'mcp.get_repo', { owner: 'acm' });
    t.equal(invalid.statusCode, 400);
    t.match(invalid.json(), { reason: 'invalid_input', error: /Invalid input for mcp\.get_repo: .*repo/ });
    t.equal((await call(token, 'mcp.nope')).json().reason, 'unknown_tool');
    t.equal((await call(await tokenFor(acm.id, ['org:read']), 'mcp.echo', { text: 'x' })).json().reason, 'unknown_tool', 'without the scope: unknown');
    t.equal((await call(await tokenFor(acm.id, ['mcp:remote'], { mcp: { tools: ['echo'] } }), 'mcp.get_repo', { owner: 'a', repo: 'b' })).json().reason, 'unknown_tool', 'outside the tools patterns: unknown');
    t.equal(remote.calls.length, before, 'no refused call reached the remote server');
  });

  t.test('repos patterns: checked against the call\'s repository before anything is sent', async (t) => {
    const token = await tokenFor(acm.id, ['mcp:remote'], { mcp: { repos: ['acm/*'] } });
    const before = remote.calls.length;
    t.equal((await call(token, 'mcp.get_repo', { owner: 'ACM', repo: 'Site' })).statusCode, 200, 'repository names match without case');
    t.equal(remote.calls.length, before + 1);
    const refusals = [
      [{ owner: 'other', repo: 'x' }, 'get_repo', 'repo_not_allowed'],
      [{ owner: 'acm', repo: '../other' }, 'get_repo', 'repo_not_allowed'],
      [{ owner: 'acm', repo: 'x/y' }, 'list_issues', 'repo_not_allowed'],
      [{}, 'whoami', 'repo_required'],
    ] as const;
    for (const [args, tool, reason] of refusals) {
      const res = await call(token, `mcp.${tool}`, args);
      t.equal(res.statusCode, 403, `${tool} ${JSON.stringify(args)}`);
      t.equal(res.json().reason, reason);
    }
    const client = await connect(token);
    const viaMcp = await client.callTool({ name: 'mcp.get_repo', arguments: { owner: 'other', repo: 'x' } });
    t.match(viaMcp, { isError: true, content: [{ text: /may not use mcp\.get_repo on other\/x/ }] });
    t.equal(remote.calls.length, before + 1, 'no refused call reached the remote server');
  });

  t.test('remote failures are clear tool errors, never internals', async (t) => {
    const closed = await startFakeRemoteMcp();
    await closed.close();
    const failing = await startFakeRemoteMcp(t);
    const cases: [string, string | null, string, number, string, RegExp][] = [
      ['unauth', remote.url, 'wrong', 502, 'remote_unauthorized', /^401 from MCP server: check the integration's token$/],
      ['down', closed.url, 's3cret', 502, 'remote_unavailable', /^MCP server cannot be reached: 127\.0\.0\.2:\d+ refused the connection$/],
      ['ssrf', `${quad.url}/mcp`, 's3cret', 502, 'remote_refused', /^MCP server may not be reached: 127\.0\.0\.1 is a loopback address: refused$/],
      ['fails', failing.url, 's3cret', 502, 'remote_unavailable', /^MCP server answered HTTP 500$/],
    ];
    failing.mode = 'fail';
    for (const [prefix, url, secret, status, reason, message] of cases) {
      const org = await orgWith(prefix, url, secret);
      const token = await tokenFor(org.id, ['mcp:remote']);
      const res = await call(token, 'mcp.echo', { text: 'x' });
      t.equal(res.statusCode, status, prefix);
      t.match(res.json(), { ok: false, status, reason, error: message }, prefix);
      t.notMatch(res.body, /secret-path|stack|ECONNREFUSED/, 'no internals');
      t.same(await names(token), [], `${prefix}: the listing leaves the remote tools out`);
    }
    t.equal(failing.calls.length, 0);
    const slow = await startFakeRemoteMcp(t);
    slow.mode = 'hang-calls';
    const org = await orgWith('slow', slow.url, 'x');
    const token = await tokenFor(org.id, ['mcp:remote']);
    const started = Date.now();
    const res = await call(token, 'mcp.echo', { text: 'x' });
    t.equal(res.statusCode, 504);
    t.match(res.json(), { reason: 'remote_timeout', error: 'MCP server did not answer within 3 s' });
    t.ok(Date.now() - started < 8000, 'answered at the deadline');
    t.equal(slow.calls.length, 1, 'the call was sent, and never answered');
  });

  t.test('rate limit and audit apply to remote calls', async (t) => {
    await roomInMinute();
    const org = await orgWith('tiny', remote.url);
    await sql("insert into org_limits (organization_id, key, value) values (?, 'mcp.calls_per_minute', 2)", [org.id]);
    const token = await tokenFor(org.id, ['mcp:remote'], { mcp: { repos: ['tiny/*'] } });
    t.equal((await call(token, 'mcp.get_repo', { owner: 'tiny', repo: 'a' })).statusCode, 200);
    t.equal((await call(token, 'mcp.get_repo', { owner: 'else', repo: 'a' })).statusCode, 403, 'a refusal is not counted');
    t.equal((await call(token, 'mcp.broken')).statusCode, 403, 'no repository named: refused');
    t.equal((await call(token, 'mcp.get_repo', { owner: 'tiny', repo: 'b' })).statusCode, 200);
    const before = remote.calls.length;
    const over = await call(token, 'mcp.get_repo', { owner: 'tiny', repo: 'c' });
    t.equal(over.statusCode, 429);
    t.equal(remote.calls.length, before, 'over the limit nothing is sent');
    const [use] = await sql("select count from usage_counters where organization_id = ? and key = 'mcp.calls_per_minute'", [org.id]);
    t.equal(Number(use.count), 2);
    const rows = await sql("select details from audit_log where organization_id = ? and action = 'tools.call' order by id", [org.id]) as { details: Record<string, unknown> }[];
    t.same(rows.map((r) => r.details), ['ok', 'repo_not_allowed', 'repo_required', 'ok', 'rate_limited'].map((result, i) => ({ tool: i === 2 ? 'mcp.broken' : 'mcp.get_repo', result, via: 'api' })));
    const results = (await sql("select details->>'result' as r from audit_log where action = 'tools.call' and details->>'tool' like 'mcp.%'") as { r: string }[]).map((r) => r.r);
    for (const r of ['tool_error', 'invalid_input', 'unknown_tool', 'remote_unauthorized', 'remote_timeout']) t.ok(results.includes(r), r);
  });

  t.test('the listing is cached until the org changes the integration\'s fields', async (t) => {
    const token = await tokenFor(acm.id, ['mcp:remote']);
    const listings = remote.listings();
    remote.tools = [...remote.tools, { listing: { name: 'new_tool', inputSchema: { type: 'object' } }, run: () => ({ content: [] }) }];
    t.notOk((await names(token)).includes('mcp.new_tool'), 'cached');
    t.equal(remote.listings(), listings);
    await setSecret(acm.id, 'mcp.token', 's3cret'); // saved again: a reconnect
    t.ok((await names(token)).includes('mcp.new_tool'), 'listed again after the change');
    t.equal(remote.listings(), listings + 1);
    remote.tools = remote.tools.filter((x) => x.listing.name !== 'new_tool');
    await setSecret(acm.id, 'mcp.token', 's3cret');
  });

  t.test('GET tokens: every field of a remote integration; the preview of a new token\'s tools', async (t) => {
    const manager = await tokenFor(acm.id, ['tokens:manage', 'mcp:remote', 'org:read']);
    const body = (await api(manager, 'GET', '/api/organizations/acm/tokens')).json();
    t.same(body.scopes.find((s: { name: string }) => s.name === 'mcp:remote'), {
      name: 'mcp:remote', description: body.scopes.find((s: { name: string }) => s.name === 'mcp:remote').description, module: 'mcp', integration: 'mcp', uses: [],
    });
    const byKey = (list: { key: string; description?: string }[], key: string) => list.find((i) => i.key === key);
    t.same(byKey(body.integrations, 'mcp'), {
      key: 'mcp', title: 'MCP server', description: byKey(body.integrations, 'mcp')!.description, module: 'mcp', connected: true,
      scopes: ['mcp:remote'], tools: { 'mcp:remote': REMOTE_TOOLS.map((n) => `mcp.${n}`) }, remote: true, remote_error: null,
      through: [], used_by: [], limits: [],
    });
    t.match(byKey(body.integrations, 'github'), {
      module: 'dashboard', connected: true, scopes: ['mcp:github'], tools: { 'mcp:github': REMOTE_TOOLS.map((n) => `github.${n}`) }, remote: true, remote_error: null,
    });
    t.match(byKey(body.integrations, 'embeddings') ?? { remote: false }, { remote: false });
    const unauth = (await api(await tokenFor(orgIds.get('unauth')!, ['tokens:manage']), 'GET', '/api/organizations/unauth/tokens')).json();
    t.match(byKey(unauth.integrations, 'mcp'), { connected: true, tools: { 'mcp:remote': [] }, remote_error: /^401 from MCP server/ });
    t.match(byKey(unauth.integrations, 'github'), { connected: false, tools: { 'mcp:github': [] }, remote_error: null });

    const preview = await api(manager, 'POST', '/api/organizations/acm/tokens/preview', { scopes: ['mcp:remote', 'org:read'], limits: { mcp: { tools: ['get_*'] } } });
    t.equal(preview.statusCode, 200);
    t.same(preview.json(), {
      tools: [
        { name: 'mcp.get_repo', title: 'Get a repository', scope: 'mcp:remote', integration: 'mcp', remote: true },
        ...['modules.list', 'org.info', 'org.limits'].map((name) => ({ name, title: quad.registry.tools.get(name)!.title, scope: 'org:read', integration: null, remote: false })),
      ],
      unavailable: [],
    });
    t.equal((await api(manager, 'POST', '/api/organizations/acm/tokens/preview', { scopes: ['mcp:remote'], limits: { mcp: { tools: ['bad pattern'] } } })).statusCode, 400);
    t.equal((await api(manager, 'POST', '/api/organizations/acm/tokens/preview', { scopes: ['mcp:github'] })).json().reason, 'scope_not_held', 'a token previews at most its own scopes');
    const unauthPreview = await api(await tokenFor(orgIds.get('unauth')!, ['tokens:manage', 'mcp:remote']), 'POST', '/api/organizations/unauth/tokens/preview', { scopes: ['mcp:remote'] });
    t.match(unauthPreview.json(), { tools: [], unavailable: [{ integration: 'mcp', reason: 'remote_unauthorized', error: /^401 from/ }] });
  });
});
