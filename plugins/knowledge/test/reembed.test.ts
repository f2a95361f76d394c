// knowledge.reembed: passages written under another model are embedded again from their stored text with the org's
// current embedder, one source per transaction (a source whose embedding fails keeps its old vectors), started by an
// officer or by the confirm tool, one run at a time per org (409), counted against knowledge.jobs_per_day.
import t from 'tap';
import { orgDb } from '@quad/core';
import { bearer } from '@quad/core/testing';
import { reembed, staleSources } from '../reembed.js';
import { pages, startKnowledgeWorld, type KnowledgeWorld } from './world.js';

/** A 1024-number unit vector along axis `k`: a vector "of another model" the fake would never answer. */
const axis = (k: number) => Array.from({ length: 1024 }, (_, i) => (i === k ? 1 : 0));
const written = (texts: string[], k: number) => ({
  title: 'Old', embedding_model: 'old-model', chunks: pages(...texts).map((c, i) => ({ ...c, embedding: axis(k + i) })),
});
const models = (w: KnowledgeWorld, key: string) => w.sql<{ model: string | null; n: number }>(
  `select c.embedding_model as model, count(*)::int as n from knowledge_chunks c join knowledge_sources s on s.id = c.source_id
   where s.key = ? and s.organization_id = ? group by 1`, [key, w.org.id]);

t.test('re-embedding runs the job and vector search finds the passages', async (t) => {
  const w = await startKnowledgeWorld(t, { role: 'all' });
  t.equal((await w.put('handbook/library', written(['The library opens at nine on Sunday', 'Quiet rooms on the third floor'], 0))).statusCode, 201);
  t.equal((await w.put('handbook/dining', written(['The dining hall serves breakfast until ten'], 5))).statusCode, 201);
  const vectorOnly = async () => {
    await w.asOfficer('PUT', `/api/dashboard/acm/knowledge/settings`, { mode: 'vector' });
    const res = (await w.search({ query: 'library opens Sunday' })).json();
    await w.asOfficer('PUT', `/api/dashboard/acm/knowledge/settings`, { mode: null });
    return res as { dense: boolean; results: { source_key: string }[] };
  };
  t.same((await vectorOnly()).results.filter((r) => r.source_key === 'handbook/library'), [], 'passages of another model are not found by vector search');

  const res = await w.asOfficer('POST', '/api/dashboard/acm/knowledge/reembed');
  t.equal(res.statusCode, 202);
  const run = await w.quad.waitForRun(res.json().run_id);
  t.equal(run.status, 'succeeded');
  t.same(await models(w, 'handbook/library'), [{ model: 'fake-1', n: 2 }], 'every passage now has the current model');
  t.same(await models(w, 'handbook/dining'), [{ model: 'fake-1', n: 1 }]);
  t.same((await w.sql<{ m: string }>("select distinct embedding_model as m from knowledge_versions where organization_id = ?", [w.org.id])).map((r) => r.m), ['fake-1'], 'the versions say so too');
  const after = await vectorOnly();
  t.ok(after.dense && after.results.some((r) => r.source_key === 'handbook/library'), 'vector search finds them now');
  const audit = await w.sql<{ n: number }>("select count(*)::int as n from audit_log where organization_id = ? and action = 'knowledge.reembed_started'", [w.org.id]);
  t.equal(audit[0].n, 1, 'the start is audited');

  const again = await w.asOfficer('POST', '/api/dashboard/acm/knowledge/reembed');
  t.equal(again.statusCode, 202, 'a later run may start');
  t.equal((await w.quad.waitForRun(again.json().run_id)).status, 'succeeded');
  t.equal(w.fake.requests.filter((r) => r.input.some((i) => i.includes('breakfast'))).length, 1, 'and embeds nothing that is current already');
});

t.test('a source whose embedding fails keeps its old vectors; the others are embedded', async (t) => {
  const w = await startKnowledgeWorld(t);
  await w.put('a/first', written(['first source text'], 0));
  await w.put('a/second', written(['second source text'], 3));
  const vectorOf = async (key: string) => (await w.sql<{ v: string }>(
    'select c.embedding::text as v from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = ?', [key]))[0].v;
  const oldFirst = await vectorOf('a/first');
  w.fake.failNext(500);
  // The job's handle: bound to the org, as the service runs it.
  const db = orgDb(w.quad.emFor(w.org.id));
  const outcome = await reembed(db, w.org, w.quad.services, w.quad.log);
  t.match(outcome, { sources: 2, embedded: 1, failed: [{ key: 'a/first', error: /500/ }], limited: false });
  t.equal(await vectorOf('a/first'), oldFirst, 'the failed source keeps its vectors');
  t.same(await models(w, 'a/first'), [{ model: 'old-model', n: 1 }]);
  t.same(await models(w, 'a/second'), [{ model: 'fake-1', n: 1 }]);
  t.same((await staleSources(db, 'fake-1')).map((s) => s.key), ['a/first'], 'what is left for the next attempt');
});

t.test('one run at a time per org, the day\'s starts are limited, and the tool asks first', async (t) => {
  const w = await startKnowledgeWorld(t); // no worker: a started run stays queued
  await w.put('a/first', written(['first source text', 'more text'], 0));
  const first = await w.asOfficer('POST', '/api/dashboard/acm/knowledge/reembed');
  t.equal(first.statusCode, 202);
  const second = await w.asOfficer('POST', '/api/dashboard/acm/knowledge/reembed');
  t.equal(second.statusCode, 409);
  t.match(second.json(), { reason: 'job_running' });

  const call = (args: object) => w.quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(w.acmToken), payload: { name: 'knowledge.reembed', arguments: args } });
  t.match((await call({})).json(), { ok: true, confirm_required: true, preview: { job: 'knowledge.reembed', model: 'fake-1', sources: 1, passages: 2 } }, 'without confirm: what it would do');
  const confirmed = await call({ confirm: true });
  t.equal(confirmed.statusCode, 409, 'with confirm while one runs: 409');
  t.match(confirmed.json(), { ok: false, reason: 'job_running' });
  const reader = await w.quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(w.readerToken), payload: { name: 'knowledge.reembed', arguments: { confirm: true } } });
  t.equal(reader.statusCode, 404, 'a token without knowledge:write does not see the tool');

  const beta = await w.quad.issueToken(w.beta.id, { scopes: ['knowledge:write'] });
  const em = w.quad.orm.em.fork();
  await em.transactional((tx) => w.quad.services.limits.setOverrides(tx, w.beta.id, { 'knowledge.jobs_per_day': 1 }, 'test'));
  const betaCall = () => w.quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(beta.token), payload: { name: 'knowledge.reembed', arguments: { confirm: true } } });
  const started = await betaCall();
  t.match(started.json(), { ok: true, result: { job: 'knowledge.reembed', run_id: Number } }, 'beta starts one');
  await w.sql("update job_runs set status = 'succeeded' where id = ?", [started.json().result.run_id]);
  t.equal((await betaCall()).statusCode, 429, 'a second start the same day is over knowledge.jobs_per_day');
});
