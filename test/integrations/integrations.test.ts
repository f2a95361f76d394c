// Explore → Integrations over the API, with the real modules that declare integrations (the core's github, the
// knowledge module's embeddings and render, the submodules module's search, the pods module's hostprov, the tool
// server's mcp, whose test lists the remote server's tools) and two test
// modules (mirror: a module that needs the integration git; hooks: an integration whose test and onChange the
// tests steer). Saving and clearing fields in one transaction, readable fields shown back and secret ones never,
// bad bodies, audit rows without values, each integration's connection test against its fake, the embeddings
// integration starting knowledge.reembed, needs turning connected, and another org's officer refused.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { conflict, defineModule, type IntegrationContext } from '@quad/core';
import {
  allowOutside, bearer, signInOfficer, startFakeEmbeddings, startFakeGitHub, startFakeHostprov, startFakeRemoteMcp, startFakeRenderer,
  startFakeSearch, startSignInWorld,
} from '@quad/core/testing';
import { mirror } from '../fixtures/catalog-modules.js';

/** What the hooks module's hooks saw, and what its test does (by the value of hooks.key). */
const changes: Record<string, string>[] = [];
const hooks = defineModule({
  name: 'hooks', title: 'Hooks', description: 'An integration whose hooks the tests steer', category: 'Tests',
  integrations: [{
    key: 'relay', title: 'Relay', description: 'A test service',
    secrets: [{ name: 'relay.url', label: 'URL', readable: true }, { name: 'relay.key', label: 'Key' }, { name: 'relay.note', label: 'Note', optional: true, readable: true }],
    async test({ values }: IntegrationContext) {
      const key = values['relay.key']!;
      if (key.startsWith('bug')) throw new TypeError(`select secret from org_secrets where key = '${key}' at 10.0.0.7`);
      if (key.startsWith('echo')) throw new Error(`the relay refused the key ${key}`);
      return `the relay at ${values['relay.url']} answered with key ${key}`;
    },
    async onChange({ values }: IntegrationContext) {
      if (values['relay.key'] === 'reject') throw conflict('The relay refuses that key', 'relay_refused');
      changes.push({ ...values });
    },
  }],
});

const SECRETS_KEY = randomBytes(32).toString('base64');
const HOSTPROV_KEY = 'hp-integrations-key';
const EMBEDDINGS_KEY = 'emb-integrations-key';
const RENDER_KEY = 'render-integrations-key';
const MCP_TOKEN = 'mcp-integrations-token';

interface View { key: string; connected: boolean; testable: boolean; used_by: string[]; fields: { name: string; readable: boolean; set: boolean; value?: string }[] }

t.test('integrations', async (t) => {
  allowOutside(t);
  const github = await startFakeGitHub();
  t.teardown(() => github.close());
  const hostprov = await startFakeHostprov({ apiKey: HOSTPROV_KEY });
  t.teardown(() => hostprov.close());
  const embeddings = await startFakeEmbeddings(t, { apiKey: EMBEDDINGS_KEY });
  const renderer = await startFakeRenderer(t, { apiKey: RENDER_KEY });
  const search = await startFakeSearch(t);
  const remote = await startFakeRemoteMcp(t, { token: MCP_TOKEN });
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/knowledge', './plugins/submodules', './plugins/pods', mirror, hooks],
    orgModules: { knowledge: true, submodules: true, podhost: true, hooks: true },
    role: 'api',
    config: {
      ACCESS_ENFORCE: true, SECRETS_KEY: [SECRETS_KEY], GITHUB_API_URL: github.url, HOSTPROV_API_URL: hostprov.url,
      // The deployment's embedder: the service starts with it, and that starts no job.
      EMBEDDINGS_URL: embeddings.url, EMBEDDINGS_MODEL: 'deployment-model', EMBEDDINGS_API_KEY: EMBEDDINGS_KEY,
    },
  });
  const { quad, org } = world;
  const ieee = await quad.createOrg({ prefix: 'ieee', modules: { knowledge: true, hooks: true } });
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
  /** Every answer, to look for secret values in at the end. */
  const bodies: string[] = [];
  /** Values of write-only fields: none may be in any answer. */
  const hidden: string[] = [HOSTPROV_KEY, EMBEDDINGS_KEY, RENDER_KEY, MCP_TOKEN, github.token];
  const call = async (method: 'GET' | 'PUT' | 'DELETE' | 'POST', path: string, payload?: unknown, prefix = 'acm') => {
    const res = await quad.api.inject({ method, url: `/api/dashboard/${prefix}${path}`, headers: bearer(token), ...(payload !== undefined && { payload: payload as object }) });
    bodies.push(res.body);
    return res;
  };
  const save = (key: string, fields: Record<string, unknown>, prefix?: string) => call('PUT', `/integrations/${key}`, { fields }, prefix);
  const test = (key: string, prefix?: string) => call('POST', `/integrations/${key}/test`, undefined, prefix);
  const list = async (): Promise<View[]> => (await call('GET', '/integrations')).json().integrations;
  const reembeds = async () => (await sql("select status from job_runs where organization_id = ? and name = 'knowledge.reembed'", [org.id])).length;

  await t.test('every declared integration is listed with its fields; nothing is set at first', async (t) => {
    // The tool server's generic `mcp` integration is the remote tools' (test/tools); these are this file's.
    const all = (await list()).filter((i) => i.key !== 'mcp');
    t.same(all.map((i) => i.key), ['github', 'embeddings', 'render', 'search', 'hostprov', 'git', 'relay'], 'in the modules\' order');
    t.ok(all.every((i) => !i.connected && i.fields.every((f) => !f.set && f.value === undefined)));
    const byKey = new Map(all.map((i) => [i.key, i]));
    t.same(byKey.get('embeddings')!.fields.map((f) => [f.name, f.readable]), [
      ['embeddings.url', true], ['embeddings.model', true], ['embeddings.api_key', false], ['embeddings.query_prefix', true],
    ], 'URL, model and prefix are readable; the key is not');
    t.same(all.filter((i) => i.testable).map((i) => i.key), ['github', 'embeddings', 'render', 'search', 'hostprov', 'relay'], 'each real integration has a test');
    t.same(byKey.get('git')!.used_by, ['mirror'], 'the modules whose needs name it');
    t.same(await reembeds(), 0, 'the deployment default (EMBEDDINGS_URL) started no knowledge.reembed');
  });

  await t.test('a module\'s need turns connected as soon as its integration is', async (t) => {
    const mirrorOf = async () => (await call('GET', '/modules')).json().modules.find((m: { name: string }) => m.name === 'mirror');
    t.match(await mirrorOf(), { ready: false, needs: [{ key: 'git', connected: false }] });
    t.equal((await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules: { mirror: true } } })).statusCode, 409);
    t.equal((await save('git', { 'git.token': 'git-token-1' })).json().connected, true);
    hidden.push('git-token-1');
    t.match(await mirrorOf(), { ready: true, switchable: true, needs: [{ key: 'git', connected: true }] });
    const on = await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules: { mirror: true } } });
    t.equal(on.statusCode, 200, 'and the module may be added');
  });

  await t.test('a save sets and clears several fields in one transaction, shows readable values only, audits names only', async (t) => {
    const key = `relay-${randomBytes(8).toString('hex')}`;
    hidden.push(key);
    const res = await save('relay', { 'relay.url': '  https://relay.example/api \n', 'relay.key': key, 'relay.note': null });
    t.equal(res.statusCode, 200);
    const view: View = res.json();
    t.match(view, { key: 'relay', connected: true, testable: true });
    t.same(view.fields.map((f) => ({ name: f.name, set: f.set, value: f.value })), [
      { name: 'relay.url', set: true, value: 'https://relay.example/api' },
      { name: 'relay.key', set: true, value: undefined },
      { name: 'relay.note', set: false, value: undefined },
    ], 'the readable URL comes back trimmed; the key only as set');
    t.same((await list()).find((i) => i.key === 'relay'), view, 'the listing says the same');
    t.same(changes.at(-1), { 'relay.url': 'https://relay.example/api', 'relay.key': key }, 'onChange got the new values, in the transaction');
    const [audit] = await sql("select actor, details from audit_log where organization_id = ? and action = 'integrations.save' order by id desc limit 1", [org.id]);
    t.same(audit.details, { integration: 'relay', set: ['relay.url', 'relay.key'], cleared: [] });
    t.equal(audit.actor, `officer:${world.officer.id}`);

    const cleared = await save('relay', { 'relay.note': 'kept', 'relay.url': null });
    t.match(cleared.json(), { connected: false });
    t.same(cleared.json().fields.map((f: View['fields'][0]) => f.value), [undefined, undefined, 'kept']);
    const [second] = await sql("select details from audit_log where organization_id = ? and action = 'integrations.save' order by id desc limit 1", [org.id]);
    t.same(second.details, { integration: 'relay', set: ['relay.note'], cleared: ['relay.url'] });

    const refused = await save('relay', { 'relay.url': 'https://other.example', 'relay.key': 'reject' });
    t.equal(refused.statusCode, 409, 'onChange refused: the whole save is rolled back');
    t.equal(refused.json().reason, 'relay_refused');
    const after = (await list()).find((i) => i.key === 'relay')!;
    t.same(after.fields.map((f) => f.set), [false, true, true], 'nothing of that save was stored');
    t.equal((await sql("select count(*)::int as n from audit_log where action like 'integrations.%' and details::text like '%reject%'"))[0].n, 0);
    t.equal((await sql('select count(*)::int as n from audit_log where details::text like ?', [`%${key}%`]))[0].n, 0, 'no audit row holds a value');
  });

  await t.test('a field set through Settings → Secrets runs onChange too', async (t) => {
    const before = changes.length;
    const res = await quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/secrets/relay.url', headers: bearer(token), payload: { value: 'https://relay.example/v2' } });
    t.equal(res.statusCode, 200);
    t.equal(changes.length, before + 1);
    t.equal(changes.at(-1)!['relay.url'], 'https://relay.example/v2');
  });

  await t.test('bad bodies are 400 naming the field, unknown integrations 404, and nothing changes', async (t) => {
    const audits = async () => (await sql("select count(*)::int as n from audit_log where action like 'integrations.%'"))[0].n;
    const before = await audits();
    const cases: [unknown, number, string | RegExp][] = [
      [{ fields: { 'relay.nope': 'x' } }, 400, 'unknown_field'],
      [{ fields: { 'embeddings.url': 'x' } }, 400, 'unknown_field'],
      [{ fields: {} }, 400, 'validation'],
      [{}, 400, 'validation'],
      [{ fields: { 'relay.url': 5 } }, 400, 'validation'],
      [{ fields: { 'relay.url': '   ' } }, 400, 'validation'],
      [{ fields: { 'relay.url': 'x'.repeat(8193) } }, 400, 'validation'],
      [{ fields: { 'relay.url': 'https://ok.example' }, more: 1 }, 400, 'validation'],
    ];
    for (const [payload, status, reason] of cases) {
      const res = await call('PUT', '/integrations/relay', payload);
      t.equal(res.statusCode, status, JSON.stringify(payload).slice(0, 80));
      t.match(res.json().reason, reason);
    }
    t.match((await call('PUT', '/integrations/relay', { fields: { 'relay.nope': 'x' } })).json().error, /body\.fields\.relay\.nope: not a field of relay \(its fields: relay\.url, relay\.key, relay\.note\)/);
    t.equal((await save('nope', { 'nope.x': 'y' })).statusCode, 404);
    t.equal((await call('DELETE', '/integrations/nope')).statusCode, 404);
    t.equal((await test('nope')).statusCode, 404);
    t.equal((await call('PUT', '/integrations/Bad-Key', { fields: { x: 'y' } })).statusCode, 400);
    t.equal(await audits(), before, 'no audit row');
    t.equal((await list()).find((i) => i.key === 'relay')!.fields[0].value, 'https://relay.example/v2', 'the value is the one before');
  });

  await t.test('Test: 409 while not connected, 400 without a test, the test\'s own words without secrets, a bug\'s never', async (t) => {
    const notConnected = await test('render');
    t.equal(notConnected.statusCode, 409);
    t.match(notConnected.json(), { reason: 'not_connected', missing: ['render.url'], error: 'Connect Page rendering first: Base URL is not set' });
    t.equal((await test('git')).statusCode, 400, 'git declares no test');
    t.equal((await test('git')).json().reason, 'not_testable');

    const echo = `echo-${randomBytes(8).toString('hex')}`;
    hidden.push(echo);
    await save('relay', { 'relay.key': echo });
    const said = await test('relay');
    t.equal(said.statusCode, 200);
    t.same(said.json(), { ok: false, message: 'the relay refused the key ***' }, 'a secret value in the message is masked');

    const bug = `bug-${randomBytes(8).toString('hex')}`;
    hidden.push(bug);
    await save('relay', { 'relay.key': bug });
    const failed = await test('relay');
    t.equal(failed.statusCode, 200);
    t.equal(failed.json().ok, false);
    t.match(failed.json().message, /^The test of Relay failed unexpectedly; the error log has the details \(request [\w-]+\)$/);
    t.notMatch(failed.body, /select|10\.0\.0\.7/, 'no SQL, no address');
    const [logged] = await sql('select message from error_log where organization_id = ? order by id desc limit 1', [org.id]);
    t.match(logged.message, /select secret/, 'the error log has it');

    await save('relay', { 'relay.key': 'good-key' });
    t.same((await test('relay')).json(), { ok: true, message: 'the relay at https://relay.example/v2 answered with key ***' });
  });

  await t.test('GitHub: GET /rate_limit at GITHUB_API_URL with the org\'s token', async (t) => {
    await save('github', { 'github.token': 'ghp_wrong0000000000' });
    hidden.push('ghp_wrong0000000000');
    t.same((await test('github')).json(), { ok: false, message: '401 from GitHub: check the token (it may be mistyped, expired or revoked)' });
    await save('github', { 'github.token': github.token });
    t.same((await test('github')).json(), { ok: true, message: 'GitHub accepted the token (4999 of 5000 requests left this hour)' });
    t.match(github.requests.at(-1), { method: 'GET', path: '/rate_limit', auth: 'token' });
    github.down(true);
    t.match((await test('github')).json(), { ok: false, message: /^GitHub cannot be reached now; try again later/ });
    github.down(false);
  });

  await t.test('Embeddings: one text embedded with the org\'s URL, model and key; saving starts knowledge.reembed', async (t) => {
    t.equal(await reembeds(), 0);
    const saved = await save('embeddings', { 'embeddings.url': embeddings.url, 'embeddings.model': 'org-model', 'embeddings.api_key': 'wrong-key' });
    hidden.push('wrong-key');
    t.equal(saved.statusCode, 200);
    t.same(saved.json().fields.map((f: View['fields'][0]) => f.value), [embeddings.url, 'org-model', undefined, undefined]);
    t.same(await sql("select status from job_runs where organization_id = ? and name = 'knowledge.reembed'", [org.id]), [{ status: 'queued' }], 'the save queued knowledge.reembed');
    t.equal((await sql('select count(*)::int as n from usage_counters where organization_id = ? and key = ?', [org.id, 'knowledge.jobs_per_day']))[0].n, 0, 'not counted against knowledge.jobs_per_day');

    const wrong = await test('embeddings');
    t.equal(wrong.json().ok, false);
    t.match(wrong.json().message, /^401 from the embeddings service at 127\.0\.0\.2:\d+: check the key$/);
    t.match(embeddings.requests.at(-1), { key: 'wrong-key', model: 'org-model', input: ['Quad connection test'] });

    t.equal((await save('embeddings', { 'embeddings.api_key': EMBEDDINGS_KEY })).statusCode, 200, 'saved again while one is queued');
    t.equal(await reembeds(), 1, 'nothing more starts while one is queued');
    t.match((await test('embeddings')).json(), { ok: true, message: /^The embeddings service at 127\.0\.0\.2:\d+ embedded a test text with model "org-model" \(1024 numbers\)$/ });

    embeddings.failNext(503);
    t.match((await test('embeddings')).json(), { ok: false, message: /^503 from the embeddings service at .*: the service failed; try again later$/ });
    // An org's URL goes through the safe fetcher: a loopback address is refused before any request.
    await save('embeddings', { 'embeddings.url': 'http://127.0.0.1:9/v1' });
    t.match((await test('embeddings')).json(), { ok: false, message: /^The embeddings URL cannot be used/ });
    await save('embeddings', { 'embeddings.url': embeddings.url });

    await sql("update job_runs set status = 'succeeded', finished_at = now() where organization_id = ? and name = 'knowledge.reembed'", [org.id]);
    const clear = await call('DELETE', '/integrations/embeddings');
    t.match(clear.json(), { connected: false });
    t.ok(clear.json().fields.every((f: View['fields'][0]) => !f.set));
    t.equal(await reembeds(), 2, 'clearing it (back to the deployment default) starts another');
    const [audit] = await sql("select details from audit_log where organization_id = ? and action = 'integrations.clear' order by id desc limit 1", [org.id]);
    t.same(audit.details, { integration: 'embeddings', cleared: ['embeddings.url', 'embeddings.model', 'embeddings.api_key'] });
    const again = await call('DELETE', '/integrations/embeddings');
    t.equal(again.statusCode, 200, 'clearing what is not set changes nothing');
    t.equal((await sql("select count(*)::int as n from audit_log where organization_id = ? and action = 'integrations.clear'", [org.id]))[0].n, 1);
  });

  await t.test('Page rendering: POST <url>/content with a known public page', async (t) => {
    renderer.set('https://example.com/', '<!doctype html><title>Example Domain</title><h1>Example Domain</h1>');
    await save('render', { 'render.url': renderer.url, 'render.api_key': 'wrong-render' });
    hidden.push('wrong-render');
    t.match((await test('render')).json(), { ok: false, message: /^401 from the page-rendering service at 127\.0\.0\.2:\d+: check the key$/ });
    await save('render', { 'render.api_key': RENDER_KEY });
    t.match((await test('render')).json(), { ok: true, message: /^The page-rendering service at 127\.0\.0\.2:\d+ rendered https:\/\/example\.com\/ \(\d+ bytes of HTML\)$/ });
    t.same(renderer.requests.at(-1), { url: 'https://example.com/', key: RENDER_KEY });
    await save('render', { 'render.url': `${renderer.url}/wrong` });
    t.match((await test('render')).json(), { ok: false, message: /^404 from the page-rendering service .*: check the URL/ });
    t.equal(await reembeds(), 2, 'saving another integration of the knowledge module starts nothing');
  });

  await t.test('Web search: one SearXNG query', async (t) => {
    await save('search', { 'search.url': search.url });
    t.match((await test('search')).json(), { ok: true, message: /^The search service at 127\.0\.0\.2:\d+ answered a test query with 3 results$/ });
    t.match(search.requests.at(-1), { path: '/search', q: 'quad', format: 'json' });
    search.fail('garbage');
    t.match((await test('search')).json(), { ok: false, message: /did not answer JSON: is it a SearXNG-style search service\?$/ });
    search.fail({ status: 403 });
    t.match((await test('search')).json(), { ok: false, message: /^403 from the search service .*: its JSON format may be off/ });
    search.fail(null);
    await save('search', { 'search.url': 'not a url' });
    t.match((await test('search')).json(), { ok: false, message: /^The search URL is not valid/ });
  });

  await t.test('Pod provider: the account\'s pod list with the org\'s key', async (t) => {
    await save('hostprov', { hostprov_api_key: 'hp-wrong' });
    hidden.push('hp-wrong');
    t.same((await test('hostprov')).json(), { ok: false, message: '401 from the pod provider: check the API key' });
    await save('hostprov', { hostprov_api_key: HOSTPROV_KEY });
    t.same((await test('hostprov')).json(), { ok: true, message: 'The pod provider accepted the key (0 pods on the account)' });
    t.match(hostprov.requests.at(-1), { method: 'GET', path: '/v2/pods', key: HOSTPROV_KEY });
  });

  await t.test('MCP server: its tools listed by the remote tools\' own listing, with the org\'s URL and token', async (t) => {
    await save('mcp', { 'mcp.url': remote.url, 'mcp.token': 'mcp-wrong-token' });
    hidden.push('mcp-wrong-token');
    t.same((await test('mcp')).json(), { ok: false, message: '401 from MCP server: check the integration\'s token' });
    await save('mcp', { 'mcp.token': MCP_TOKEN });
    t.same((await test('mcp')).json(), { ok: true, message: 'MCP server lists 5 tools: get_repo, list_issues, echo, whoami, broken' });
    t.equal(remote.requests.at(-1)?.authorization, `Bearer ${MCP_TOKEN}`);
    t.same(remote.calls, [], 'a test calls no tool');
  });

  await t.test('a module that is off: its integration is saved, its onChange does not run', async (t) => {
    await quad.updateOrg(org.id, { modules: { knowledge: true, submodules: true, podhost: true, mirror: true } });
    const before = changes.length;
    t.equal((await save('relay', { 'relay.note': 'while off' })).statusCode, 200);
    t.equal(changes.length, before);
    await quad.updateOrg(org.id, { modules: { knowledge: true, submodules: true, podhost: true, mirror: true, hooks: true } });
  });

  await t.test('another org\'s officer is refused everywhere, and nothing of that org changes', async (t) => {
    const ieeeKey = `ieee-${randomBytes(8).toString('hex')}`;
    hidden.push(ieeeKey);
    await quad.services.secrets.set(quad.emFor(ieee.id), ieee.id, 'relay.key', ieeeKey);
    await quad.services.secrets.set(quad.emFor(ieee.id), ieee.id, 'relay.url', 'https://ieee.example');
    const tries = [
      await call('GET', '/integrations', undefined, 'ieee'),
      await save('relay', { 'relay.key': 'taken' }, 'ieee'),
      await call('DELETE', '/integrations/relay', undefined, 'ieee'),
      await test('relay', 'ieee'),
    ];
    t.same(tries.map((r) => r.statusCode), [403, 403, 403, 403]);
    t.ok(tries.every((r) => r.json().reason === 'not_org_officer'));
    t.equal(await quad.services.secrets.get(quad.emFor(ieee.id), ieee.id, 'relay.key'), ieeeKey, 'untouched');
    t.ok(!bodies.some((b) => b.includes('ieee.example')), 'not even its readable values');
    const anonymous = await quad.api.inject({ url: '/api/dashboard/acm/integrations' });
    t.equal(anonymous.statusCode, 401);
  });

  await t.test('no answer held a write-only value', async (t) => {
    const secretsList = await call('GET', '/secrets');
    t.equal(secretsList.statusCode, 200);
    t.notMatch(secretsList.body, /relay\.example/, 'Settings → Secrets shows no value, readable or not');
    t.ok(bodies.length > 50);
    for (const value of hidden) t.notOk(bodies.some((b) => b.includes(value)), `never sent back: ${value.slice(0, 6)}…`);
  });
});
