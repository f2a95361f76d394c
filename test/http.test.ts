// The HTTP basics every route gets from the core: error shapes, 413, 500 with its error-log row,
// validation errors naming the field, request ids, CORS, health and the OpenAPI document.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import sample from './fixtures/sample-module.js';

t.test('http basics', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample], config: { MAX_REQUEST_MB: 0.01, DASHBOARD_URL: 'https://dash.example.org/app' } });
  await quad.createOrg({ prefix: 'acm', modules: { sample: true } });

  t.test('GET /health reports database, jobs and version', async (t) => {
    const res = await quad.api.inject('/health');
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.equal(body.status, 'ok');
    t.equal(body.database.ok, true);
    t.equal(body.jobs.ok, true);
    t.match(body.version, /^\d+\.\d+\.\d+/);
  });

  t.test('an unhandled error is 500 {error, request_id} and an error-log row', async (t) => {
    const res = await quad.api.inject({ url: '/api/sample/boom', headers: { 'x-request-id': 'req-boom-1' } });
    t.equal(res.statusCode, 500);
    t.same(res.json(), { error: 'Internal Server Error', request_id: 'req-boom-1' });
    t.equal(res.headers['x-request-id'], 'req-boom-1');
    const rows = await quad.orm.em.fork().getConnection().execute('select * from error_log');
    t.equal(rows.length, 1);
    t.equal(rows[0].source, 'request');
    t.equal(rows[0].origin, 'GET /api/sample/boom');
    t.equal(rows[0].request_id, 'req-boom-1');
    t.equal(rows[0].message, 'kaboom');
    t.match(rows[0].log_line, /unhandled error in GET \/api\/sample\/boom: kaboom/);
    t.match(rows[0].stack, /kaboom\n\s+at /);
    t.ok(rows[0].host);
    t.equal(rows[0].release, quad.services.release);
  });

  t.test('a body over MAX_REQUEST_MB is 413', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/sample/echo', payload: { big: 'x'.repeat(20_000) } });
    t.equal(res.statusCode, 413);
    t.match(res.json(), { error: /too large/i });
    const small = await quad.api.inject({ method: 'POST', url: '/api/sample/echo', payload: { big: 'x' } });
    t.equal(small.statusCode, 200);
  });

  t.test('validation errors are 400 and name the field', async (t) => {
    const wrongType = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/items', payload: { label: 'a', count: 'many' } });
    t.equal(wrongType.statusCode, 400);
    t.match(wrongType.json(), { error: /^body\.count: must be integer/, field: 'body.count', reason: 'validation' });
    const missing = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/items', payload: {} });
    t.equal(missing.statusCode, 400);
    t.match(missing.json(), { error: 'body.label: is required', field: 'body.label' });
    const badJson = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/items', headers: { 'content-type': 'application/json' }, payload: '{"label":' });
    t.equal(badJson.statusCode, 400);
    t.type(badJson.json().error, 'string');
    const count = await quad.orm.em.fork().getConnection().execute('select count(*)::int as n from sample_items');
    t.equal(count[0].n, 0, 'nothing written by refused requests');
  });

  t.test('unknown routes and orgs are 404 JSON', async (t) => {
    const route = await quad.api.inject('/api/nothing-here');
    t.equal(route.statusCode, 404);
    t.match(route.json(), { error: /not found/ });
    const org = await quad.api.inject('/api/sample/nobody/items');
    t.equal(org.statusCode, 404);
    t.same(org.json(), { error: 'No org "nobody"', reason: 'unknown_org' });
  });

  t.test('every response carries a request id', async (t) => {
    const res = await quad.api.inject('/health');
    t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/);
  });

  t.test('CORS allows DASHBOARD_URL and nobody else', async (t) => {
    const ok = await quad.api.inject({ method: 'OPTIONS', url: '/health', headers: { origin: 'https://dash.example.org', 'access-control-request-method': 'GET' } });
    t.equal(ok.headers['access-control-allow-origin'], 'https://dash.example.org');
    t.equal(ok.headers['access-control-allow-credentials'], 'true');
    const other = await quad.api.inject({ method: 'OPTIONS', url: '/health', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    t.notOk(other.headers['access-control-allow-origin']);
  });

  t.test('the OpenAPI document lists core and module routes, and the docs page is served', async (t) => {
    const doc = (await quad.api.inject('/openapi.json')).json();
    t.ok(doc.paths['/health']);
    t.ok(doc.paths['/api/sample/{org}/items'].post.requestBody);
    const page = await quad.api.inject('/docs/');
    t.equal(page.statusCode, 200);
    t.match(page.headers['content-type'], /html/);
  });
});
