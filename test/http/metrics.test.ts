// Prometheus metrics: GET /metrics on the API answers only the METRICS_TOKEN bearer (404 while it is unset, 401
// without it), and its counters move by exactly the requests, job runs and tool calls made, labelled by route
// pattern, job and tool; a worker process serves its job metrics on the METRICS_PORT listener. Deployed as in
// production: an API process and a worker process on one database.
import t from 'tap';
import { defineJob, defineModule, defineTool, Type, type RoutesPlugin } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { ConfigError, ConfigSource } from '../../core/src/config/load.js';
import { loadRegistry } from '../../core/src/modules/load.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const routes: RoutesPlugin = async (app) => {
  app.get('/api/meter/items/:id', {
    config: { auth: 'public' },
    schema: { params: Type.Object({ id: Type.String({ pattern: '^\\d{1,6}$' }) }, { additionalProperties: false }) },
  }, async (request) => ({ id: (request.params as { id: string }).id }));
};
const meter = defineModule({
  name: 'meter', title: 'Meter', description: 'Routes, jobs and tools for the metrics tests', category: 'Tests',
  routes,
  scopes: [{ name: 'meter:read', description: 'Read' }],
  jobs: [
    defineJob({ name: 'meter.tick', async handler() {} }),
    defineJob({ name: 'meter.break', maxAttempts: 1, async handler() { throw new Error('broken on purpose'); } }),
  ],
  tools: [
    defineTool({
      name: 'meter.echo', description: 'Echoes its text', scope: 'meter:read',
      input: Type.Object({ text: Type.String({ maxLength: 20 }) }), annotations: { readOnly: true },
      async handler(_ctx, { text }) { return { text }; },
    }),
  ],
});

interface Sample { name: string; labels: Record<string, string>; value: number }

/** The samples of a text exposition (`name{label="value",…} number` lines). */
function samples(text: string): Sample[] {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((line) => {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]));
    return { name: m[1]!, labels, value: Number(m[3]) };
  });
}

/** The value of the series with exactly these labels; 0 when it does not exist yet. */
function valueOf(text: string, name: string, labels: Record<string, string>): number {
  const keys = Object.keys(labels);
  const found = samples(text).find((s) => s.name === name && Object.keys(s.labels).length === keys.length && keys.every((k) => s.labels[k] === labels[k]));
  return found?.value ?? 0;
}

/** Until `check` holds (a condition, not wall time; the deadline only turns a hang into a failure). */
async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.test('settings: METRICS_PORT needs METRICS_TOKEN, and a token is long enough', async (t) => {
  // No plugins: only the core's settings are read.
  const problems = (overrides: Record<string, unknown>) => loadRegistry(new ConfigSource({ env: {}, overrides: { PLUGINS: [], ...overrides } }))
    .then(() => [], (err: unknown) => (err instanceof ConfigError ? err.problems : Promise.reject(err)));
  const portOnly = await problems({ METRICS_PORT: 9464 });
  t.equal(portOnly.length, 1);
  t.match(portOnly[0], /^METRICS_PORT: needs METRICS_TOKEN/);
  const short = await problems({ METRICS_TOKEN: 'short' });
  t.equal(short.length, 1);
  t.match(short[0], /^METRICS_TOKEN: must be at least 16 characters, without spaces \(got a value of 5 characters\)/);
  t.notOk(short[0]!.includes('short'), 'the value is not shown');
  t.same(await problems({ METRICS_TOKEN: TOKEN, METRICS_PORT: 9464 }), []);
});

t.test('metrics', async (t) => {
  const config = { METRICS_TOKEN: TOKEN, METRICS_PORT: 0 };
  const api = await startTestApp(t, { plugins: [meter], role: 'api', listen: true, config });
  const org = await api.createOrg({ prefix: 'acm', modules: { meter: true } });
  const scrape = async () => {
    const res = await api.api.inject({ url: '/metrics', headers: bearer(TOKEN) });
    if (res.statusCode !== 200) throw new Error(`scrape answered ${res.statusCode}: ${res.body}`);
    return res.body;
  };

  t.test('without METRICS_TOKEN /metrics answers 404, as a path no route serves', async (t) => {
    const off = await startTestApp(t, { plugins: [meter], role: 'api', databaseUrl: api.databaseUrl });
    for (const headers of [{}, bearer(TOKEN)]) {
      const res = await off.api.inject({ url: '/metrics', headers });
      t.equal(res.statusCode, 404);
      t.same(res.json(), { error: 'Route GET /metrics not found', reason: 'route_not_found' });
    }
    t.equal(off.metricsListener, null, 'no listener either');
  });

  t.test('a missing or wrong token is 401; the token is 200 text', async (t) => {
    for (const headers of [{}, bearer('metrics-token-0123456789abcdeX'), { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const res = await api.api.inject({ url: '/metrics', headers });
      t.equal(res.statusCode, 401, JSON.stringify(headers));
      t.match(res.json(), { error: String, reason: 'invalid_token' });
    }
    const res = await api.api.inject({ url: '/metrics', headers: bearer(TOKEN) });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
    t.equal(res.headers['cache-control'], 'no-store');
    t.match(res.body, /^# HELP quad_http_requests_total /m);
    t.match(res.body, /^quad_process_cpu_seconds_total \d/m, 'process metrics, prefixed');
    t.notOk((api.api.swagger() as { paths: Record<string, unknown> }).paths['/metrics'], 'not in the API description');
  });

  t.test('requests: counted and timed by route pattern, unknown paths under one label', async (t) => {
    const route = { method: 'GET', route: '/api/meter/items/:id' };
    const before = await scrape();
    for (const id of ['7', '7', '8']) t.equal((await api.api.inject(`/api/meter/items/${id}`)).statusCode, 200);
    t.equal((await api.api.inject('/api/meter/items/x')).statusCode, 400);
    for (const path of ['/nowhere/1', '/nowhere/2']) t.equal((await api.api.inject(path)).statusCode, 404);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    t.equal(delta('quad_http_requests_total', { ...route, status: '200' }), 3);
    t.equal(delta('quad_http_requests_total', { ...route, status: '400' }), 1);
    t.equal(delta('quad_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 2);
    t.equal(delta('quad_http_request_duration_seconds_count', route), 4);
    t.equal(delta('quad_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }), 4);
    t.ok(valueOf(after, 'quad_http_request_duration_seconds_sum', route) > 0);
    t.equal(delta('quad_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }), 1, 'the scrape before');
    t.notOk(/items\/7|nowhere/.test(after), 'no URL is a label');
  });

  t.test('tool calls: over /api/tools/call and MCP, by tool and outcome; unknown names share one label', async (t) => {
    const { token } = await api.issueToken(org.id, { scopes: ['meter:read'] });
    const call = (name: string, args: Record<string, unknown>) => api.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name, arguments: args } });
    const before = await scrape();
    t.equal((await call('meter.echo', { text: 'hi' })).statusCode, 200);
    t.equal((await call('meter.echo', { text: 42 })).statusCode, 400);
    t.equal((await call('meter.nope', {})).statusCode, 404);
    const mcp = await fetch(`http://127.0.0.1:${(api.mcp!.server.address() as { port: number }).port}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'meter.echo', arguments: { text: 'hey' } } }),
    });
    t.match(await mcp.json(), { result: { structuredContent: { text: 'hey' } } });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    t.equal(delta('quad_tool_calls_total', { tool: 'meter.echo', outcome: 'ok' }), 2);
    t.equal(delta('quad_tool_calls_total', { tool: 'meter.echo', outcome: 'refused' }), 1);
    t.equal(delta('quad_tool_calls_total', { tool: 'unknown', outcome: 'refused' }), 1);
    t.equal(delta('quad_tool_call_duration_seconds_count', { tool: 'meter.echo' }), 3);
    t.notOk(after.includes('meter.nope'), 'a name no tool has is no label');
  });

  t.test('a worker process serves its job metrics on METRICS_PORT', async (t) => {
    const worker = await startTestApp(t, { plugins: [meter], role: 'worker', listen: true, databaseUrl: api.databaseUrl, config });
    t.equal(worker.app, null, 'no API');
    const url = `http://127.0.0.1:${(worker.metricsListener!.server.address() as { port: number }).port}`;
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
    t.equal((await get('/metrics')).status, 401);
    t.equal((await get('/metrics', bearer('metrics-token-0123456789abcdeX'))).status, 401);
    const other = await get('/health', bearer(TOKEN));
    t.equal(other.status, 404);
    t.same(await other.json(), { error: 'Route GET /health not found', reason: 'route_not_found' });
    const scrapeWorker = async () => {
      const res = await get('/metrics', bearer(TOKEN));
      t.equal(res.status, 200);
      t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const before = await scrapeWorker();
    const em = api.orm.em.fork();
    for (const name of ['meter.tick', 'meter.tick', 'meter.break']) await api.services.startJob(em, name, {}, { orgId: org.id });
    const ran = (text: string, job: string) => valueOf(text, 'quad_job_duration_seconds_count', { job }) - valueOf(before, 'quad_job_duration_seconds_count', { job });
    let after = '';
    await until(async () => {
      after = await scrapeWorker();
      return ran(after, 'meter.tick') === 2 && ran(after, 'meter.break') === 1;
    }, 'the three runs in the worker\'s metrics');
    const delta = (labels: Record<string, string>) => valueOf(after, 'quad_jobs_total', labels) - valueOf(before, 'quad_jobs_total', labels);
    t.equal(delta({ job: 'meter.tick', outcome: 'succeeded' }), 2);
    t.equal(delta({ job: 'meter.break', outcome: 'failed' }), 1);
    t.equal(delta({ job: 'meter.break', outcome: 'retrying' }), 0, 'its only attempt');
    t.match(after, /^quad_process_resident_memory_bytes \d/m, 'the worker\'s process metrics');
    t.equal(valueOf(await scrape(), 'quad_jobs_total', { job: 'meter.tick', outcome: 'succeeded' }), 0, 'the API process ran no job');
  });
});
