// Errors in the log are what an operator can use: a pg connection the server drops is logged by its message and
// code, not with the client and pool it drags along (which made 19 KB lines).
import { Writable } from 'node:stream';
import pg from 'pg';
import t from 'tap';
import { ADMIN_URL, createTestDatabase } from '@quad/core/testing';
import { createPool } from '../../core/src/db/pool.js';
import { createLogger } from '../../core/src/log.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';

function captured() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
  return { lines, log: createLogger('info', stream) };
}

t.test('a dropped pool connection is logged in short lines: message and code', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const { lines, log } = captured();
  const dropped = new Promise<void>((resolve) => {
    const pool = createPool(db.url, 2, (err) => { log.warn({ err }, 'job worker: a database connection failed'); resolve(); });
    t.teardown(() => pool.end());
    void pool.query('select pg_backend_pid() as pid').then(async ({ rows }) => {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      await admin.end();
    });
  });
  await dropped;
  for (const text of lines) {
    t.ok(Buffer.byteLength(text) < 1024, `under 1 KB (${Buffer.byteLength(text)} bytes)`);
    t.same(JSON.parse(text).err, { type: 'DatabaseError', message: 'terminating connection due to administrator command', code: '57P01' },
      'type, message and code: no client, no protocol-parser stack');
  }
});

t.test('other errors keep their stack, cause and code', async (t) => {
  const { lines, log } = captured();
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', socket: { huge: 'x'.repeat(5000) } });
  log.error({ err: new Error('could not reach the database', { cause }) }, 'failed');
  const { err } = JSON.parse(lines[0]);
  t.match(err, { type: 'Error', message: 'could not reach the database', stack: /at /, cause: { message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' } });
  // The socket's 5,000 x's (a pg error drags its client along) never reach the line.
  t.notMatch(lines[0], /xxxxx/, 'other properties are left out');
});
