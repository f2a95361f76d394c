// HTTP hardening: security headers (helmet) on every answer without breaking the docs page, no-store on answers
// (tokens and secrets are never cached), bounded client request ids, and every route that takes a credential
// says which in the OpenAPI document.
import t, { type Test } from 'tap';
import { failing } from '../fixtures/failing-module.js';
import { bearer, officerLogin, signInOfficer, startSignInWorld } from '../support/sign-in.js';

/** The headers every answer carries, JSON or page: nothing frames it, sniffs it, embeds it from elsewhere; HSTS. */
function everyAnswersHeaders(t: Test, headers: Record<string, unknown>, url: string) {
  t.match(String(headers['content-security-policy']), /frame-ancestors 'none'/, `${url}: not framed`);
  t.equal(headers['x-content-type-options'], 'nosniff', url);
  t.equal(headers['x-frame-options'], 'DENY', url);
  t.match(headers['strict-transport-security'], /max-age=\d+/, url);
  t.equal(headers['cross-origin-resource-policy'], 'same-origin', url);
}

t.test('http hardening', async (t) => {
  const world = await startSignInWorld(t, { plugins: ['./plugins/points', './plugins/store', failing], listen: true, orgModules: { failing: true } });
  const { quad } = world;
  const officer = await signInOfficer(world, world.officer.id);

  t.test('security headers on answers, errors and 404s: the API set', async (t) => {
    for (const url of ['/health', '/api/failing/acm/boom', '/api/nothing-here', '/api/organizations/acm/tokens']) {
      const res = await quad.api.inject(url);
      t.match(String(res.headers['content-security-policy']), /default-src 'none'/, `${url}: a JSON answer loads nothing`);
      everyAnswersHeaders(t, res.headers, url);
      for (const documentOnly of ['referrer-policy', 'cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection']) {
        t.equal(res.headers[documentOnly], undefined, `${url}: no ${documentOnly} (it applies to pages)`);
      }
    }
    const cors = await quad.api.inject({ url: '/health', headers: { origin: 'https://dashboard.quad.test' } });
    t.equal(cors.headers['access-control-allow-origin'], 'https://dashboard.quad.test', 'CORS still answers the dashboard');
  });

  t.test('pages carry the document headers too: the docs and the web clients', async (t) => {
    for (const url of ['/docs/', '/dashboard', '/store/acm']) {
      const res = await quad.api.inject(url);
      t.equal(res.statusCode, 200, url);
      t.match(res.headers['content-type'], /html/, url);
      const csp = String(res.headers['content-security-policy']);
      t.match(csp, /default-src 'self'/, `${url}: CSP for a page`);
      t.notMatch(csp, /upgrade-insecure-requests/, `${url}: pages work over http://localhost`);
      t.equal(res.headers['referrer-policy'], 'no-referrer', url);
      t.equal(res.headers['cross-origin-opener-policy'], 'same-origin', url);
      everyAnswersHeaders(t, res.headers, url);
      t.equal(res.headers['cache-control'], url === '/docs/' ? 'no-store' : 'no-cache', `${url}: cache-control`);
    }
  });

  t.test('the docs page and its assets still load under the CSP', async (t) => {
    const page = await quad.api.inject('/docs/');
    t.equal(page.statusCode, 200);
    t.match(page.headers['content-type'], /html/);
    t.notMatch(page.body, /<script>(?!\s*<\/script>)|<script(?![^>]*\bsrc=)[^>]*>\s*\S/, 'no inline script (script-src is self)');
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    t.ok(scripts.length >= 2);
    for (const src of scripts) {
      const asset = await quad.api.inject(new URL(src, `${quad.url}/docs/`).pathname);
      t.equal(asset.statusCode, 200, src);
    }
    const spec = await quad.api.inject('/docs/json');
    t.equal(spec.statusCode, 200, 'the document the page loads');
  });

  t.test('Cache-Control: no-store on every answer that carries tokens or secrets (on all answers)', async (t) => {
    const login = await officerLogin(world, world.officer.id);
    const exchange = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
    const refresh = await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: officer.refresh_token } });
    const appToken = await quad.api.inject({ url: '/api/auth/appToken', headers: bearer(officer.access_token) });
    const created = await quad.api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(officer.access_token), payload: { name: 'x', kind: 'agent', scopes: ['org:read'] } });
    const whoami = await quad.api.inject({ url: '/api/auth/machine/whoami', headers: bearer(created.json().token) });
    const memberLogin = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', payload: { email: 'a@b.org' } });
    const tool = await quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(created.json().token), payload: { name: 'org.info' } });
    const refused = await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: 'nope' } });
    const answers = { exchange, refresh, appToken, created, whoami, memberLogin, tool, refused, health: await quad.api.inject('/health') };
    for (const [name, res] of Object.entries(answers)) {
      t.ok(res.statusCode < 500, `${name}: ${res.statusCode}`);
      t.equal(res.headers['cache-control'], 'no-store', name);
    }
    const mcpUrl = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;
    const mcp = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...bearer(created.json().token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'org.info', arguments: {} } }),
    });
    t.equal(mcp.status, 200);
    t.equal(mcp.headers.get('cache-control'), 'no-store', 'MCP answers');
  });

  t.test('a client x-request-id is used only when short and safe', async (t) => {
    const id = async (sent: string) => (await quad.api.inject({ url: '/health', headers: { 'x-request-id': sent } })).headers['x-request-id'];
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    t.equal(await id('trace-1.2:3_A'), 'trace-1.2:3_A');
    t.equal(await id('x'.repeat(64)), 'x'.repeat(64));
    t.match(await id('x'.repeat(65)), uuid, 'too long');
    t.match(await id('x'.repeat(5000)), uuid, 'far too long');
    t.match(await id('a b'), uuid, 'a space');
    t.match(await id('a<script>'), uuid, 'markup');
    t.match(await id('é'), uuid, 'not ASCII');
    const res = await quad.api.inject({ url: '/api/failing/acm/boom', headers: { 'x-request-id': 'y'.repeat(300) } });
    t.match(res.json().request_id, uuid, 'the id a 500 answers is the bounded one');
    const [row] = await quad.orm.em.fork().getConnection().execute('select request_id from error_log where request_id = ?', [res.json().request_id]);
    t.ok(row, 'and the one in the error log');
  });

  t.test('every route that takes a credential declares its security in the OpenAPI document', async (t) => {
    const doc = (await quad.api.inject('/openapi.json')).json() as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };
    // Behaviour decides: an operation that declares no security must not refuse a caller without a credential.
    const undeclared: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        checked++;
        if (op.security?.length) continue;
        const url = path.replace('{org}', 'acm').replace(/\{\w+\}/g, '1');
        const res = await quad.api.inject({ method: method.toUpperCase() as 'GET', url, ...(method === 'get' ? {} : { payload: {} }) });
        if (res.statusCode === 401 || res.statusCode === 403) undeclared.push(`${method.toUpperCase()} ${path} answered ${res.statusCode}`);
      }
    }
    t.same(undeclared, [], 'no route that refuses anonymous callers lacks security');
    t.ok(checked > 50, `${checked} operations checked`);
    t.same(doc.paths['/api/points/{org}/member_login'].post.security, [{ idpToken: [] }, {}], 'member_login: an optional identity-provider bearer');
    const session = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
      .filter(([, op]) => JSON.stringify(op.security) === JSON.stringify([{ memberSession: [] }])).map(([m]) => `${m.toUpperCase()} ${path}`));
    t.ok(session.length >= 4, `the member-session routes declare the session cookie: ${session.join(', ')}`);
  });
});
