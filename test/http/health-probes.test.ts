// Liveness and readiness probes: public, in the API document, and /health unchanged beside them. (Readiness during a
// database outage is in database-outage.test.ts, where the database is really cut.)
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

t.test('health probes', async (t) => {
  // The event-loop gate off: its answer depends on the machine's load, which a test must not.
  const quad = await startTestApp(t, { config: { READY_MAX_EVENT_LOOP_DELAY_MS: 0 } });

  t.test('GET /health/live answers without a credential or the database', async (t) => {
    const res = await quad.api.inject('/health/live');
    t.equal(res.statusCode, 200);
    t.same(res.json(), { status: 'ok' });
  });

  t.test('GET /health/ready answers 200 while the database answers, and says the access mode (report by default)', async (t) => {
    const res = await quad.api.inject('/health/ready');
    t.equal(res.statusCode, 200);
    t.same(res.json(), { status: 'ok', access: 'report' });
  });

  t.test('a credential is not needed, and a bad one does not matter', async (t) => {
    for (const url of ['/health/live', '/health/ready']) {
      const res = await quad.api.inject({ url, headers: { authorization: 'Bearer garbage' } });
      t.equal(res.statusCode, 200, url);
    }
  });

  t.test('/health keeps its report', async (t) => {
    const res = await quad.api.inject('/health');
    t.equal(res.statusCode, 200);
    t.match(res.json(), { status: 'ok', database: { ok: true }, jobs: { ok: true } });
  });

  t.test('both probes are in the API document', async (t) => {
    const doc = (await quad.api.inject('/openapi.json')).json();
    t.ok(doc.paths['/health/live']?.get);
    t.ok(doc.paths['/health/ready']?.get?.responses?.['503'], 'readiness documents its 503');
  });
});
