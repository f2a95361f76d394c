// Problems: keyed by their cause; raising again updates the same row; a resolved problem reopens only when its
// message changes; clearing (the cause fixed) removes it; officers cannot delete it.
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { probe } from './fixtures.js';

t.test('problem lifecycle', async (t) => {
  const world = await startSignInWorld(t, { plugins: [probe], orgModules: { probe: true } });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const em = () => quad.orm.em.fork();
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const raise = (message: string, orgId = org.id) =>
    quad.services.raiseProblem(em(), { orgId, key: 'probe.fetch_failed:7', title: 'Source 7 cannot be fetched', message, data: { source: 7 } });
  const row = async (id: number) => (await sql('select * from notifications where id = ?', [id]))[0];
  const post = (action: string, ids: number[]) =>
    quad.api.inject({ method: 'POST', url: `/api/dashboard/acm/notifications/${action}`, headers: bearer(token), payload: { ids } });

  let id = 0;

  t.test('the first raise makes an open problem keyed by its cause', async (t) => {
    const raised = await raise('HTTP 500');
    t.match(raised, { status: 'open', occurrences: 1, created: true, reopened: false });
    id = raised.id;
    t.match(await row(id), {
      organization_id: org.id, category: 'problem', kind: 'probe.fetch_failed', problem_key: 'probe.fetch_failed:7',
      title: 'Source 7 cannot be fetched', message: 'HTTP 500', status: 'open', occurrences: 1, data: { source: 7 },
    });
  });

  t.test('raising it again updates the same row', async (t) => {
    const before = await row(id);
    await new Promise((r) => setTimeout(r, 10));
    const again = await raise('HTTP 500');
    t.match(again, { id, status: 'open', occurrences: 2, created: false, reopened: false });
    const after = await row(id);
    t.ok(after.raised_at > before.raised_at, 'raised_at moves');
    t.equal((await sql(`select count(*)::int as n from notifications where problem_key = 'probe.fetch_failed:7'`))[0].n, 1);
  });

  t.test('resolved, it stays resolved while the message is the same', async (t) => {
    const res = await post('resolve', [id]);
    t.same(res.json(), { ids: [id], count: 1 });
    t.match(await row(id), { status: 'resolved', resolved_by: `officer:${officer.id}` });
    const same = await raise('HTTP 500');
    t.match(same, { status: 'resolved', occurrences: 3, reopened: false });
    t.match(await row(id), { status: 'resolved', resolved_by: `officer:${officer.id}` });
  });

  t.test('a resolved problem reopens when its message changes', async (t) => {
    const changed = await raise('DNS lookup failed');
    t.match(changed, { id, status: 'open', occurrences: 4, reopened: true });
    t.match(await row(id), { status: 'open', message: 'DNS lookup failed', resolved_at: null, resolved_by: null });
    const reraised = await raise('DNS lookup failed');
    t.match(reraised, { status: 'open', reopened: false }, 'an open problem is not "reopened"');
  });

  t.test('officers reopen and resolve it, but cannot delete it', async (t) => {
    t.same((await post('resolve', [id])).json(), { ids: [id], count: 1 });
    t.same((await post('resolve', [id])).json(), { ids: [], count: 0 }, 'already resolved: nothing changes');
    t.same((await post('reopen', [id])).json(), { ids: [id], count: 1 });
    const event = await quad.services.emit(em(), { orgId: org.id, kind: 'probe.other', title: 'an event' });
    const refused = await post('delete', [event.id, id]);
    t.equal(refused.statusCode, 400);
    t.match(refused.json(), { reason: 'problem_not_deletable', ids: [id], error: /Problems cannot be deleted/ });
    t.equal((await sql('select count(*)::int as n from notifications where id in (?, ?)', [event.id, id]))[0].n, 2, 'nothing was deleted');
  });

  t.test('the same cause in another org is another problem', async (t) => {
    const theirs = await raise('HTTP 500', other.id);
    t.not(theirs.id, id);
    t.match(theirs, { created: true, occurrences: 1 });
    t.match(await row(id), { message: 'DNS lookup failed' });
  });

  t.test('fixing the cause clears it', async (t) => {
    t.equal(await quad.services.clearProblem(em(), org.id, 'probe.fetch_failed:7'), true);
    t.equal(await row(id), undefined);
    t.equal(await quad.services.clearProblem(em(), org.id, 'probe.fetch_failed:7'), false, 'clearing twice is harmless');
    t.equal((await sql(`select count(*)::int as n from notifications where problem_key = 'probe.fetch_failed:7'`))[0].n, 1, 'ieee\'s is untouched');
    const fresh = await raise('HTTP 500');
    t.match(fresh, { created: true, occurrences: 1, status: 'open' }, 'if it happens again it is a new problem');
  });

  t.test('the kind can be given; raising in a transaction that rolls back leaves nothing', async (t) => {
    const given = await quad.services.raiseProblem(em(), { orgId: org.id, key: 'probe.deploy:3', kind: 'probe.deploy_failed', title: 'Deploy 3 failed' });
    t.equal((await row(given.id)).kind, 'probe.deploy_failed');
    await t.rejects(em().transactional(async (tx) => {
      await quad.services.raiseProblem(tx, { orgId: org.id, key: 'probe.deploy:4', title: 'rolled back' });
      throw new Error('roll back');
    }));
    t.equal((await sql(`select count(*)::int as n from notifications where problem_key = 'probe.deploy:4'`))[0].n, 0);
  });
});
