// Ending a pool waits for its connections to close: a database stopped right after (the embedded one on Ctrl-C)
// finds none of them, so no "terminating connection" error is reported on a clean shutdown.
import pg from 'pg';
import t from 'tap';
import { ADMIN_URL, createTestDatabase } from '@quad/core/testing';
import { createPool, endPool } from '../../core/src/db/pool.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';

t.test('endPool resolves once every connection has closed on the server', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const name = `endpool_${process.pid}`;
  const url = new URL(db.url);
  url.searchParams.set('application_name', name);
  const errors: Error[] = [];
  const pool = createPool(url.toString(), 4, (err) => errors.push(err));
  let opened = 0;
  let closed = 0;
  pool.on('connect', (client) => {
    opened++;
    client.once('end', () => closed++);
  });

  // Four idle connections: pool.end() alone resolves as soon as it has asked them to close.
  await Promise.all([1, 2, 3, 4].map(() => pool.query('select pg_sleep(0.05)')));
  await endPool(pool);
  t.equal(opened, 4);
  t.equal(closed, opened, 'every connection had closed when endPool resolved');

  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  t.teardown(() => admin.end());
  const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [name]);
  t.equal(rows[0].n, 0, 'no backend of the pool is left for a stopping server to terminate');
  t.same(errors, [], 'and nothing was reported as a failure');
});
