// The superadmin's routes: adding and removing orgs, officer roles, server roles, publishers, health, the audit
// and error logs; refusals (403 for everyone else in both modes, 503 while the bot is down).
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import { catalog } from '../fixtures/catalog-modules.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

const ADMIN = '999000333';

for (const enforce of [false, true]) {
  t.test(`superadmin refusals, ACCESS_ENFORCE=${enforce}`, async (t) => {
    const logs = captureLogs();
    const world = await startSignInWorld(t, { logger: logs.logger, config: { SYS_ADMIN: [ADMIN], ACCESS_ENFORCE: enforce } });
    const officer = (await signInOfficer(world, world.officer.id)).access_token;
    for (const [method, url] of [['GET', '/api/superadmin/orgs'], ['POST', '/api/superadmin/orgs'], ['DELETE', '/api/superadmin/orgs/acm'], ['GET', '/api/superadmin/health'], ['GET', '/api/superadmin/audit'], ['PUT', '/api/superadmin/publishers/acm']] as const) {
      const res = await world.quad.api.inject({ method, url, headers: bearer(officer), payload: method === 'GET' || method === 'DELETE' ? undefined : {} });
      t.equal(res.statusCode, 403, `${method} ${url}`);
      t.equal(res.json().reason, 'not_superadmin');
      t.equal((await world.quad.api.inject({ method, url })).statusCode, 401, `${method} ${url} without a token`);
    }
    t.ok(logs.messages().some((m) => m.startsWith('access decision=deny reason=not_superadmin route=/api/superadmin/orgs')));
    const [orgs] = await world.quad.orm.em.fork().getConnection().execute('select count(*)::int as n from organizations');
    t.equal(orgs.n, 1, 'nothing removed');
  });
}

t.test('the superadmin manages orgs', async (t) => {
  const logs = captureLogs();
  const world = await startSignInWorld(t, { logger: logs.logger, plugins: catalog, config: { SYS_ADMIN: [ADMIN] } });
  const { quad, discord } = world;
  discord.addUser({ id: ADMIN, username: 'root' });
  const admin = (await signInOfficer(world, ADMIN)).access_token;
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => quad.api.inject({ method, url, headers: bearer(admin), payload });
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);
  const guild = discord.addGuild({ name: 'IEEE Server' });
  const role = discord.addRole(guild.id, { name: 'Board' });

  t.test('add an org for a server the bot is in', async (t) => {
    const res = await call('POST', '/api/superadmin/orgs', { prefix: 'IEEE', name: 'IEEE', guild_id: guild.id, officer_role_id: role.id, description: 'Electrical' });
    t.equal(res.statusCode, 201);
    t.match(res.json(), { prefix: 'ieee', name: 'IEEE', guild_id: guild.id, officer_role_id: role.id, publisher: false, modules: { wallet: true } });
    const [audit] = await sql("select * from audit_log where action = 'org.create'");
    t.equal(audit.actor, `officer:${ADMIN}`);
    const guilds = (await call('GET', '/api/superadmin/guilds')).json().guilds;
    t.same(guilds.map((g: { name: string; org: string | null }) => [g.name, g.org]), [['ACM Server', 'acm'], ['IEEE Server', 'ieee']]);
  });

  t.test('adding refuses bad input and taken servers or prefixes', async (t) => {
    const stranger = '123456789012345678';
    const cases: [object, number, string][] = [
      [{ prefix: 'x y', name: 'X', guild_id: guild.id }, 400, 'invalid_prefix'],
      [{ prefix: '9lives', name: 'X', guild_id: guild.id }, 400, 'invalid_prefix'],
      [{ prefix: 'new', name: 'X', guild_id: stranger }, 400, 'bot_not_in_server'],
      [{ prefix: 'new', name: 'X', guild_id: 'abc' }, 400, 'validation'],
      [{ prefix: 'new', name: 'X', guild_id: guild.id }, 409, 'server_has_org'],
    ];
    const other = discord.addGuild({ name: 'Other' });
    cases.push([{ prefix: 'ieee', name: 'X', guild_id: other.id }, 409, 'prefix_taken']);
    cases.push([{ prefix: 'other', name: 'X', guild_id: other.id, officer_role_id: role.id }, 400, 'unknown_role']);
    for (const [payload, status, reason] of cases) {
      const res = await call('POST', '/api/superadmin/orgs', payload);
      t.equal(res.statusCode, status, JSON.stringify(payload));
      t.equal(res.json().reason, reason, JSON.stringify(payload));
    }
    const [count] = await sql('select count(*)::int as n from organizations');
    t.equal(count.n, 2);
  });

  t.test('server roles and the officer role', async (t) => {
    const roles = (await call('GET', '/api/superadmin/orgs/ieee/roles')).json().roles;
    t.same(roles.map((r: { name: string; officer: boolean }) => [r.name, r.officer]), [['Board', true]], '@everyone is left out');
    const other = discord.addRole(guild.id, { name: 'Chairs' });
    const set = await call('PUT', '/api/superadmin/orgs/ieee/officer-role', { role_id: other.id });
    t.equal(set.json().officer_role_id, other.id);
    const bad = await call('PUT', '/api/superadmin/orgs/ieee/officer-role', { role_id: '42' });
    t.equal(bad.statusCode, 400);
    t.equal(bad.json().reason, 'unknown_role');
    t.equal((await call('PUT', '/api/superadmin/orgs/ieee/officer-role', { role_id: null })).json().officer_role_id, null);
  });

  t.test('publishers', async (t) => {
    t.equal((await call('PUT', '/api/superadmin/publishers/ieee', { publisher: true })).json().publisher, true);
    t.equal((await call('PUT', '/api/superadmin/publishers/ieee', { publisher: 'yes' })).statusCode, 400);
    t.equal((await call('PUT', '/api/superadmin/publishers/nobody', { publisher: true })).statusCode, 404);
  });

  t.test('health', async (t) => {
    const res = await call('GET', '/api/superadmin/health');
    t.equal(res.statusCode, 200);
    const h = res.json();
    t.ok(h.load.cpus >= 1);
    t.ok(h.memory.total > 0 && h.memory.process_rss > 0);
    t.ok(h.database.size_bytes > 0);
    t.ok(h.disk.total > 0);
    t.match(h.jobs, { waiting: Number, running: Number, failed: Number });
    t.match(h.bot, { configured: true, available: true, servers: Number });
    t.ok(h.bot.servers >= 2);
    const again = (await call('GET', '/api/superadmin/health')).json();
    t.equal(again.sampled_at, h.sampled_at, 'sampled at most every 30 s');
  });

  t.test('audit and error logs of every org, paged', async (t) => {
    await sql(`insert into error_log (organization_id, source, origin, message, log_line, host, release) values (${world.org.id}, 'request', 'GET /x', 'boom', 'line', 'h', 'r'), (null, 'job', 'j', 'bang', 'line', 'h', 'r')`);
    const errors = (await call('GET', '/api/superadmin/errors?per_page=1')).json();
    t.equal(errors.total, 2);
    t.equal(errors.items.length, 1);
    t.equal(errors.items[0].message, 'bang', 'newest first');
    t.equal((await call('GET', '/api/superadmin/errors?per_page=1&page=2')).json().items[0].message, 'boom');
    t.equal((await call('GET', '/api/superadmin/errors?org=acm')).json().total, 1);
    const audit = (await call('GET', '/api/superadmin/audit?per_page=200')).json();
    t.ok(audit.items.some((a: { action: string }) => a.action === 'org.create'));
    t.equal((await call('GET', '/api/superadmin/audit?per_page=500')).statusCode, 400);
    t.equal((await call('GET', '/api/superadmin/audit?page=0')).statusCode, 400);
  });

  t.test('removing an org removes its data in one transaction', async (t) => {
    const [ieee] = await sql("select id from organizations where prefix = 'ieee'");
    await sql(`insert into sample_items (organization_id, label) values (${ieee.id}, 'gone soon')`);
    await sql(`insert into machine_tokens (organization_id, name, kind, scopes, token_hash, token_prefix, created_by) values (${ieee.id}, 't', 'app', '{}', 'h', 'plat_', 'x')`);
    const res = await call('DELETE', '/api/superadmin/orgs/ieee');
    t.same(res.json(), { removed: 'ieee' });
    for (const table of ['organizations', 'sample_items', 'machine_tokens', 'job_runs', 'notifications']) {
      const [row] = await sql(`select count(*)::int as n from ${table} where ${table === 'organizations' ? 'id' : 'organization_id'} = ${ieee.id}`);
      t.equal(row.n, 0, `${table} emptied`);
    }
    const [audit] = await sql("select * from audit_log where action = 'org.remove'");
    t.same(audit.details, { org_id: ieee.id, prefix: 'ieee' });
    t.equal((await call('DELETE', '/api/superadmin/orgs/ieee')).statusCode, 404);
  });

  t.test('Discord rate-limiting the bot twice in a row is the same 503, with Discord\'s wait', async (t) => {
    const url = '/api/superadmin/orgs/acm/roles';
    t.equal((await call('GET', url)).statusCode, 200);
    discord.rateLimitNext(0.05);
    t.equal((await call('GET', url)).statusCode, 200, 'one 429 is waited out and retried');
    discord.rateLimitNext(1.5, 2);
    const res = await call('GET', url);
    t.equal(res.statusCode, 503);
    t.same(res.json(), { error: 'Discord is unavailable; try again shortly', reason: 'bot_unavailable', retry_after: 2 });
    t.equal(res.headers['retry-after'], '2');
    t.match(logs.text(), /Discord rate-limited GET \/guilds\/\d+\/roles \(retry after 1\.5s\)/, 'the detail goes to the log');
  });

  t.test('503 while the bot is unavailable', async (t) => {
    discord.down(true);
    // The bot status is probed again at most every 30 s while it was up: force a fresh probe.
    (quad.auth.bot as unknown as { last: null }).last = null;
    const res = await call('GET', '/api/superadmin/orgs');
    discord.down(false);
    t.equal(res.statusCode, 503);
    t.same(res.json(), { error: 'Discord is unavailable; try again shortly', reason: 'bot_unavailable' }, 'a fixed message: Discord\'s answer is not passed on');
    t.match(logs.text(), /Discord answered 502/, 'the detail goes to the log');
  });
});
