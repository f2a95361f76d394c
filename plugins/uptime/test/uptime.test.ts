// Uptime's officer routes and tools against real PostgreSQL and a monitored site on loopback: every validation
// refusal (400 naming the field), create/read/change/delete with their audit rows, the count limit (409), the module
// switched off and another org's monitors (404), Check now (200 with the check, 409 while paused), the Overview
// section, and the tools with their scopes and delete's confirm.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { startUptimeWorld } from './world.js';

const w = await startUptimeWorld(t, { LIMIT_UPTIME_MONITORS: 4 });
const { quad, site, call } = w;
const website = { name: 'Website', url: site.url('/health') };
let id = 0;

t.test('validation: every refusal is a 400 naming the field; nothing is stored', async (t) => {
  const cases: [unknown, string][] = [
    [{ url: site.url() }, 'name'],
    [{ name: 'x' }, 'url'],
    [{ name: '   ', url: site.url() }, 'name'],
    [{ name: 'x', url: 'ftp://files.example/x' }, 'url'],
    [{ name: 'x', url: 'not a url' }, 'url'],
    [{ name: 'x', url: 'https://user:pw@example.org/' }, 'url'],
    [{ name: 'x', url: `https://example.org/${'a'.repeat(2100)}` }, 'url'],
    [{ ...website, interval_seconds: 59 }, 'interval_seconds'],
    [{ ...website, interval_seconds: 86_401 }, 'interval_seconds'],
    [{ ...website, expected_status: 99 }, 'expected_status'],
    [{ ...website, expected_status: 600 }, 'expected_status'],
    [{ ...website, timeout_ms: 999 }, 'timeout_ms'],
    [{ ...website, timeout_ms: 30_001 }, 'timeout_ms'],
    [{ ...website, down_after: 0 }, 'down_after'],
    [{ ...website, down_after: 11 }, 'down_after'],
    [{ ...website, keyword: '' }, 'keyword'],
    [{ ...website, keyword: 'k'.repeat(201) }, 'keyword'],
    [{ ...website, paused: 'yes' }, 'paused'],
    [{ ...website, extra: 1 }, 'body'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/monitors', body);
    t.equal(res.statusCode, 400, `${field}: ${res.body}`);
    t.match(res.json().error, field, `the error names ${field}`);
  }
  for (const path of ['/monitors/abc', '/monitors/0', '/monitors/2147483648', '/monitors/1/checks?limit=0', '/monitors/1/checks?limit=501', '/monitors/1/days?days=0', '/monitors/1/days?days=401']) {
    t.equal((await call('GET', path)).statusCode, 400, path);
  }
  t.same((await call('GET', '/monitors')).json(), { monitors: [] }, 'nothing was stored');
});

t.test('create, read, change, with audit rows that keep the URL out', async (t) => {
  const made = await call('POST', '/monitors', { ...website, keyword: 'operational' });
  t.equal(made.statusCode, 201, made.body);
  id = made.json().id;
  t.match(made.json(), {
    name: 'Website', url: site.url('/health'), interval_seconds: 300, expected_status: 200, timeout_ms: 10_000, keyword: 'operational',
    down_after: 2, paused: false, state: 'pending', consecutive_failures: 0, last_check: null, uptime_24h: null, uptime_30d: null,
  });
  t.ok(made.json().next_check_at, 'due for a first check');
  t.same((await call('GET', '/monitors')).json().monitors.map((m: { id: number }) => m.id), [id]);
  t.equal((await call('GET', `/monitors/${id}`)).json().name, 'Website');

  const renamed = await call('PUT', `/monitors/${id}`, { name: 'Home page', interval_seconds: 120 });
  t.equal(renamed.statusCode, 200, renamed.body);
  t.match(renamed.json(), { name: 'Home page', interval_seconds: 120, url: site.url('/health'), keyword: 'operational' });
  t.equal((await call('PUT', `/monitors/${id}`, { keyword: null })).json().keyword, null, 'keyword null: not checked');
  t.equal((await call('PUT', `/monitors/${id}`, {})).statusCode, 400, 'an empty change');
  t.equal((await call('PUT', `/monitors/${id}`, { url: 'gopher://x' })).statusCode, 400);
  t.equal((await call('PUT', '/monitors/999999', { name: 'x' })).statusCode, 404);

  const audit = await w.sql<{ action: string; details: Record<string, unknown> }>(
    "select action, details from audit_log where organization_id = ? and action like 'uptime.%' order by id", [w.org.id]);
  t.match(audit.map((a) => a.action), ['uptime.created', 'uptime.changed', 'uptime.changed']);
  t.match(audit[0]!.details, { id, name: 'Website', host: new URL(site.origin).host });
  t.notOk(JSON.stringify(audit).includes('/health'), 'the URL (which may carry a token) is not in the audit log');
  t.same(audit[1]!.details, { id, changed: ['name', 'interval_seconds'] });
});

t.test('Check now: the check itself, listed with the monitor; 409 while paused', async (t) => {
  site.answer({ status: 200 });
  const res = await call('POST', `/monitors/${id}/check`);
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { ok: true, status: 200, reason: null, message: null });
  t.match(site.requests.at(-1), { path: '/health', userAgent: /QuadUptime/ });
  t.match((await call('GET', `/monitors/${id}`)).json(), { state: 'up', last_check: { ok: true, status: 200 }, uptime_24h: 100, uptime_30d: 100 });
  const checks = (await call('GET', `/monitors/${id}/checks`)).json().checks;
  t.equal(checks.length, 1);
  t.equal(checks[0].id, res.json().id);

  site.answer({ status: 500 });
  t.match((await call('POST', `/monitors/${id}/check`)).json(), { ok: false, status: 500, reason: 'status_mismatch', message: 'answered 500, expected 200' });
  t.match((await call('GET', `/monitors/${id}`)).json(), { state: 'up', consecutive_failures: 1, uptime_24h: 50 });
  const [newest] = (await call('GET', `/monitors/${id}/checks?limit=1`)).json().checks;
  const older = (await call('GET', `/monitors/${id}/checks?limit=5&before=${newest.id}`)).json().checks;
  t.same(older.map((c: { id: number }) => c.id), [checks[0].id], 'before=<check id> pages to older checks');
  t.same((await call('GET', `/monitors/${id}/checks?before=999999`)).json().checks, [], 'an unknown check id: nothing older');

  const paused = (await call('PUT', `/monitors/${id}`, { paused: true })).json();
  t.match(paused, { paused: true, state: 'paused', next_check_at: null, consecutive_failures: 0 });
  const refused = await call('POST', `/monitors/${id}/check`);
  t.equal(refused.statusCode, 409);
  t.equal(refused.json().reason, 'monitor_paused');
  t.equal((await call('PUT', `/monitors/${id}`, { paused: false })).json().state, 'pending', 'resumed: starts afresh');
  t.equal((await call('POST', '/monitors/999999/check')).statusCode, 404);
  site.answer({});
});

t.test('the count limit: 409 limit_reached, nothing added, also under parallel creates', async (t) => {
  const parallel = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', '/monitors', { name: `m${i}`, url: site.url(`/${i}`) })));
  t.same(parallel.map((r) => r.statusCode).sort(), [201, 201, 201, 409, 409, 409], 'six creates at once against 3 free places make 3');
  const full = await call('POST', '/monitors', { name: 'fifth', url: site.url() });
  t.equal(full.statusCode, 409);
  t.equal(full.json().reason, 'limit_reached');
  t.equal((await call('GET', '/monitors')).json().monitors.length, 4);
  const limits = await quad.api.inject({ method: 'GET', url: `/api/organizations/${w.org.id}/limits`, headers: bearer(w.officerToken) });
  t.match(limits.json().limits.find((l: { key: string }) => l.key === 'uptime.monitors'), { value: 4, use: 4, paid_by: 'org', near_limit: true });
});

t.test('another org\'s monitor answers 404; the module switched off answers 404', async (t) => {
  const theirs = await w.insertMonitor(w.gamma.id, { name: 'gamma site' });
  for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['GET', '/checks'], ['GET', '/days'], ['POST', '/check']] as const) {
    const res = await call(method, `/monitors/${theirs}${path}`, method === 'PUT' ? { name: 'mine' } : undefined);
    t.equal(res.statusCode, 404, `${method} ${path}: ${res.body}`);
  }
  const [still] = await w.sql<{ name: string }>('select name from uptime_monitors where id = ?', [theirs]);
  t.equal(still!.name, 'gamma site', 'untouched');
});

t.test('an org with the module off: every route 404 module_off', async (t) => {
  for (const [method, path] of [['GET', '/monitors'], ['POST', '/monitors'], ['GET', `/monitors/${id}`], ['POST', `/monitors/${id}/check`], ['GET', `/monitors/${id}/days`]] as const) {
    const res = await call(method, path, method === 'POST' && path === '/monitors' ? website : undefined, 'beta');
    t.equal(res.statusCode, 404, `${method} ${path}`);
    t.equal(res.json().reason, 'module_off');
  }
  t.same(await w.sql('select 1 from uptime_monitors where organization_id = ?', [w.beta.id]), []);
});

t.test('the Overview section counts monitors by state', async (t) => {
  const res = await quad.api.inject({ method: 'GET', url: '/api/dashboard/acm/overview', headers: bearer(w.officerToken) });
  t.same(res.json().modules.uptime, { monitors: 4, up: 0, down: 0, pending: 4, paused: 0 });
});

t.test('tools: scopes, list, status, save (create, change, limit), delete with confirm', async (t) => {
  const read = (await quad.issueToken(w.org.id, { scopes: ['uptime:read'] })).token;
  const manage = (await quad.issueToken(w.org.id, { scopes: ['uptime:read', 'uptime:manage'] })).token;
  const tool = (name: string, args: unknown, as = manage) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(as), payload: { name, arguments: args } });
  t.equal((await tool('uptime.save', { name: 'x', url: site.url() }, read)).json().reason, 'unknown_tool', 'uptime:read cannot save');
  t.equal((await tool('uptime.monitors', {}, read)).json().result.monitors.length, 4);
  const status = (await tool('uptime.status', { id, days: 3 }, read)).json().result;
  t.equal(status.monitor.id, id);
  t.equal(status.days.length, 3);
  t.equal(status.checks.length, 2, 'its two checks, newest first');
  t.equal((await tool('uptime.status', { id: 999999 }, read)).json().reason, 'monitor_not_found');

  t.equal((await tool('uptime.save', { name: 'fifth', url: site.url() })).json().reason, 'limit_reached');
  t.equal((await tool('uptime.save', { url: site.url() })).json().reason, 'validation', 'a new monitor needs a name');
  t.match((await tool('uptime.save', { id, down_after: 3 })).json().result, { created: false, monitor: { id, down_after: 3 } });
  const preview = await tool('uptime.delete', { id });
  t.match(preview.json(), { confirm_required: true });
  t.equal((await call('GET', `/monitors/${id}`)).statusCode, 200, 'not deleted without confirm');
  t.same((await tool('uptime.delete', { id, confirm: true })).json().result, { deleted: id });
  t.equal((await call('GET', `/monitors/${id}`)).statusCode, 404);
  t.same(await w.sql('select 1 from uptime_checks where monitor_id = ?', [id]), [], 'its checks went with it');
  const made = (await tool('uptime.save', { name: 'Docs', url: site.url('/docs'), interval_seconds: 60 })).json().result;
  t.match(made, { created: true, monitor: { name: 'Docs', interval_seconds: 60, state: 'pending' } });
});

t.test('DELETE: 200 then 404', async (t) => {
  const [first] = (await call('GET', '/monitors')).json().monitors;
  t.same((await call('DELETE', `/monitors/${first.id}`)).json(), { deleted: first.id });
  t.equal((await call('DELETE', `/monitors/${first.id}`)).statusCode, 404);
});
