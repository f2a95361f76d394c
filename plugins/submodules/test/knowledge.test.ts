// With the knowledge module (its services knowledge.shared_pages and knowledge.org_sources), the job worker running:
// subscribing makes the shared pages, knowledge.crawl_due crawls them from the campus fake, the org's knowledge search
// finds a shared passage while an org that does not subscribe finds none; the lists show the crawl; the superadmin
// sees the failing page; a live answer becomes the org's own source `<submodule>-live/<query>-<hash>` through
// submodules.index_result, an unchanged answer writes nothing, and nothing is indexed for the web query or an org
// with knowledge off. The query routes take knowledge:read when the knowledge module is loaded.
import t from 'tap';
import { allowOutside } from '@quad/core/testing';
import { CAMPUS_WORDS } from '@quad/core/testing';
import { liveSourceKey } from '../index-result.js';
import { startSubmodulesWorld } from './world.js';

allowOutside(t); // the knowledge module crawls shared pages with the public-address checks
const w = await startSubmodulesWorld(t, { knowledge: true, role: 'all', config: { KNOWLEDGE_CRAWL_GAP_SECONDS: 0, KNOWLEDGE_CHUNK_CHARS: 200 } });
const { quad, org } = w;
const beta = await quad.createOrg({ prefix: 'beta', discordGuildId: '424242', modules: { submodules: true, knowledge: true } });
const betaReader = (await quad.issueToken(beta.id, { scopes: ['knowledge:read'] })).token;
const gamma = await quad.createOrg({ prefix: 'gamma', modules: { submodules: true } });
const gammaReader = (await quad.issueToken(gamma.id, { scopes: ['submodules:read'] })).token;
const search = (token: string, query: string) => w.call('POST', '/api/knowledge/search', token, { query });

/** Wait until no run of this job is queued or running. */
async function settle(name: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await w.sql<{ n: number }>("select count(*)::int as n from job_runs where name = ? and status in ('queued', 'running')", [name]);
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${name} still running`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function lastRun(name: string) {
  const [run] = await w.sql<{ id: string; organization_id: number }>('select id, organization_id from job_runs where name = ? order by id desc limit 1', [name]);
  return run ? quad.waitForRun(Number(run.id)) : null;
}

t.test('Explore\'s module listing names the submodules each module reads', async (t) => {
  const listing = (await w.call('GET', '/api/dashboard/acm/modules', w.officerToken)).json();
  const knowledge = listing.modules.find((m: { name: string }) => m.name === 'knowledge');
  t.same(knowledge.submodules, [{ name: 'campus', title: 'Campus' }], 'knowledge reads campus\'s pages');
  t.same(listing.modules.find((m: { name: string }) => m.name === 'submodules').submodules, [], 'none read by the submodules module itself');
});

t.test('subscribe → crawl_due crawls the shared pages → the subscriber\'s search finds them, others\' does not', async (t) => {
  w.campus.fail('/drop-add', { status: 500 });
  const sub = await w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken);
  t.equal(sub.statusCode, 201);
  t.same(sub.json().shared_pages, { added: 28, updated: 0, disabled: 0 }, 'the shared pages are made');
  t.same((await w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken)).json().shared_pages, { added: 0, updated: 0, disabled: 0 }, 'again: nothing changed');

  const { runId } = await quad.services.startJob(quad.orm.em.fork(), 'knowledge.crawl_due', {});
  t.equal((await quad.waitForRun(runId)).status, 'succeeded');
  await settle('knowledge.crawl_shared');
  t.ok(w.campus.requests.some((r) => r.path === '/services/campus-it-resources/wifi/eduroam'), 'the campus sites were crawled');

  const found = await search(w.readerToken, 'eduroam ASURITE');
  t.equal(found.statusCode, 200);
  t.match(found.json().results[0], { source_key: 'campus/eduroam', content: new RegExp(CAMPUS_WORDS.eduroam.slice(0, 30)) });
  t.same((await search(betaReader, 'eduroam ASURITE')).json().results, [], 'an org that does not subscribe finds nothing');

  const campus = (await w.call('GET', '/api/dashboard/acm/submodules', w.officerToken)).json().submodules[0];
  t.ok(campus.passages > 0, 'passages counted');
  t.match(campus.last_crawl_at, /^\d{4}-/);
  t.match(campus.pages.find((p: { key: string }) => p.key === 'campus/eduroam').crawl, { enabled: true, last_success_at: String, last_error: null });
  t.match(campus.pages.find((p: { key: string }) => p.key === 'campus/drop-add').crawl, { last_error: /500/ });
  t.match(campus.modules[0], { module: 'knowledge', loaded: true, enabled: true });

  const admin = (await w.call('GET', '/api/superadmin/submodules', w.adminToken)).json().submodules[0];
  t.match(admin, { name: 'campus', subscribers: 1, pages: 28, shared: { pages: 28, failing: 1, failing_pages: [{ key: 'campus/drop-add', last_error: /500/ }] } });
  t.ok(admin.shared.passages > 0);
  w.campus.fail('/drop-add', null);

  // Ending the subscription: its shared pages leave the org's search (they stay for other subscribers).
  await w.call('DELETE', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken);
  t.same((await search(w.readerToken, 'eduroam ASURITE')).json().results, []);
  await w.call('PUT', '/api/dashboard/acm/submodules/campus/subscription', w.officerToken);
});

t.test('a live answer is indexed as the org\'s own source; an unchanged one writes nothing', async (t) => {
  t.equal((await w.call('GET', '/api/submodules', w.listerToken)).statusCode, 403, 'with the knowledge module the read routes take knowledge:read');
  const ask = (body: Record<string, unknown>, token = w.readerToken) => w.call('POST', '/api/submodules/campus/query', token, body);
  const answer = await ask({ source: 'library_hours', params: { library: 'noble' } });
  t.equal(answer.statusCode, 200);
  const first = await lastRun('submodules.index_result');
  t.match(first, { status: 'succeeded' });
  const key = liveSourceKey('campus', 'library_hours', { library: 'noble' });
  const source = await w.call('GET', `/api/knowledge/sources/${key}`, w.readerToken);
  t.equal(source.statusCode, 200, `the source ${key}`);
  t.match(source.json(), { key, title: 'Campus: Library hours (library: noble)', url: `${w.campus.url}/api_hours_grid.php?format=json&weeks=1&systemTime=0`, category: 'campus-live' });
  t.match(source.json().chunks.map((c: { content: string }) => c.content).join(' '), /Noble Library - ASU Faculty, Staff and Students/);
  const version = source.json().current_version;

  await ask({ source: 'library_hours', params: { library: 'noble' } });
  t.match(await lastRun('submodules.index_result'), { status: 'succeeded' });
  t.same((await w.call('GET', `/api/knowledge/sources/${key}`, w.readerToken)).json().current_version, version, 'unchanged: the same version');
  const tool = await w.tool('submodules.query', { submodule: 'campus', source: 'library_hours', params: { library: 'noble' } }, w.readerToken);
  t.match(tool.json(), { ok: true, result: { submodule: 'campus', source: 'library_hours', url: `${w.campus.url}/api_hours_grid.php?format=json&weeks=1&systemTime=0` } }, 'the tool, with knowledge:read');
  t.match((await w.tool('submodules.query', { submodule: 'campus', source: 'library_hours', params: { library: 'moon' } }, w.readerToken)).json(),
    { ok: false, status: 422, reason: 'bad_parameter' });

  const found = await search(w.readerToken, 'Noble Library Faculty Staff Students');
  t.ok(found.json().results.some((r: { source_key: string }) => r.source_key === key), 'the org\'s search finds it');
  t.same((await search(betaReader, 'Noble Library Faculty Staff Students')).json().results, [], 'another org\'s does not');
  const shared = await w.sql('select count(*)::int as n from knowledge_sources where shared_scope is not null and key like ?', ['campus-live/%']);
  t.same(shared, [{ n: 0 }], 'never a shared page');

  const runs = async () => (await w.sql<{ n: number }>("select count(*)::int as n from job_runs where name = 'submodules.index_result'"))[0].n;
  const before = await runs();
  w.search.setResults(null);
  t.equal((await ask({ source: 'web', params: { q: 'library' } })).statusCode, 200, 'the deployment\'s SEARCH_URL');
  t.equal(await runs(), before, 'the web query is not indexed');
  const gammaAnswer = await w.call('POST', '/api/submodules/campus/query', gammaReader, { source: 'events' });
  t.equal(gammaAnswer.statusCode, 403, 'gamma has no knowledge:read');
});

t.test('an org with knowledge off: answers are not indexed', async (t) => {
  await quad.updateOrg(beta.id, { modules: { submodules: true } });
  const runs = async () => (await w.sql<{ n: number }>("select count(*)::int as n from job_runs where name = 'submodules.index_result' and organization_id = ?", [beta.id]))[0].n;
  // knowledge:read is the knowledge module's scope: its routes answer 404 while it is off; this query route is ours.
  const res = await w.call('POST', '/api/submodules/campus/query', betaReader, { source: 'events' });
  t.equal(res.statusCode, 200);
  t.equal(await runs(), 0);
});
