// The `repos` limit of remote tools against the shapes of GitHub's own tools (test/fakes/github/mcp-tools.ts, the
// input schemas GitHub's MCP server lists): the repository is read only from parameters a tool declares, a search
// query's repo:/org:/user: qualifiers must all be inside the token's patterns, and a search not confined to them is
// refused — the decoy `{query: "repo:victim/private password", owner: "acm", repo: "site"}` of issue 38 included.
// Every refusal is decided before anything is sent: the fake GitHub server never receives a refused call.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allowOutside, roomInMinute, startFakeRemoteMcp, startTestApp } from '@quad/core/testing';
import { defaultRepoArgument, ownerRepoArgument, parseSearchQuery, repoRefusal } from '../../core/src/tools/repo-limit.js';
import { GITHUB_INPUT_SCHEMAS, githubMcpTools } from '../fakes/github/mcp-tools.js';

const PATTERNS = ['acm/*', 'octo/hello'];
const DECOY = { query: 'repo:victim/private password', owner: 'acm', repo: 'site' };

type Case = [tool: keyof typeof GITHUB_INPUT_SCHEMAS, args: Record<string, unknown>, expected: 'ok' | 'repo_not_allowed' | 'repo_required', why: string];
const CASES: Case[] = [
  ['get_file_contents', { owner: 'acm', repo: 'site', path: 'README.md' }, 'ok', 'owner and repo inside'],
  ['list_issues', { owner: 'ACM', repo: 'Site', state: 'OPEN' }, 'ok', 'names match without case'],
  ['create_issue', { owner: 'octo', repo: 'hello', title: 'x' }, 'ok', 'an exact pattern'],
  ['search_code', { query: 'password repo:acm/site' }, 'ok', 'a repo: qualifier inside'],
  ['search_code', { query: 'password org:acm' }, 'ok', 'org: of an owner a pattern covers whole (acm/*)'],
  ['search_code', { query: 'REPO:acm/site "a phrase" -repo:victim/x' }, 'ok', 'case; a negated qualifier names nothing it reaches'],
  ['search_code', { query: 'x repo:acm/a repo:octo/hello' }, 'ok', 'several qualifiers, all inside'],
  ['search_code', { query: 'repo:"acm/site" foo' }, 'ok', 'a quoted qualifier value'],
  ['search_repositories', { query: 'user:acm stars:>10' }, 'ok', 'user: of a covered owner'],
  ['search_issues', { owner: 'acm', repo: 'site', query: 'login fails' }, 'ok', 'the declared repository confines a query without repo:'],
  ['search_issues', { query: 'bug repo:octo/hello' }, 'ok', 'or its own qualifier'],
  ['search_code', DECOY, 'repo_not_allowed', 'the decoy: owner and repo are not search_code\'s parameters'],
  ['get_file_contents', { owner: 'victim', repo: 'x' }, 'repo_not_allowed', 'a repository outside'],
  ['get_file_contents', { owner: 'acm', repo: '../victim' }, 'repo_not_allowed', 'not a repository name'],
  ['search_code', { query: 'password org:octo' }, 'repo_not_allowed', 'org: of an owner only partly allowed'],
  ['search_code', { query: 'password user:victim' }, 'repo_not_allowed', 'user: outside'],
  ['search_code', { query: 'repo:acm/site repo:victim/x' }, 'repo_not_allowed', 'one qualifier of several outside'],
  ['search_code', { query: '"password repo:victim/x"' }, 'repo_not_allowed', 'inside quotes too (a server may strip them)'],
  ['search_code', { query: 'Repo:Victim/X' }, 'repo_not_allowed', 'any case'],
  ['search_code', { query: 'NOT repo:victim/x foo' }, 'repo_not_allowed', 'NOT is not a `-`: checked like a plain qualifier'],
  ['search_code', { query: 'repo:acm/*' }, 'repo_not_allowed', 'a wildcard is no repository'],
  ['search_code', { query: '\u0130repo:aacm/site password' }, 'repo_not_allowed', 'positions hold whatever lower-casing does to a character (İ)'],
  ['search_code', { query: 'u\u017fer:victim' }, 'repo_not_allowed', 'ſ folds to s'],
  ['search_issues', { owner: 'acm', repo: 'site', query: 'repo:victim/x bug' }, 'repo_not_allowed', 'a query qualifier beside the declared repository'],
  ['search_code', { query: 'password', owner: 'acm', repo: 'site' }, 'repo_required', 'the decoy without a qualifier: the search reaches everything'],
  ['search_code', { query: 'password' }, 'repo_required', 'no qualifier'],
  ['search_code', { query: '-repo:victim/x password' }, 'repo_required', 'a negated qualifier confines nothing'],
  ['search_code', { query: 'repo:acm/site OR password' }, 'repo_required', 'OR steps around a qualifier'],
  ['search_code', { query: 'repo:acm/site or password' }, 'repo_required', 'or in any case'],
  ['search_code', { query: '(repo:acm/site) password' }, 'repo_required', 'parentheses'],
  ['search_code', { query: 'x.repo:acm/site password' }, 'repo_required', 'a qualifier inside a word may be text'],
  ['search_code', { query: '"repo:acm/site" password' }, 'repo_required', 'a quoted phrase confines nothing'],
  ['search_code', { query: '"password"repo:acm/site' }, 'repo_required', 'nor a qualifier stuck to one'],
  ['search_code', { query: 'NOT repo:acm/site password' }, 'repo_required', 'a qualifier after NOT confines nothing'],
  ['search_code', { query: 'password "open repo:acm/site' }, 'repo_required', 'an unclosed quote'],
  ['search_issues', { owner: 'acm', repo: 'site', query: '-repo:acm/other bug' }, 'repo_required', 'repo: in the query: GitHub adds no repository'],
  ['search_issues', { owner: 'acm', repo: 'site', query: 'login OR signup' }, 'repo_required', 'OR beside the added repository'],
  ['search_issues', { repo: 'acm/site', query: 'bug' }, 'repo_required', 'GitHub reads repo only with owner'],
  ['get_me', {}, 'repo_required', 'a tool that declares no repository'],
  ['get_me', { owner: 'acm', repo: 'site' }, 'repo_required', 'decoys on a tool that declares none'],
];

const github = (name: keyof typeof GITHUB_INPUT_SCHEMAS) => ({
  integration: 'github', title: 'GitHub', name: `github.${name}`, inputSchema: GITHUB_INPUT_SCHEMAS[name], repoArgument: ownerRepoArgument,
});

t.test('search queries are read with string operations: qualifiers, negation, quotes, operators', async (t) => {
  t.match(parseSearchQuery('a REPO:acm/x -org:b "c user:d" NOT user:e repo:"f/g"'), {
    qualifiers: [
      { key: 'repo', value: 'acm/x', negated: false, confining: true },
      { key: 'org', value: 'b', negated: true, confining: false },
      { key: 'user', value: 'd', negated: false, confining: false },
      { key: 'user', value: 'e', negated: false, confining: false },
      { key: 'repo', value: 'f/g', negated: false, confining: true },
    ],
    operators: false, balanced: true, mentionsRepo: true,
  });
  t.match(parseSearchQuery('language:go (a OR b)'), { qualifiers: [], operators: true, mentionsRepo: false });
  t.match(parseSearchQuery('"OR (x)"'), { operators: false, balanced: true }, 'operators inside quotes are text');
  t.match(parseSearchQuery('foo "bar'), { balanced: false });
  t.same(parseSearchQuery('therepo:x myorg:y').qualifiers, [], 'a qualifier name must start after a non-word character');
  const hostile = `${'"repo:a/b '.repeat(20_000)}${'(-org:x '.repeat(20_000)}${'"'.repeat(5_000)}repo:"`;
  const started = performance.now();
  t.equal(parseSearchQuery(hostile).qualifiers.length, 40_001);
  t.ok(performance.now() - started < 1000, 'one pass, linear in the query');
});

t.test('repoRefusal over the real GitHub tool shapes', async (t) => {
  for (const [tool, args, expected, why] of CASES) {
    const outcome = repoRefusal(github(tool), PATTERNS, args);
    t.equal(outcome === null ? 'ok' : (outcome as { reason: string }).reason, expected, `${tool} ${JSON.stringify(args)}: ${why}`);
  }
  t.equal(repoRefusal(github('get_me'), undefined, {}), null, 'a token without repos patterns is not limited');
  t.equal(repoRefusal(github('search_code'), ['*'], { query: 'password org:anyone' }), null, '* covers every owner');
  t.equal(repoRefusal({ ...github('search_issues'), repoArgument: defaultRepoArgument }, PATTERNS, { repo: 'acm/site', query: 'bug' }), null,
    'the default repoArgument (other servers) takes repo as owner/name');
  t.match(repoRefusal(github('search_code'), PATTERNS, DECOY), {
    status: 403, reason: 'repo_not_allowed', details: { qualifier: 'repo:victim/private' },
    error: 'This token may not use github.search_code on victim/private (limits.github.repos)',
  });
  t.match(repoRefusal(github('search_code'), PATTERNS, { query: 'password' }), {
    status: 403, reason: 'repo_required', error: /^This token may use GitHub only on some repositories \(limits\.github\.repos\), and the query of this call of github\.search_code is not confined to them/,
  });
  t.match(repoRefusal(github('search_code'), PATTERNS, { query: 'org:octo' }), { error: /on every repository of octo/ });
  const proto = { ...github('get_me'), inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"}}}'), repoArgument: defaultRepoArgument };
  t.match(repoRefusal(proto, PATTERNS, JSON.parse('{"__proto__":{"owner":"acm","repo":"site"}}')), { reason: 'repo_required' }, 'a declared __proto__ is no prototype');
});

t.test('over /api/tools/call and MCP: refused calls never reach GitHub\'s server', async (t) => {
  allowOutside(t);
  await roomInMinute(20_000);
  const fake = await startFakeRemoteMcp(t, { token: 'ghp_test' });
  fake.tools = githubMcpTools();
  const quad = await startTestApp(t, { listen: true, config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')], GITHUB_MCP_URL: fake.url } });
  const org = await quad.createOrg({ prefix: 'acm' });
  await quad.services.secrets.set(quad.orm.em.fork(), org.id, 'github.token', 'ghp_test', 'test');
  const limited = (await quad.issueToken(org.id, { scopes: ['mcp:github'], limits: { github: { repos: PATTERNS } } })).token;
  const call = (token: string, name: string, args: object) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: { authorization: `Bearer ${token}` }, payload: { name, arguments: args } });

  const listed = (await quad.api.inject({ url: '/api/tools', headers: { authorization: `Bearer ${limited}` } })).json().tools;
  t.same(listed.map((x: { name: string }) => x.name), Object.keys(GITHUB_INPUT_SCHEMAS).map((n) => `github.${n}`).sort(), 'the GitHub shapes are listed');
  t.same(listed.find((x: { name: string }) => x.name === 'github.search_code').inputSchema, GITHUB_INPUT_SCHEMAS.search_code);

  const forwarded: unknown[] = [];
  for (const [tool, args, expected, why] of CASES) {
    const res = await call(limited, `github.${tool}`, args);
    const label = `${tool} ${JSON.stringify(args)}: ${why}`;
    if (expected === 'ok') {
      t.equal(res.statusCode, 200, label);
      t.match(res.json(), { ok: true, remote: true, result: { content: [{ text: `${tool} ${JSON.stringify(args)}` }] } });
      forwarded.push({ name: tool, arguments: args });
    } else {
      t.equal(res.statusCode, 403, label);
      t.equal(res.json().reason, expected, label);
    }
  }
  t.same(fake.calls.map(({ name, arguments: a }) => ({ name, arguments: a })), forwarded, 'only the allowed calls reached the server');

  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const mcpUrl = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${limited}` } } }));
  t.teardown(() => client.close());
  const decoy = await client.callTool({ name: 'github.search_code', arguments: DECOY });
  t.match(decoy, { isError: true, content: [{ text: /may not use github\.search_code on victim\/private/ }] }, 'the decoy over MCP');
  const bare = await client.callTool({ name: 'github.search_code', arguments: { query: 'password', owner: 'acm', repo: 'site' } });
  t.match(bare, { isError: true, content: [{ text: /not confined/ }] });
  t.equal(fake.calls.length, forwarded.length, 'nothing more reached the server');

  const audit = await quad.orm.em.fork().getConnection().execute("select details->>'result' as result from audit_log where action = 'tools.call' and details->>'tool' = 'github.search_code' order by id desc limit 2");
  t.same((audit as { result: string }[]).map((r) => r.result), ['repo_required', 'repo_not_allowed'], 'refusals are audited with their reason');

  const open = (await quad.issueToken(org.id, { scopes: ['mcp:github'] })).token;
  t.equal((await call(open, 'github.search_code', { query: 'password' })).statusCode, 200, 'a token without repos patterns searches as the org\'s credentials allow');
  t.equal((await call(open, 'github.get_me', {})).statusCode, 200);
});
