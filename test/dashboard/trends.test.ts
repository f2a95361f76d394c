// GET /trends?days=: one value per UTC day (today last), days 7–90 (default 30), rows bucketed by their UTC day,
// the core's series always and a module's only while it is on.
import t from 'tap';
import { dayRange } from '../../core/src/dashboard/trends.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { flaky, gauges, quiet } from './fixtures.js';

const DAY = 86_400_000;

t.test('day ranges', async (t) => {
  const now = new Date('2025-03-10T23:59:59.999Z');
  const r = dayRange(7, now);
  t.equal(r.since.toISOString(), '2025-03-04T00:00:00.000Z');
  t.equal(r.end.toISOString(), '2025-03-11T00:00:00.000Z');
  t.same(r.dates, ['2025-03-04', '2025-03-05', '2025-03-06', '2025-03-07', '2025-03-08', '2025-03-09', '2025-03-10']);
  t.same(dayRange(7, new Date('2025-03-11T00:00:00.000Z')).dates.at(-1), '2025-03-11', 'midnight UTC starts a new day');
  t.same(dayRange(2, new Date('2024-03-01T05:00:00Z')).dates, ['2024-02-29', '2024-03-01'], 'leap day');
});

t.test('dashboard trends', async (t) => {
  const world = await startSignInWorld(t, { plugins: [gauges, flaky, quiet], orgModules: { gauges: true, flaky: true, quiet: true } });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee' });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const get = (query = '') => quad.api.inject({ url: `/api/dashboard/acm/trends${query}`, headers: bearer(token) });
  const today = Math.floor(Date.now() / DAY) * DAY;
  const at = (ms: number) => new Date(ms).toISOString();
  const series = (body: { series: { key: string; values: number[] }[] }, key: string) => body.series.find((s) => s.key === key)?.values;

  t.test('days: default 30, 7 to 90; anything else is 400', async (t) => {
    const body = (await get()).json();
    t.equal(body.days, 30);
    t.equal(body.dates.length, 30);
    t.equal(body.until, new Date(today).toISOString().slice(0, 10), 'today is the last day');
    t.equal(body.since, new Date(today - 29 * DAY).toISOString().slice(0, 10));
    t.ok(body.series.every((s: { values: number[] }) => s.values.length === 30), 'one value per day in every series');
    t.equal((await get('?days=7')).json().dates.length, 7);
    t.equal((await get('?days=90')).json().dates.length, 90);
    for (const [query, message] of [
      ['?days=6', /querystring.days: must be >= 7/], ['?days=91', /querystring.days: must be <= 90/], ['?days=0', /must be >= 7/],
      ['?days=-30', /must be >= 7/], ['?days=7.5', /querystring.days: must be integer/], ['?days=week', /must be integer/], ['?days=30&x=1', /must NOT have additional properties/],
    ] as const) {
      const res = await get(query);
      t.equal(res.statusCode, 400, query);
      t.match(res.json(), { error: message, reason: 'validation', field: /^querystring/ }, query);
    }
    t.equal((await quad.api.inject('/api/dashboard/acm/trends')).statusCode, 401);
  });

  t.test('rows fall in their UTC day; the edges of the range are exact', async (t) => {
    const days = 7;
    const first = today - (days - 1) * DAY;
    const rows: [number, string][] = [
      [today + 500, 'today, just after midnight'],
      [today - 500, 'yesterday, just before midnight'],
      [today - 1000, 'yesterday again'],
      [first, 'the first day, at midnight'],
      [first - 1, 'the day before the range'],
      [today - 3 * DAY + 12 * 3_600_000, 'three days ago, noon'],
    ];
    for (const [ms, what] of rows) {
      await sql(`insert into audit_log (organization_id, actor, action, details, created_at) values (?, 'system', 'probe.edge', ?::jsonb, ?)`, [org.id, JSON.stringify({ what }), at(ms)]);
    }
    await sql(`insert into audit_log (organization_id, actor, action, created_at) values (?, 'system', 'probe.edge', ?)`, [other.id, at(today + 500)]);
    await sql(`insert into job_runs (organization_id, name, status, queued_at, finished_at) values
      (?, 'probe.sync', 'failed', ?, ?), (?, 'probe.sync', 'succeeded', ?, ?), (?, 'probe.sync', 'failed', ?, ?)`,
    [org.id, at(today - 60_000), at(today + 60_000), org.id, at(today - 2 * DAY), at(today - 2 * DAY), org.id, at(first - DAY), at(first - DAY)]);
    await sql(`insert into error_log (organization_id, source, origin, message, log_line, host, release, created_at) values (?, 'job', 'x', 'm', 'l', 'h', 'r', ?)`, [org.id, at(today - 5 * DAY)]);

    const body = (await get(`?days=${days}`)).json();
    const [todays] = await sql(`select count(*)::int as n from audit_log where organization_id = ? and created_at >= ?`, [org.id, at(today)]);
    t.same(series(body, 'core.changes'), [1, 0, 0, 1, 0, 2, todays.n], 'first day, three days ago, yesterday twice, today');
    t.same(series(body, 'core.errors'), [0, 1, 0, 0, 0, 0, 0]);
    t.same(series(body, 'core.job_runs'), [0, 0, 0, 0, 1, 1, 0], 'runs by the day they were queued');
    t.same(series(body, 'core.jobs_failed'), [0, 0, 0, 0, 0, 0, 1], 'failures by the day they failed');
  });

  t.test('module series: only modules that are on; fitted to one number a day; a failing module is named', async (t) => {
    const body = (await get('?days=7')).json();
    t.same(body.series.map((s: { module: string; key: string }) => `${s.module}:${s.key}`),
      ['core:core.changes', 'core:core.errors', 'core:core.job_runs', 'core:core.jobs_failed', 'gauges:gauges.members', 'gauges:gauges.sparse']);
    t.same(series(body, 'gauges.members'), [0, 1, 2, 3, 4, 5, 6]);
    t.same(series(body, 'gauges.sparse'), [1, 0, 3, 0, 0, 0, 0]);
    t.equal(body.series.find((s: { key: string }) => s.key === 'gauges.sparse').title, `Since ${body.since}`, 'the module got since = the first day');
    t.same(body.unavailable, ['flaky']);

    const off = await quad.api.inject({ method: 'PUT', url: '/api/organizations/acm/modules', headers: bearer(token), payload: { modules: { gauges: false, flaky: false } } });
    t.equal(off.statusCode, 200);
    const after = (await get('?days=7')).json();
    t.same(after.series.map((s: { module: string }) => s.module), ['core', 'core', 'core', 'core'], 'no series for modules that are off');
    t.same(after.unavailable, []);
  });
});
