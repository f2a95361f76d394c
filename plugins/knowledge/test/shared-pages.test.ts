// The knowledge side of submodules (issue 19 contracts), against a stand-in for the submodules module's service
// `submodules.subscriptions` whose subscriptions the test sets: knowledge.shared_pages (sync idempotent and safe
// when concurrent, status), crawl_due crawling shared pages only of submodules with subscribers (the deployment's
// embedder and passage size, no org run log, the last error on the page), search and the reader of subscribed orgs
// only, and knowledge.org_sources writing an org's own source (unchanged text skipped, knowledge limits counted).
// Jobs are not run by a worker: the test runs crawl_due and each crawl it queued.
import t from 'tap';
import { allowOutside, bearer, fakeEmbedding, startFakeSite } from '@quad/core/testing';
import { defineModule, defineService, provide, type EntityManager } from '@quad/core';
import { startKnowledgeWorld } from './world.js';
import { sharedPagesRef, type SharedPageDecl } from '../shared-pages.js';
import { orgSourcesRef } from '../org-sources.js';
import { CRAWL_DUE_JOB } from '../crawl/jobs.js';
import { CRAWL_SHARED_JOB } from '../crawl/shared-crawl.js';

allowOutside(t);

/** The stand-in's subscriptions: org id → submodule names. */
const subscriptions = new Map<number, string[]>();
interface Subscriptions {
  subscribedBy(em: EntityManager, orgId: number): Promise<string[]>;
  withSubscribers(em: EntityManager): Promise<string[]>;
  feedPresets(em: EntityManager, orgId: number): Promise<unknown[]>;
}
const submodulesStandIn = defineModule({
  name: 'submodules', title: 'Submodules (stand-in)', description: 'Subscriptions the test sets', category: 'Tests',
  provides: [provide(defineService<Subscriptions>({ id: 'submodules.subscriptions', methods: ['subscribedBy', 'withSubscribers', 'feedPresets'] }), {
    subscribedBy: async (_em, orgId) => subscriptions.get(orgId) ?? [],
    withSubscribers: async () => [...new Set([...subscriptions.values()].flat())],
    feedPresets: async () => [],
  })],
});

const GAP_SECONDS = 0.2;
const w = await startKnowledgeWorld(t, {
  plugins: [submodulesStandIn],
  config: { KNOWLEDGE_CRAWL_BATCH: 3, KNOWLEDGE_CRAWL_GAP_SECONDS: GAP_SECONDS, KNOWLEDGE_CHUNK_CHARS: 200, LIMIT_KNOWLEDGE_SOURCES: 2 },
});
const { quad } = w;
const sharedPages = quad.services.service(sharedPagesRef);
const orgSources = quad.services.service(orgSourcesRef);
const fork = () => quad.orm.em.fork();
const site = await startFakeSite(t);

// Paragraphs of ~180 characters: one passage each at the deployment's 200, cut in two at an org's 100.
const paragraph = (topic: string, i: number) => `The ${topic} paragraph ${i} explains to every student how the reading rooms, the quiet floor, the late desk and the group study booths work during the exam weeks of the term.`;
const html = (title: string, topic: string, n: number) => `<html><head><title>${title}</title></head><body><main>${
  Array.from({ length: n }, (_, i) => `<p>${paragraph(topic, i)}</p>`).join('')}</main></body></html>`;
site.set('/hours', { body: html('Library hours', 'zeppelin', 4) });
site.set('/dining', { body: html('Dining', 'noodle', 2) });
site.set('/events', { body: html('Events', 'concert', 2) });
site.set('/broken', { status: 404, body: 'gone' });

const page = (key: string, path: string, extra: Partial<SharedPageDecl> = {}): SharedPageDecl =>
  ({ key, url: `${site.origin}${path}`, title: '', category: 'campus', fetch_every_hours: 24, ...extra });
const CAMPUS = [page('campus/hours', '/hours', { title: 'Library hours' }), page('campus/dining', '/dining'), page('campus/events', '/events'), page('campus/broken', '/broken')];

const runJob = (name: string, payload: Record<string, unknown> = {}) => quad.runJob(name, payload, null);

/** The shared crawls queued and not yet run here: submodule, key, org (none) and when each may start. */
const ran = new Set<string>();
const queuedShared = async () => (await w.sql<{ id: string; submodule: string; key: string; org: number | null; run_at: Date }>(
  `select j.id, payload->>'submodule' as submodule, payload->>'key' as key, (payload->>'__quad_org')::int as org, run_at
   from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
   where k.identifier = ? order by run_at, j.id`, [CRAWL_SHARED_JOB])).filter((j) => !ran.has(j.id));

/** Run the shared crawls queued (as the worker would). */
async function runQueued() {
  const jobs = await queuedShared();
  for (const j of jobs) {
    ran.add(j.id);
    await runJob(CRAWL_SHARED_JOB, { submodule: j.submodule, key: j.key, force: false });
  }
  return jobs;
}

const search = async (body: Record<string, unknown>, token: string) => {
  const res = await w.search(body, token);
  if (res.statusCode !== 200) throw new Error(`search: ${res.statusCode} ${res.body}`);
  return res.json() as { results: { chunk_id: number; source_key: string; content: string; public: boolean; category: string }[]; dense: boolean };
};
const sharedKeys = async (body: Record<string, unknown>, token: string) =>
  (await search(body, token)).results.map((r) => r.source_key).filter((k) => k.startsWith('campus/'));
const readTool = (token: string, args: Record<string, unknown>) =>
  quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name: 'knowledge.read_source', arguments: args } });

t.test('sync: pages added, updated and turned off idempotently; two syncs at once; bad pages refused', async (t) => {
  t.same(await sharedPages.sync(fork(), 'campus', CAMPUS), { added: 4, updated: 0, disabled: 0 });
  t.same(await sharedPages.sync(fork(), 'campus', CAMPUS), { added: 0, updated: 0, disabled: 0 }, 'the same pages again change nothing');
  const rows = await w.sql<{ key: string; organization_id: number | null; due: boolean; enabled: boolean }>(
    "select key, organization_id, next_at <= now() as due, enabled from knowledge_crawls where shared_scope = 'campus' order by key");
  t.same(rows.map((r) => [r.key, r.organization_id, r.due, r.enabled]),
    [['campus/broken', null, true, true], ['campus/dining', null, true, true], ['campus/events', null, true, true], ['campus/hours', null, true, true]], 'no org, due now');

  // Another submodule: changed, dropped and listed-again pages, and two syncs at once.
  const clubs = [page('clubs/a', '/a'), page('clubs/b', '/b')];
  const both = await Promise.all([sharedPages.sync(fork(), 'clubs', clubs), sharedPages.sync(fork(), 'clubs', clubs)]);
  t.same(both.map((r) => r.added).sort(), [0, 2], 'two concurrent syncs: one adds, the other finds them');
  t.same(both.map((r) => r.updated + r.disabled), [0, 0]);
  await w.sql("update knowledge_crawls set next_at = now() + interval '1 day', page_hash = 'sha256:x', last_attempt_at = now() where shared_scope = 'clubs'");
  t.same(await sharedPages.sync(fork(), 'clubs', [page('clubs/a', '/a2'), page('clubs/b', '/b', { title: 'B', fetch_every_hours: 48 })]), { added: 0, updated: 2, disabled: 0 });
  const [a, b] = await w.sql<{ due: boolean; page_hash: string | null; title: string; fetch_every_hours: number }>(
    "select next_at <= now() as due, page_hash, title, fetch_every_hours from knowledge_crawls where shared_scope = 'clubs' order by key");
  t.match(a, { due: true, page_hash: null }, 'a changed URL is due now');
  t.match(b, { due: false, page_hash: 'sha256:x', title: 'B', fetch_every_hours: 48 }, 'a new schedule counts from the last attempt');
  t.same(await sharedPages.sync(fork(), 'clubs', [page('clubs/b', '/b', { title: 'B', fetch_every_hours: 48 })]), { added: 0, updated: 0, disabled: 1 });
  t.same(await sharedPages.sync(fork(), 'clubs', [page('clubs/b', '/b', { title: 'B', fetch_every_hours: 48 })]), { added: 0, updated: 0, disabled: 0 });
  t.same(await sharedPages.sync(fork(), 'clubs', [page('clubs/a', '/a2'), page('clubs/b', '/b', { title: 'B', fetch_every_hours: 48 })]), { added: 0, updated: 1, disabled: 0 }, 'listed again: on again');
  await sharedPages.sync(fork(), 'clubs', []);

  const refused: [string, SharedPageDecl[], string][] = [
    ['Bad Name', [], 'submodule'],
    ['clubs', [page('bad key!', '/x')], 'pages[0].key'],
    ['clubs', [{ ...page('k', '/x'), url: 'ftp://example.edu/x' }], 'pages[0].url'],
    ['clubs', [page('k', '/x'), page('k', '/y')], 'pages[1].key'],
    ['clubs', [page('k', '/x', { fetch_every_hours: 0 })], 'pages[0].fetch_every_hours'],
  ];
  for (const [submodule, pages, field] of refused) {
    await t.rejects(sharedPages.sync(fork(), submodule, pages), { name: 'HttpError', statusCode: 400, details: { field } }, field);
  }
  t.equal((await w.sql("select count(*)::int as n from knowledge_crawls where shared_scope = 'clubs' and enabled"))[0].n, 0, 'nothing written by a refused sync');
});

t.test('crawl_due: shared pages only of submodules with subscribers, in the batch, spaced per host; no org run log; the last error on the page', async (t) => {
  await runJob(CRAWL_DUE_JOB);
  t.same(await queuedShared(), [], 'no org subscribes to campus: nothing queued');
  t.equal((await w.sql("select count(*)::int as n from knowledge_crawls where shared_scope = 'campus' and next_at <= now()"))[0].n, 4, 'and nothing moved ahead');

  subscriptions.set(w.beta.id, ['campus']);
  await runJob(CRAWL_DUE_JOB);
  const first = await queuedShared();
  t.equal(first.length, 3, 'KNOWLEDGE_CRAWL_BATCH 3');
  t.ok(first.every((j) => j.org === null && j.submodule === 'campus'), 'shared crawls have no org');
  const times = first.map((j) => new Date(j.run_at).getTime());
  t.ok(times[2] - times[0] >= 2 * GAP_SECONDS * 1000 - 10, `one host: ${GAP_SECONDS} s apart (${times[2] - times[0]} ms for three)`);
  await runQueued();
  await runJob(CRAWL_DUE_JOB);
  t.equal((await runQueued()).length, 1, 'the next run takes the fourth');
  await runJob(CRAWL_DUE_JOB);
  t.same(await queuedShared(), [], 'taken pages wait for their schedule');

  const sources = await w.sql<{ key: string; organization_id: number | null; public: boolean; origin: string; title: string }>(
    "select key, organization_id, public, origin, title from knowledge_sources where shared_scope = 'campus' order by key");
  t.same(sources.map((s) => [s.key, s.organization_id, s.public, s.origin]),
    [['campus/dining', null, false, 'crawl'], ['campus/events', null, false, 'crawl'], ['campus/hours', null, false, 'crawl']], 'three sources of no org; the broken page none');
  const chunks = await w.sql<{ organization_id: number | null; embedding_model: string | null; content: string }>(
    "select organization_id, embedding_model, content from knowledge_chunks where shared_scope = 'campus'");
  t.equal(chunks.length, 8, 'one passage per paragraph at the deployment\'s 200 characters');
  t.ok(chunks.every((c) => c.organization_id === null && c.embedding_model === 'fake-1'), 'embedded by the deployment\'s embedder');
  const [broken] = await w.sql<{ last_error: string; attempted: boolean }>("select last_error, last_attempt_at is not null as attempted from knowledge_crawls where shared_scope = 'campus' and key = 'campus/broken'");
  t.match(broken, { last_error: /404/, attempted: true }, 'the page\'s error stays on it');
  t.equal((await w.sql('select count(*)::int as n from knowledge_runs'))[0].n, 0, 'no org\'s run log has a row');
  t.equal((await w.sql("select count(*)::int as n from notifications where kind = 'knowledge.source_unfetchable'"))[0].n, 0, 'nor a problem');
  for (const org of [w.org.id, w.beta.id]) {
    t.equal(await quad.services.limits.usage(fork(), org, 'knowledge.embeddings_per_day'), 0, 'no org\'s embeddings count');
    t.equal(await quad.services.limits.usage(fork(), org, 'knowledge.sources'), 0, 'no org\'s sources count');
  }

  const status = await sharedPages.status(fork(), ['campus', 'careers']);
  t.same(Object.keys(status).sort(), ['campus', 'careers']);
  t.same(status.careers, { pages: [], passages: 0, failing: 0, last_crawl_at: null }, 'a submodule without pages');
  t.match(status.campus, { passages: 8, failing: 1, last_crawl_at: String });
  t.same(status.campus.pages.map((p) => [p.key, p.passages, p.last_error === null, p.enabled]),
    [['campus/broken', 0, false, true], ['campus/dining', 2, true, true], ['campus/events', 2, true, true], ['campus/hours', 4, true, true]]);
  t.match(status.campus.pages[3], { title: 'Library hours', category: 'campus', url: `${site.origin}/hours`, last_success_at: String });

  // A page that breaks keeps its passages and its error; the next crawl that works clears it.
  site.set('/dining', { status: 500, body: 'down' });
  await runJob(CRAWL_SHARED_JOB, { submodule: 'campus', key: 'campus/dining', force: false });
  let [dining] = await w.sql<{ last_error: string | null }>("select last_error from knowledge_crawls where shared_scope = 'campus' and key = 'campus/dining'");
  t.match(dining.last_error, /500/);
  t.equal((await sharedPages.status(fork(), ['campus'])).campus.pages[1].passages, 2, 'its passages stay');
  site.set('/dining', { body: html('Dining', 'noodle', 2) });
  await runJob(CRAWL_SHARED_JOB, { submodule: 'campus', key: 'campus/dining', force: false });
  [dining] = await w.sql("select last_error from knowledge_crawls where shared_scope = 'campus' and key = 'campus/dining'");
  t.equal(dining.last_error, null);
});

t.test('search and the reader: the shared pages of subscribed submodules only', async (t) => {
  const query = { query: 'zeppelin reading rooms' };
  t.ok((await sharedKeys(query, w.betaToken)).includes('campus/hours'), 'beta subscribes: found');
  t.same(await sharedKeys(query, w.acmToken), [], 'acm does not: not found');
  t.ok((await sharedKeys({ ...query, category: 'campus' }, w.betaToken)).includes('campus/hours'), 'the category filter keeps it');
  t.same(await sharedKeys({ ...query, category: 'library' }, w.betaToken), [], 'and leaves it out of another category');
  const hit = (await search({ ...query, top_k: 1, window: 1 }, w.betaToken)).results[0];
  t.match(hit, { source_key: 'campus/hours', public: false, category: 'campus' });
  t.ok(hit.content.split('zeppelin paragraph').length - 1 >= 2, 'a window adds the neighbour rows');

  const read = await readTool(w.betaToken, { chunk: hit.chunk_id });
  t.equal(read.statusCode, 200, read.body);
  t.match(read.json().result, { key: 'campus/hours', own: false, total: 4 });
  t.notOk(read.json().result.text.includes('Library hours'), 'the title line of each passage is left out');
  t.match(await w.asOfficer('GET', `/api/dashboard/acm/knowledge/sources/x?chunk=${hit.chunk_id}`), { statusCode: 404 }, 'acm cannot read it by its chunk');
  t.match(await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/campus/hours'), { statusCode: 404 }, 'nor by its key');

  subscriptions.set(w.org.id, ['campus']);
  t.ok((await sharedKeys(query, w.acmToken)).includes('campus/hours'), 'acm subscribes: found');
  const page = await w.asOfficer('GET', `/api/dashboard/acm/knowledge/sources/x?chunk=${hit.chunk_id}`);
  t.equal(page.statusCode, 200, page.body);
  t.match(page.json(), { source: { key: 'campus/hours', own: false }, focus: hit.chunk_id, total: 4 });
  t.match((await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/campus/hours')).json(), { source: { key: 'campus/hours', own: false } }, 'by its key too');

  // Vector search reads only passages of the org's current model (the deployment's here).
  const settings = (body: Record<string, unknown>) => w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', body);
  t.equal((await settings({ mode: 'vector', max_distance: 2 })).statusCode, 200);
  const own = (model: string) => sharedKeys({ query: query.query, embedding: fakeEmbedding(query.query), embedding_model: model }, w.acmToken);
  t.ok((await own('fake-1')).includes('campus/hours'), 'a vector of the passages\' model finds it');
  t.same(await own('other-model'), [], 'a vector of another model does not');
  await settings({ mode: null, max_distance: null });

  subscriptions.delete(w.beta.id);
  t.same(await sharedKeys(query, w.betaToken), [], 'beta ends its subscription: not found');
  t.equal((await readTool(w.betaToken, { chunk: hit.chunk_id })).json().reason, 'chunk_not_found', 'nor read');
});

t.test('org_sources.writeText: the org\'s own source, split with its settings; the same text writes nothing; limits count', async (t) => {
  t.equal((await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: 100 })).statusCode, 200);
  const text = [paragraph('harbour', 1), paragraph('harbour', 2)].join('\n\n');
  const source = { key: 'campus-live/hours-1', title: 'Hours today', url: 'https://library.example.edu/hours', category: 'campus', text };
  const em = quad.emFor(w.org.id);
  const embedded = w.fake.requests.length;
  t.same(await orgSources.writeText(em, w.org.id, source), { changed: true });
  t.ok(w.fake.requests.length > embedded, 'embedded by the org\'s embedder');
  const rows = await w.sql<{ organization_id: number; origin: string; content: string; embedding_model: string; version_id: string }>(
    `select s.organization_id, s.origin, c.content, c.embedding_model, c.version_id from knowledge_sources s join knowledge_chunks c on c.source_id = s.id
     where s.key = ? order by c.ordinal`, [source.key]);
  t.ok(rows.length >= 4 && rows.every((r) => r.organization_id === w.org.id && r.origin === 'api' && r.embedding_model === 'fake-1'), 'the org\'s own, embedded');
  t.ok(rows.every((r) => r.content.length <= 100), 'passages of the org\'s chunk_chars');

  const requests = w.fake.requests.length;
  t.same(await orgSources.writeText(em, w.org.id, source), { changed: false }, 'the same text again');
  t.equal(w.fake.requests.length, requests, 'nothing embedded');
  const [again] = await w.sql<{ version_id: string }>('select current_version_id as version_id from knowledge_sources where key = ?', [source.key]);
  t.equal(String(again.version_id), String(rows[0].version_id), 'nor written');
  t.same(await orgSources.writeText(em, w.org.id, { ...source, text: `${text}\n\nClosed on Sunday.` }), { changed: true }, 'a new text is a new version');
  t.match((await search({ query: 'harbour reading rooms' }, w.acmToken)).results[0], { source_key: source.key }, 'searched like any source of the org');

  // LIMIT_KNOWLEDGE_SOURCES 2: the shared pages count for no org, so acm's second source fits and its third does not.
  t.same(await orgSources.writeText(em, w.org.id, { ...source, key: 'campus-live/hours-2' }), { changed: true });
  await t.rejects(orgSources.writeText(em, w.org.id, { ...source, key: 'campus-live/hours-3' }), { name: 'HttpError', statusCode: 409, reason: 'limit_reached' });
  t.equal((await w.sql("select count(*)::int as n from knowledge_sources where key = 'campus-live/hours-3'"))[0].n, 0, 'nothing written over the limit');
  await t.rejects(orgSources.writeText(em, w.org.id, { ...source, key: 'bad key!' }), { name: 'HttpError', statusCode: 400 });
  await t.rejects(orgSources.writeText(em, w.org.id, { ...source, text: '   ' }), { name: 'HttpError', statusCode: 400, reason: 'no_text' });
});
