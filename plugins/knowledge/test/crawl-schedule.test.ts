// The crawl schedule with no worker running (started jobs stay queued, so what the schedule started can be read):
// knowledge.crawl_due takes KNOWLEDGE_CRAWL_BATCH due records, one of each org in turn, leaves out orgs with
// knowledge off and inactive orgs, spaces the crawls of one host KNOWLEDGE_CRAWL_GAP_SECONDS apart and moves each
// taken record a schedule ahead; reindex and crawl starts are one at a time and count against the day's limit;
// an over-limit crawl records its error while the others go on.
import t from 'tap';
import { allowOutside, bearer, startFakeSite } from '@quad/core/testing';
import { startKnowledgeWorld } from './world.js';
import { crawlSource } from '../crawl/crawl-source.js';
import { CRAWL_DUE_JOB, REINDEX_JOB } from '../crawl/jobs.js';

allowOutside(t);

const GAP_SECONDS = 0.25;
const w = await startKnowledgeWorld(t, {
  config: { KNOWLEDGE_CRAWL_BATCH: 3, KNOWLEDGE_CRAWL_GAP_SECONDS: GAP_SECONDS, LIMIT_KNOWLEDGE_JOBS_PER_DAY: 4, LIMIT_KNOWLEDGE_SOURCES: 2 },
});
const { quad } = w;
const siteA = await startFakeSite(t);
const siteB = await startFakeSite(t);
for (const site of [siteA, siteB]) {
  for (const path of ['/1', '/2', '/3']) site.set(path, { body: `<html><head><title>Page ${path}</title></head><body><p>Text of page ${path} about the club.</p></body></html>` });
}

await quad.updateOrg(w.beta.id, { discordGuildId: '880000000000000002' });
const off = await quad.createOrg({ prefix: 'off', modules: { knowledge: false }, discordGuildId: '880000000000000003' });
const inactive = await quad.createOrg({ prefix: 'idle', modules: { knowledge: true } });

/** A crawl record straight in the table, due `minutesAgo` minutes ago. */
async function record(orgId: number, key: string, url: string, minutesAgo: number) {
  await w.sql(`insert into knowledge_crawls (organization_id, key, url, next_at) values (?, ?, ?, now() - make_interval(mins => ?))`, [orgId, key, url, minutesAgo]);
}
await record(w.org.id, 'a1', `${siteA.origin}/1`, 50);
await record(w.org.id, 'a2', `${siteA.origin}/2`, 40);
await record(w.org.id, 'a3', `${siteA.origin}/3`, 30);
await record(w.beta.id, 'b1', `${siteB.origin}/1`, 20);
await record(w.beta.id, 'b2', `${siteA.origin}/3`, 10);
await record(off.id, 'o1', `${siteA.origin}/1`, 60);
await record(inactive.id, 'i1', `${siteA.origin}/1`, 60);
await w.sql("insert into knowledge_crawls (organization_id, key, url, enabled, next_at) values (?, 'disabled', ?, false, now() - interval '1 day')", [w.org.id, `${siteA.origin}/1`]);
await w.sql("insert into knowledge_crawls (organization_id, key, url, next_at) values (?, 'later', ?, now() + interval '1 hour')", [w.org.id, `${siteA.origin}/1`]);

const runJob = (name: string, orgId: number | null = null) => quad.runJob(name, {}, orgId);

/** crawl_source runs the schedule queued: key, org and when each may start. */
const queued = () => w.sql<{ key: string; org: number; run_at: Date }>(
  `select payload->>'key' as key, (payload->>'__quad_org')::int as org, run_at from graphile_worker._private_jobs j
   join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'knowledge.crawl_source' order by run_at, payload->>'key'`);

t.test('crawl_due: a batch, one source of each org in turn, orgs off or inactive left out, hosts spaced', async (t) => {
  await runJob(CRAWL_DUE_JOB);
  let jobs = await queued();
  t.same(jobs.map((j) => j.key).sort(), ['a1', 'a2', 'b1'], 'KNOWLEDGE_CRAWL_BATCH 3: acm\'s oldest, beta\'s oldest, then acm\'s next');
  const a1 = new Date(jobs.find((j) => j.key === 'a1')!.run_at).getTime();
  const a2 = new Date(jobs.find((j) => j.key === 'a2')!.run_at).getTime();
  const b1 = new Date(jobs.find((j) => j.key === 'b1')!.run_at).getTime();
  t.ok(Math.abs(a2 - a1) >= GAP_SECONDS * 1000 - 5, `two pages of one host are ${GAP_SECONDS} s apart (${a2 - a1} ms)`);
  t.ok(Math.abs(b1 - Math.min(a1, a2)) < GAP_SECONDS * 1000, 'another host does not wait');
  const moved = await w.sql<{ key: string; ahead: boolean }>("select key, next_at > now() + interval '23 hours' as ahead from knowledge_crawls where key in ('a1', 'a2', 'b1', 'a3') order by key");
  t.same(moved.map((m) => [m.key, m.ahead]), [['a1', true], ['a2', true], ['a3', false], ['b1', true]], 'taken records move a schedule ahead');

  await runJob(CRAWL_DUE_JOB);
  jobs = await queued();
  t.same(jobs.map((j) => j.key).sort(), ['a1', 'a2', 'a3', 'b1', 'b2'], 'the next run takes the rest');
  const b2 = new Date(jobs.find((j) => j.key === 'b2')!.run_at).getTime();
  const a3 = new Date(jobs.find((j) => j.key === 'a3')!.run_at).getTime();
  t.ok(Math.abs(b2 - a3) >= GAP_SECONDS * 1000 - 5, 'one host across orgs is spaced too');
  t.notOk(jobs.some((j) => ['o1', 'i1', 'disabled', 'later'].includes(j.key)), 'module off, inactive, disabled and not yet due are left out');

  await w.sql("update knowledge_crawls set next_at = now() - interval '1 minute' where key = 'a1'");
  await runJob(CRAWL_DUE_JOB);
  t.equal((await queued()).filter((j) => j.key === 'a1').length, 1, 'a crawl already queued is not queued twice');
});

t.test('starts: one reindex at a time (409), the day\'s limit (429) counts only accepted starts', async (t) => {
  const base = `/api/dashboard/${w.org.prefix}/knowledge`;
  const first = await w.asOfficer('POST', `${base}/reindex`);
  t.equal(first.statusCode, 202);
  const second = await w.asOfficer('POST', `${base}/reindex`);
  t.equal(second.statusCode, 409);
  t.match(second.json(), { reason: 'job_running' });
  const run = (key: string) => quad.api.inject({ method: 'POST', url: '/api/knowledge/crawls/run', headers: bearer(w.acmToken), payload: { key } });
  t.equal((await run('a1')).statusCode, 409, 'a1 is queued by the schedule');
  t.equal((await run('a3')).statusCode, 409);
  t.equal((await run('later')).statusCode, 202);
  t.equal((await run('disabled')).statusCode, 202, 'a disabled crawl still runs when asked');
  t.equal((await w.asOfficer('POST', `${base}/reembed`)).statusCode, 202);
  const over = await run('nonexistent-but-limited');
  t.equal(over.statusCode, 404, 'an unknown key is 404 before the limit');
  await w.sql("insert into knowledge_crawls (organization_id, key, url) values (?, 'fifth', ?)", [w.org.id, `${siteA.origin}/1`]);
  const limited = await run('fifth');
  t.equal(limited.statusCode, 429, 'the fifth start of the day (limit 4)');
});

t.test('reindex crawls every crawl of the org with force, one host at a time', async (t) => {
  const before = siteA.requests.length;
  await w.sql('delete from knowledge_crawls where organization_id = ? and key not in (?, ?)', [w.org.id, 'a1', 'a2']);
  await runJob(REINDEX_JOB, w.org.id);
  const pages = siteA.requests.slice(before).filter((r) => r.path !== '/robots.txt');
  t.same(pages.map((r) => r.path), ['/1', '/2']);
  t.ok(pages[1].at - pages[0].at >= GAP_SECONDS * 1000 - 5, `pages of one host ${pages[1].at - pages[0].at} ms apart`);
  const runs = await w.sql<{ source_key: string; error: string | null }>('select source_key, error from knowledge_runs where organization_id = ? order by id', [w.org.id]);
  t.same(runs.map((r) => [r.source_key, r.error]), [['a1', null], ['a2', null]]);
});

t.test('an over-limit crawl records its error; the others go on', async (t) => {
  await w.sql("insert into knowledge_crawls (organization_id, key, url) values (?, 'a3', ?) on conflict do nothing", [w.org.id, `${siteA.origin}/3`]);
  const ctx = { em: quad.emFor(w.org.id), org: (await quad.orgs.find(w.org.prefix))!, services: quad.services, log: quad.log };
  const third = await crawlSource(ctx, 'a3', { force: false });
  t.match(third, { changed: false, error: /knowledge\.sources/ }, 'a third source over LIMIT_KNOWLEDGE_SOURCES 2');
  t.match(await crawlSource(ctx, 'a1', { force: true }), { error: null }, 'an existing source is crawled as before');
  t.equal(await crawlSource(ctx, 'gone', { force: false }), null, 'no crawl record: nothing to do');
  const [row] = await w.sql<{ last_error: string }>("select last_error from knowledge_crawls where organization_id = ? and key = 'a3'", [w.org.id]);
  t.match(row.last_error, /knowledge\.sources/);
});
