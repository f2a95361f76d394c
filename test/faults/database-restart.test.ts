// PostgreSQL restarted under load: a real `quad run` (API and worker in one process) on a PostgreSQL server of the
// test's own, with clients writing and reading all the time. The server is stopped (fast shutdown: sessions cut),
// kept down until the clients have seen it, and started again. Requests in flight and during the outage answer 503
// `database_unavailable` with a clear message and nothing internal; every write that was answered 201 is stored
// once; the same process serves again without a restart, and its worker runs jobs again.
import t from 'tap';
import pg from 'pg';
import { until } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { migrate } from '../../core/src/db/migrator.js';
import sample from '../fixtures/sample-module.js';
import { ready, spawnQuad } from '../startup/support.js';
import { startPrivatePostgres } from '../support/private-postgres.js';

const OUTAGE = { error: 'The database is unavailable; try again shortly', reason: 'database_unavailable', retry_after: 5 };
const CLIENTS = 6;

t.test('PostgreSQL restarted under load', async (t) => {
  const server = await startPrivatePostgres(t);
  const url = await server.createDatabase('quad');
  await migrate(url, [...CORE_MODULES, sample], () => {});
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query(`insert into organizations (prefix, name, modules) values ('acm', 'ACM', '{"sample": true}')`);
  await db.end();

  const quad = spawnQuad(t, { env: { DATABASE_URL: url, PLUGINS: './test/fixtures/sample-module.ts', SECRET_KEY: 'k'.repeat(40), READY_MAX_EVENT_LOOP_DELAY_MS: '0' } });
  const base = new URL((await ready(quad)).api as string).origin;

  // Clients: each writes items with labels of its own and reads the list, as fast as answers come.
  const answers: { status: number; body: string; label?: string }[] = [];
  let load = true;
  const client = async (c: number) => {
    for (let n = 0; load; n++) {
      const label = `c${c}-${n}`;
      try {
        const write = await fetch(`${base}/api/sample/acm/items`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }),
        });
        answers.push({ status: write.status, body: await write.text(), label });
        const read = await fetch(`${base}/api/sample/acm/items`);
        answers.push({ status: read.status, body: await read.text() });
      } catch (err) {
        answers.push({ status: 0, body: String(err) }); // the HTTP server itself must never fail
      }
    }
  };
  const count = (status: number) => answers.filter((a) => a.status === status).length;
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));

  await until('answers before the restart', () => count(201) >= 30);
  await server.stop();
  const downAt = answers.length;
  await until('the clients to see the outage', () => count(503) >= 2 * CLIENTS);
  await server.start();
  const upAt = answers.length;
  await until('writes after the restart', () => answers.slice(upAt).filter((a) => a.status === 201).length >= 30);
  load = false;
  await Promise.all(clients);

  const statuses = [...new Set(answers.map((a) => a.status))].sort();
  t.same(statuses, [200, 201, 503], 'every answer was a success or a 503: no 500, no dropped connection', {
    others: answers.filter((a) => ![200, 201, 503].includes(a.status)).slice(0, 5),
    errors: quad.lines().filter((l) => /"level":50/.test(l)).slice(0, 5),
  });
  t.ok(answers.slice(0, downAt).some((a) => a.status === 201) && answers.slice(upAt).some((a) => a.status === 201), 'writes succeeded before and after');
  const outages = answers.filter((a) => a.status === 503);
  t.ok(outages.every((a) => {
    const body = JSON.parse(a.body) as unknown;
    return JSON.stringify(body) === JSON.stringify(OUTAGE);
  }), `each of the ${outages.length} 503s says the database is unavailable, with Retry-After, and nothing more`);
  t.notOk(outages.some((a) => /127\.0\.0\.1|ECONN|terminat|FATAL|sample_items|select|insert/i.test(a.body)), 'no internals in a 503');

  const check = new pg.Client({ connectionString: url });
  await check.connect();
  t.teardown(() => check.end());
  const stored = (await check.query<{ label: string; copies: number }>('select label, count(*)::int as copies from sample_items group by label')).rows;
  const copies = new Map(stored.map((r) => [r.label, r.copies]));
  const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.label!);
  t.same(acknowledged.filter((label) => copies.get(label) !== 1), [], `each of the ${acknowledged.length} acknowledged writes is stored once`);
  t.ok(stored.every((r) => r.copies === 1), 'no write is stored twice');

  t.equal((await fetch(`${base}/health/ready`)).status, 200, 'ready again, without a restart of Quad');
  const work = await fetch(`${base}/api/sample/acm/work`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 0 }) });
  t.equal(work.status, 202);
  const { run_id } = await work.json() as { run_id: number };
  const status = await until('the run to end', async () => {
    const { rows } = await check.query<{ status: string }>('select status from job_runs where id = $1', [run_id]);
    return rows[0]!.status !== 'queued' && rows[0]!.status !== 'running' && rows[0]!.status;
  });
  t.equal(status, 'succeeded', 'the worker runs jobs again', { output: quad.output().slice(-3000) });
});
