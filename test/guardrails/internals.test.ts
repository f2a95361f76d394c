// Guardrail: a 500 never carries internals. A bug whose message holds SQL, a bound secret, a database address and a
// file path is forced on every way in (a route, /api/tools/call, a batch, MCP), and the database is cut off for
// real (its port closes under a running Quad); no answer may carry the message, SQL, a stack, an address or a
// path, while the error log keeps the whole detail.
import t, { type Test } from 'tap';
import net from 'node:net';
import { startTestApp } from '@quad/core/testing';
import { createMachineToken } from '../../core/src/auth/machine-tokens.js';
import { failing, LEAKS } from '../fixtures/failing-module.js';

/** A TCP door to PostgreSQL that the test can close (connection refused, connections cut) and open again. */
async function databaseDoor(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const open = () => new Promise<void>((resolve, reject) => {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as net.AddressInfo).port;
      resolve();
    });
  });
  const close = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server ? server.close(() => resolve()) : resolve();
    server = null;
  });
  await open();
  return { get port() { return port; }, open, close };
}

/** What no answer may hold. */
function assertNoInternals(t: Test, body: string, label: string, extra: string[] = []) {
  for (const [what, leak] of Object.entries(LEAKS)) t.notOk(body.includes(leak), `${label}: no ${what}`);
  for (const leak of extra) t.notOk(body.includes(leak), `${label}: no "${leak}"`);
  t.notMatch(body, /\bat [^\s]+ \(|\bat .+:\d+:\d+|\.ts:\d+|node_modules/, `${label}: no stack`);
  t.notMatch(body, /\b(insert into|select .+ from|update .+ set|delete from)\b/i, `${label}: no SQL`);
  t.notMatch(body, /\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|ECONNREFUSED|\/(srv|home|work|usr|tmp)\//, `${label}: no address or path`);
}

t.test('a 500 never carries internals', async (t) => {
  // The test's own Quad reads the error log; the Quad under test reaches the same database through the door.
  const home = await startTestApp(t, { plugins: [failing], role: 'api' });
  const org = await home.createOrg({ prefix: 'acm', modules: { failing: true } });
  await home.createOrg({ prefix: 'cold', modules: { failing: true } });
  const dbUrl = new URL(home.databaseUrl);
  const door = await databaseDoor({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
  t.teardown(() => door.close());
  const viaDoor = new URL(home.databaseUrl);
  viaDoor.hostname = '127.0.0.1';
  viaDoor.port = String(door.port);
  const quad = await startTestApp(t, { plugins: [failing], role: 'api', listen: true, databaseUrl: viaDoor.toString() });
  const doorAddress = `127.0.0.1:${door.port}`;
  const sql = <T = Record<string, any>>(q: string, p: unknown[] = []) => home.orm.em.fork().getConnection().execute(q, p) as Promise<T[]>;

  // A machine token for the tool paths, stored directly (sign-in is not what this test is about).
  const { token } = await createMachineToken(home.orm.em.fork(), org.id, { name: 'guardrail', kind: 'agent', scopes: ['failing:call'], limits: {}, createdBy: 'test' });
  const auth = { authorization: `Bearer ${token}` };
  const mcpUrl = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;
  const mcp = (name: string) => fetch(mcpUrl, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });

  t.test('an unhandled error, on every way in', async (t) => {
    const answers: Record<string, { status: number; body: string; requestId?: string }> = {};
    const route = await quad.api.inject('/api/failing/acm/boom');
    answers.route = { status: route.statusCode, body: route.body, requestId: route.json().request_id };
    const call = await quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: auth, payload: { name: 'failing.boom' } });
    answers.call = { status: call.statusCode, body: call.body, requestId: call.json().request_id };
    const batch = await quad.api.inject({ method: 'POST', url: '/api/tools/batch', headers: auth, payload: { calls: [{ name: 'failing.boom' }] } });
    answers.batch = { status: batch.json().results[0].status, body: batch.body, requestId: batch.json().results[0].request_id };
    const viaMcp = await mcp('failing.boom');
    const mcpBody = await viaMcp.text();
    answers.mcp = { status: JSON.parse(mcpBody).result.structuredContent.status, body: mcpBody, requestId: JSON.parse(mcpBody).result.structuredContent.request_id };

    for (const [way, answer] of Object.entries(answers)) {
      t.equal(answer.status, 500, `${way}: 500`);
      t.match(answer.body, /Internal Server Error/, `${way}: the generic message`);
      assertNoInternals(t, answer.body, way);
      const [row] = await sql<{ message: string; stack: string; log_line: string }>('select message, stack, log_line from error_log where request_id = ?', [answer.requestId]);
      t.ok(row, `${way}: the error log has the request id`);
      t.ok(row && row.message.includes(LEAKS.sql) && row.message.includes(LEAKS.secret) && row.message.includes(LEAKS.address) && row.message.includes(LEAKS.path), `${way}: and the whole message`);
      t.match(row?.stack, /\n\s+at /, `${way}: and the stack`);
    }
  });

  t.test('a database outage: its port closes under the running Quad', async (t) => {
    t.equal((await quad.api.inject('/api/failing/acm/rows')).statusCode, 200, 'works through the door');
    await door.close();
    const answers = {
      route: await quad.api.inject('/api/failing/acm/rows'),
      orgResolver: await quad.api.inject('/api/failing/cold/rows'),
      toolCall: await quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: auth, payload: { name: 'failing.rows' } }),
      health: await quad.api.inject('/health'),
    };
    for (const [way, res] of Object.entries(answers)) {
      t.equal(res.statusCode, 503, `${way}: 503`);
      t.ok(Number(res.headers['retry-after']) > 0, `${way}: Retry-After`);
      assertNoInternals(t, res.body, way, [doorAddress, String(door.port)]);
    }
    const viaMcp = await mcp('failing.rows');
    t.equal(viaMcp.status, 503, 'mcp: 503');
    assertNoInternals(t, await viaMcp.text(), 'mcp', [doorAddress, String(door.port)]);

    await door.open();
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await quad.api.inject('/api/failing/acm/rows')).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(status, 200, 'back when the database is');
  });
});
