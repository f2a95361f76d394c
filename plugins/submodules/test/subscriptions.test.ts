// The catalog and subscriptions without the knowledge module: the routes mounted, the record of each submodule,
// subscribe (201), again (200), end and re-subscribe, the limit submodules.subscriptions (409), the module switch
// (404), the token routes and their scopes, the legacy names, the superadmin's view, the tools with confirm, and the
// service `submodules.subscriptions` other modules read.
import t from 'tap';
import { defineService, type EntityManager } from '@quad/core';
import { startSubmodulesWorld } from './world.js';

const w = await startSubmodulesWorld(t);
const { quad, org } = w;
const beta = await quad.createOrg({ prefix: 'beta', modules: { submodules: true } });
const betaManager = (await quad.issueToken(beta.id, { scopes: ['submodules:manage'] })).token;
const list = async (token = w.officerToken) => (await w.call('GET', '/api/dashboard/acm/submodules', token)).json();
const record = async (name: string) => (await list()).submodules.find((s: { name: string }) => s.name === name);

interface Subscriptions {
  subscribedBy(em: EntityManager, orgId: number): Promise<string[]>;
  withSubscribers(em: EntityManager): Promise<string[]>;
  feedPresets(em: EntityManager, orgId: number): Promise<{ submodule: string; key: string; kind: string; config: Record<string, unknown> }[]>;
}
const service = quad.services.service(defineService<Subscriptions>({ id: 'submodules.subscriptions', methods: ['subscribedBy', 'withSubscribers', 'feedPresets'] }));

t.test('routes are mounted', async (t) => {
  t.same(quad.routes('/api/').filter((r) => /submodules|campus/.test(r)), [
    'DELETE /api/campus/subscription', 'DELETE /api/dashboard/:org/submodules/:submodule/subscription', 'DELETE /api/submodules/:submodule/subscription',
    'GET /api/campus/queries', 'GET /api/dashboard/:org/submodules', 'GET /api/submodules', 'GET /api/submodules/:submodule/queries',
    'GET /api/superadmin/submodules', 'POST /api/campus/query', 'POST /api/campus/sync', 'POST /api/dashboard/:org/knowledge/submodules/:submodule/sync',
    'POST /api/submodules/:submodule/query', 'POST /api/submodules/:submodule/sync', 'PUT /api/campus/subscription',
    'PUT /api/dashboard/:org/submodules/:submodule/subscription', 'PUT /api/submodules/:submodule/subscription',
  ]);
});

t.test('the catalog: each submodule with its record', async (t) => {
  const res = await w.call('GET', '/api/dashboard/acm/submodules', w.officerToken);
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(body.submodules.map((s: { name: string }) => s.name), ['campus', 'careers']);
  t.same(body.limit, { use: 0, value: 20 }, 'the limit submodules.subscriptions, 20 by default');
  const campus = body.submodules[0];
  t.match(campus, {
    title: 'Campus', subscribed: false, subscribed_at: null, subscribers: 0, passages: null, last_crawl_at: null, feeds: [],
    links: { course_management: `${w.campus.url}/`, sign_in: `${w.campus.url}/cas/login` },
    modules: [
      { module: 'knowledge', parts: ['pages'], loaded: false, enabled: false },
      { module: 'agents', parts: ['queries'], loaded: false, enabled: false },
      { module: 'accounts', parts: ['links'], loaded: false, enabled: false },
    ],
  });
  t.same(campus.pages[0], {
    key: 'campus/academic-calendar', url: `${w.campus.url}/academic-calendar`, title: 'ASU academic calendar', category: 'calendar', fetch_every_hours: 72, crawl: null,
  }, 'pages on the base the deployment set (SUBMODULES_BASE_URLS), no crawl without the knowledge module');
  t.equal(campus.pages.length, 28);
  t.same(campus.queries.map((q: { name: string }) => q.name), [
    'courses', 'course_catalog', 'scholarships', 'events', 'news', 'library_catalog', 'library_hours', 'study_rooms', 'sports', 'sports_news', 'shuttles',
    'campus_map', 'social_media', 'dining', 'jobs', 'web',
  ], 'the ASU kit\'s queries');
  t.same(campus.queries[0].params.slice(0, 3), [
    { name: 'term', description: 'the term: Spring, Summer or Fall and the year, e.g. Fall 2026', required: true, default: null, values: null, many: false, pattern: null, example: 'Fall 2026', max_length: 20 },
    { name: 'keywords', description: 'subject, course number, title or class number, e.g. CSE 310', required: false, default: null, values: null, many: false, pattern: null, example: 'CSE 310', max_length: 100 },
    {
      name: 'level', description: 'course levels, a comma list', required: false, default: null, many: true, pattern: null, example: null, max_length: 200,
      values: ['lower division', 'upper division', 'undergraduate', 'graduate', '100-199', '200-299', '300-399', '400-499'],
    },
  ]);
  const notIndexed = campus.queries.filter((q: { index: boolean }) => !q.index).map((q: { name: string }) => q.name);
  t.same(notIndexed, ['events', 'study_rooms', 'shuttles', 'web'], 'the web query and answers about the moment are not indexed; the others are');
  const careers = body.submodules[1];
  t.same(careers.feeds.map((f: { key: string; kind: string }) => `${f.key}:${f.kind}`), ['swe-internships:repo_jobs', 'new-grad:repo_jobs', 'hackathons:hackathons']);
  t.match(careers.feeds[0].config, { repo: 'SimplifyJobs/Summer2026-Internships', branch: 'dev', path: 'README.md' });
  t.same(careers.modules, [{ module: 'feeds', parts: ['feeds'], loaded: false, enabled: false }]);
  t.same([careers.pages, careers.queries, careers.links], [[], [], { course_management: null, sign_in: null }]);
});

t.test('subscribe, again, end, re-subscribe', async (t) => {
  const url = '/api/dashboard/acm/submodules/campus/subscription';
  const first = await w.call('PUT', url, w.officerToken);
  t.equal(first.statusCode, 201, 'new');
  t.match(first.json(), { submodule: 'campus', subscribed: true, subscribed_at: String, shared_pages: null });
  const again = await w.call('PUT', url, w.officerToken);
  t.equal(again.statusCode, 200, 'again');
  t.equal(again.json().subscribed_at, first.json().subscribed_at, 'since the first time');
  t.match(await record('campus'), { subscribed: true, subscribed_at: first.json().subscribed_at, subscribers: 1 });

  t.equal((await w.call('PUT', '/api/dashboard/acm/submodules/nope/subscription', w.officerToken)).statusCode, 404, 'unknown submodule');
  t.match((await w.call('PUT', '/api/dashboard/acm/submodules/nope/subscription', w.officerToken)).json(), { reason: 'unknown_submodule', error: /campus, careers/ });

  t.equal((await w.call('PUT', '/api/submodules/campus/subscription', betaManager)).statusCode, 201, 'another org');
  t.match(await record('campus'), { subscribers: 2 });

  const end = await w.call('DELETE', url, w.officerToken);
  t.equal(end.statusCode, 200);
  t.same(end.json(), { submodule: 'campus', subscribed: false });
  t.match((await w.call('DELETE', url, w.officerToken)).json(), { reason: 'not_subscribed' });
  t.equal((await w.call('DELETE', url, w.officerToken)).statusCode, 404, 'nothing to end');
  t.match(await record('campus'), { subscribed: false, subscribers: 1 }, 'beta still subscribes');
  t.equal((await w.call('PUT', url, w.officerToken)).statusCode, 201, 're-subscribe is new again');

  const audit = await w.sql<{ action: string; actor: string; details: Record<string, unknown> }>(
    "select action, actor, details from audit_log where organization_id = ? and action like 'submodules.%' order by id", [org.id]);
  t.same(audit.map((a) => [a.action, a.details.submodule, a.details.again ?? null]), [
    ['submodules.subscribe', 'campus', false], ['submodules.subscribe', 'campus', true], ['submodules.unsubscribe', 'campus', null], ['submodules.subscribe', 'campus', false],
  ]);
  t.match(audit[0].actor, /^officer:/);
});

t.test('the limit submodules.subscriptions: 409 when full, again still 200', async (t) => {
  const limit = (value: number | 'default') => w.call('PUT', `/api/superadmin/limits/${org.id}`, w.adminToken, { 'submodules.subscriptions': value });
  t.equal((await limit(1)).statusCode, 200);
  t.teardown(() => limit('default'));
  const full = await w.call('PUT', '/api/dashboard/acm/submodules/careers/subscription', w.officerToken);
  t.equal(full.statusCode, 409);
  t.match(full.json(), { reason: 'limit_reached', limit: 'submodules.subscriptions', value: 1, use: 1 });
  t.equal((await w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken)).statusCode, 200, 'subscribing again reserves nothing');
  t.equal((await w.call('POST', '/api/tools/call', w.managerToken, { name: 'submodules.subscribe', arguments: { submodule: 'careers', confirm: true } })).statusCode, 409, 'the tool too');
  t.same((await list()).limit, { use: 1, value: 1 });

  // Parallel subscribes of one org to one submodule: one 201, the rest 200, even at a full limit.
  await w.call('DELETE', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken);
  const codes = await Promise.all(Array.from({ length: 6 }, () => w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken).then((r) => r.statusCode)));
  t.same(codes.sort(), [200, 200, 200, 200, 200, 201]);
});

t.test('the service other modules read', async (t) => {
  // Callers pass an EntityManager bound to the org they ask about (a route's, a tool's); withSubscribers reads across orgs.
  const acm = quad.emFor(org.id);
  const betaEm = quad.emFor(beta.id);
  await w.call('PUT', '/api/dashboard/acm/submodules/careers/subscription', w.officerToken);
  t.same(await service.subscribedBy(acm, org.id), ['campus', 'careers']);
  t.same(await service.withSubscribers(quad.orm.em.fork()), ['campus', 'careers']);
  const presets = await service.feedPresets(acm, org.id);
  t.same(presets.map((p) => `${p.submodule}/${p.key}`), ['careers/swe-internships', 'careers/new-grad', 'careers/hackathons']);
  t.same(await service.feedPresets(betaEm, beta.id), [], 'beta subscribes to campus only: no presets');
  await t.rejects(service.subscribedBy(acm, beta.id), /bound to org \d+, not to org/, 'an EntityManager of another org is refused');

  await quad.updateOrg(beta.id, { modules: {} });
  t.same(await service.subscribedBy(betaEm, beta.id), [], 'module off: no subscriptions');
  await quad.updateOrg(org.id, { modules: {} });
  t.same(await service.withSubscribers(quad.orm.em.fork()), [], 'no org with the module on subscribes');
  await quad.updateOrg(org.id, { modules: { submodules: true } });
  await quad.updateOrg(beta.id, { modules: { submodules: true } });
});

t.test('the older tool names knowledge.submodules and knowledge.sync_submodule', async (t) => {
  const gamma = await quad.createOrg({ prefix: 'gamma', modules: { submodules: true } });
  const lister = (await quad.issueToken(gamma.id, { scopes: ['submodules:read'] })).token;
  const manager = (await quad.issueToken(gamma.id, { scopes: ['submodules:manage'] })).token;
  t.same((await w.tool('knowledge.submodules', {}, lister)).json().result.submodules.map((s: { name: string }) => s.name), ['campus', 'careers']);
  t.match((await w.tool('knowledge.sync_submodule', { submodule: 'careers' }, manager)).json(), { confirm_required: true });
  t.match((await w.tool('knowledge.sync_submodule', { submodule: 'careers', confirm: true }, manager)).json(), { ok: true, result: { submodule: 'careers', subscribed: true } });
  t.same(await w.sql("select submodule from submodules_subscriptions where organization_id = ?", [gamma.id]), [{ submodule: 'careers' }]);
  t.match((await w.tool('knowledge.sync_submodule', { submodule: 'careers', confirm: true }, lister)).json(), { reason: 'unknown_tool' }, 'submodules:manage needed');
  await quad.updateOrg(gamma.id, { modules: {} }); // out of the later subscriber counts
});

t.test('module off: 404 like any module route, tools hidden', async (t) => {
  await quad.updateOrg(org.id, { modules: {} });
  t.teardown(() => quad.updateOrg(org.id, { modules: { submodules: true } }));
  for (const [method, url, token] of [
    ['PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken], ['GET', '/api/dashboard/acm/submodules', w.officerToken],
    ['GET', '/api/submodules', w.readerToken], ['PUT', '/api/submodules/campus/subscription', w.managerToken], ['POST', '/api/campus/sync', w.managerToken],
  ] as const) {
    const res = await w.call(method, url, token);
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.equal(res.json().reason, 'module_off');
  }
  t.match((await w.tool('submodules.subscribe', { submodule: 'campus', confirm: true }, w.managerToken)).json(), { reason: 'unknown_tool' });
});

t.test('token routes: scopes, the token\'s org, legacy names', async (t) => {
  const listed = await w.call('GET', '/api/submodules', w.readerToken);
  t.equal(listed.statusCode, 200, 'without the knowledge module the read routes take submodules:read');
  t.same(listed.json(), await list(), 'the dashboard\'s list');
  t.equal((await w.call('GET', '/api/submodules', w.managerToken)).statusCode, 403, 'submodules:manage does not read');
  t.equal((await w.call('PUT', '/api/submodules/careers/subscription', w.readerToken)).statusCode, 403, 'a reader cannot subscribe');
  t.equal((await w.call('GET', '/api/submodules', w.officerToken)).statusCode, 401, 'an officer token is no machine token');
  t.equal((await w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.managerToken)).statusCode, 401, 'nor a machine token an officer');

  t.equal((await w.call('DELETE', '/api/submodules/careers/subscription', w.managerToken)).statusCode, 200);
  const sync = await w.call('POST', '/api/submodules/careers/sync', w.managerToken);
  t.equal(sync.statusCode, 201, 'legacy sync subscribes');
  t.equal((await w.call('POST', '/api/submodules/careers/sync', w.managerToken)).statusCode, 200, 'and again');
  t.equal((await w.call('POST', '/api/dashboard/acm/knowledge/submodules/careers/sync', w.officerToken)).statusCode, 200, 'the officer\'s legacy sync');
  t.equal((await w.call('DELETE', '/api/campus/subscription', w.managerToken)).statusCode, 200, '/api/campus/* aliases');
  t.equal((await w.call('POST', '/api/campus/sync', w.managerToken)).statusCode, 201);
  t.equal((await w.call('PUT', '/api/campus/subscription', w.managerToken)).statusCode, 200);
  t.equal((await w.call('POST', '/api/campus/sync', w.readerToken)).statusCode, 403);
  const queries = await w.call('GET', '/api/campus/queries', w.readerToken);
  t.equal(queries.statusCode, 200);
  t.same(queries.json(), (await w.call('GET', '/api/submodules/campus/queries', w.readerToken)).json());
  t.equal((await w.call('GET', '/api/submodules/careers/queries', w.readerToken)).json().queries.length, 0);
  t.equal((await w.call('GET', '/api/submodules/nope/queries', w.readerToken)).statusCode, 404);
  const audit = await w.sql<{ actor: string }>("select actor from audit_log where organization_id = ? and action = 'submodules.subscribe' order by id desc limit 1", [org.id]);
  t.match(audit[0].actor, /^machine:/);
});

t.test('the superadmin\'s view', async (t) => {
  t.equal((await w.call('GET', '/api/superadmin/submodules', w.officerToken)).statusCode, 403, 'an officer is not a superadmin');
  const res = await w.call('GET', '/api/superadmin/submodules', w.adminToken);
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    submodules: [
      { name: 'campus', title: 'Campus', package: 'quad-submodule-campus', subscribers: 2, pages: 28, shared: null },
      { name: 'careers', title: 'Careers', package: 'quad-submodule-careers', subscribers: 1, pages: 0, shared: null },
    ],
  });
});

t.test('tools: list, subscribe and unsubscribe with confirm', async (t) => {
  const listed = await w.tool('submodules.list', {}, w.listerToken);
  t.equal(listed.statusCode, 200);
  t.same(listed.json().result, await list());
  t.match((await w.tool('submodules.list', {}, w.managerToken)).json(), { reason: 'unknown_tool' }, 'submodules:read needed');

  const preview = await w.tool('submodules.unsubscribe', { submodule: 'careers' }, w.managerToken);
  t.match(preview.json(), { ok: true, confirm_required: true, preview: { action: 'end the subscription', submodule: 'careers', subscribed: true } });
  t.match(await record('careers'), { subscribed: true }, 'nothing done without confirm');
  t.match((await w.tool('submodules.unsubscribe', { submodule: 'careers', confirm: true }, w.managerToken)).json(), { ok: true, result: { submodule: 'careers', subscribed: false } });
  t.match(await record('careers'), { subscribed: false });
  t.match((await w.tool('submodules.unsubscribe', { submodule: 'careers', confirm: true }, w.managerToken)).json(), { status: 404, reason: 'not_subscribed' });

  t.match((await w.tool('submodules.subscribe', { submodule: 'careers' }, w.managerToken)).json(),
    { confirm_required: true, preview: { action: 'subscribe', submodule: 'careers', shared_pages: 0, feed_presets: 3 } });
  t.match((await w.tool('submodules.subscribe', { submodule: 'careers', confirm: true }, w.managerToken)).json(), { ok: true, result: { submodule: 'careers', subscribed: true } });
  t.match((await w.tool('submodules.subscribe', { submodule: 'careers' }, w.managerToken)).json(), { preview: { action: /again/ } });
  t.match((await w.tool('submodules.subscribe', { submodule: 'nope', confirm: true }, w.managerToken)).json(), { status: 404, reason: 'unknown_submodule' });
  const audit = await w.sql<{ actor: string; action: string }>("select actor, action from audit_log where organization_id = ? and action like 'submodules.%' order by id desc limit 2", [org.id]);
  t.same(audit.map((a) => a.action), ['submodules.subscribe', 'submodules.unsubscribe']);
  t.match(audit[0].actor, /^machine:/);
});
