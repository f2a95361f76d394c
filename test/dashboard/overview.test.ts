// GET /overview: the core's counts, open problems, CI, recent changes and job runs, and one section per module
// that is on (following module switches; a failing section does not fail the page).
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { probe } from '../events/fixtures.js';
import { flaky, gauges, quiet } from './fixtures.js';

t.test('dashboard overview', async (t) => {
  const world = await startSignInWorld(t, { plugins: [gauges, flaky, quiet, probe], orgModules: { gauges: true, flaky: true, quiet: true, probe: true } });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee', modules: { gauges: true, probe: true } });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const em = () => quad.orm.em.fork();
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const overview = async () => {
    const res = await quad.api.inject({ url: '/api/dashboard/acm/overview', headers: bearer(token) });
    t.equal(res.statusCode, 200);
    return res.json();
  };
  const switchModules = async (modules: Record<string, boolean>) => {
    const res = await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules } });
    t.equal(res.statusCode, 200, res.body);
  };

  t.test('needs an officer token', async (t) => {
    t.equal((await quad.api.inject('/api/dashboard/acm/overview')).statusCode, 401);
  });

  t.test('every section in one response', async (t) => {
    const body = await overview();
    t.same(Object.keys(body).sort(), ['ci', 'counts', 'generated_at', 'modules', 'org', 'problems', 'recent']);
    t.same(body.org, { id: org.id, prefix: 'acm', name: 'ACM' });
    t.same(body.counts, { open_problems: 0, open_events: 0, open_errors: 0, errors_24h: 0, failed_jobs_24h: 0, changes_7d: 0 });
    t.same(body.ci, { repos: [], cache_seconds: 120 }, 'no repos listed: no GitHub call');
    t.same(body.modules, {
      gauges: { members: 42, sessions: [{ id: 's1', title: 'acm session' }] },
      flaky: { unavailable: true },
    }, 'modules that are on and declare a section; a failing one is marked, not fatal');
    t.same(body.recent, { changes: [], job_runs: [] });
  });

  t.test('counts, open problems and the recent lists follow the org\'s activity', async (t) => {
    await quad.services.raiseProblem(em(), { orgId: org.id, key: 'probe.stuck:1', title: 'Stuck', message: 'm' });
    await quad.services.raiseProblem(em(), { orgId: org.id, key: 'probe.stuck:2', title: 'Also stuck' });
    await quad.services.raiseProblem(em(), { orgId: other.id, key: 'probe.stuck:1', title: 'Theirs' });
    for (let i = 0; i < 3; i++) await quad.services.emit(em(), { orgId: org.id, kind: 'probe.other', title: `e${i}` });
    await quad.services.logError({ orgId: org.id, source: 'job', origin: 'probe.sync', error: new Error('x'), logLine: 'x' });
    await sql(`insert into error_log (organization_id, source, origin, message, log_line, host, release, created_at) values (?, 'job', 'probe.sync', 'old', 'old', 'h', 'r', now() - interval '2 days')`, [org.id]);
    for (let i = 0; i < 12; i++) await quad.services.audit(em(), { orgId: org.id, actor: 'system', action: 'probe.change', details: { i } });
    await quad.services.audit(em(), { orgId: other.id, actor: 'system', action: 'probe.change', details: { theirs: true } });
    await sql(`insert into job_runs (organization_id, name, status, finished_at) values (?, 'probe.sync', 'failed', now()), (?, 'probe.sync', 'failed', now() - interval '3 days'), (?, 'probe.sync', 'succeeded', now())`, [org.id, org.id, org.id]);
    await sql(`insert into job_runs (organization_id, name, status, finished_at) values (?, 'probe.sync', 'failed', now())`, [other.id]);

    const body = await overview();
    t.same(body.counts, { open_problems: 2, open_events: 3, open_errors: 2, errors_24h: 1, failed_jobs_24h: 1, changes_7d: 12 });
    t.same(body.problems.map((p: { title: string }) => p.title), ['Also stuck', 'Stuck']);
    t.equal(body.recent.changes.length, 10);
    t.same(body.recent.changes[0], { ...body.recent.changes[0], actor: 'system', action: 'probe.change', details: { i: 11 } });
    t.equal(body.recent.job_runs.length, 3);
    t.notOk(JSON.stringify(body).includes('theirs') || JSON.stringify(body).includes('Theirs'), 'nothing of another org');
  });

  t.test('module sections follow the module switches', async (t) => {
    await switchModules({ gauges: false });
    let body = await overview();
    t.same(Object.keys(body.modules), ['flaky'], 'a module switched off has no section');
    await switchModules({ gauges: true, flaky: false });
    body = await overview();
    t.same(Object.keys(body.modules), ['gauges']);
    t.ok(body.recent.changes.some((c: { action: string }) => c.action === 'org.modules'), 'the switches are recent changes');
    const theirs = (await quad.api.inject({ url: '/api/dashboard/ieee/overview', headers: bearer(token) })).json();
    t.match(theirs.modules, { gauges: { sessions: [{ title: 'ieee session' }] } }, 'each org gets its own section');
  });

  t.test('it is documented', async (t) => {
    const doc = (await quad.api.inject('/openapi.json')).json();
    for (const path of ['overview', 'trends', 'ci', 'ci/repos']) t.ok(doc.paths[`/api/dashboard/{org}/${path}`], path);
  });
});
