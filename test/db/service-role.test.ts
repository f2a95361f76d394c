// DATABASE_SERVICE_ROLE: the migrations make the role from DATABASE_URL's (the owner's), and the service's
// EntityManagers connect as it, so row-level security holds for module code: its org's rows through the binding,
// nothing without one. The role's password is derived from the owner's, the same in every process.
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import { servicePassword, serviceUrl } from '../../core/src/db/service-role.js';
import sample from '../fixtures/sample-module.js';

const ROLE = 'quad_service';

t.test('the role\'s URL and password come from the owner\'s', async (t) => {
  const owner = 'postgres://owner:s3cret@db.example:5432/quad?sslmode=require';
  const url = new URL(serviceUrl(owner, ROLE));
  t.equal(url.username, ROLE);
  t.same([url.hostname, url.port, url.pathname, url.searchParams.get('sslmode')], ['db.example', '5432', '/quad', 'require'], 'the same server and database');
  t.equal(decodeURIComponent(url.password), servicePassword(owner, ROLE));
  t.not(servicePassword(owner, ROLE), 's3cret', 'not the owner\'s password');
  t.equal(servicePassword(owner, ROLE), servicePassword(owner, ROLE), 'every process derives the same');
  t.not(servicePassword(owner, ROLE), servicePassword(owner, 'other_role'), 'one per role');
  t.not(servicePassword(owner, ROLE), servicePassword(owner.replace('s3cret', 'rotated'), ROLE), 'a new owner password makes a new one');
  t.equal(servicePassword('postgres://owner@db/quad', ROLE), '', 'no password where the owner has none (trust or peer)');
});

t.test('the service connects as the role: no superuser, no BYPASSRLS, org rows only through the binding', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample], config: { DATABASE_SERVICE_ROLE: ROLE } });
  const [me] = await quad.serviceOrm.em.fork().execute<{ role: string; bypasses: boolean }[]>(
    'select current_user as role, rolsuper or rolbypassrls as bypasses from pg_roles where rolname = current_user');
  t.same(me, { role: ROLE, bypasses: false });
  const org = await quad.createOrg({ prefix: 'aa', modules: { sample: true } });
  t.equal((await quad.api.inject({ method: 'POST', url: '/api/sample/aa/items', payload: { label: 'one' } })).statusCode, 201, 'a route writes its org\'s row');
  t.same((await quad.api.inject('/api/sample/aa/items')).json(), { items: ['one'] }, 'and reads it');
  const unbound = await quad.serviceOrm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from sample_items');
  t.equal(unbound[0]!.n, 0, 'unbound, the service sees no org row');
  const bound = await quad.emFor(org.id).execute<{ n: number }[]>('select count(*)::int as n from sample_items');
  t.equal(bound[0]!.n, 1, 'bound to the org, it does');
});

t.test('a service that would pass row-level security: refused in production, warned about elsewhere', async (t) => {
  const production = { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(48) };
  await t.rejects(startTestApp(t, { role: 'api', config: { ...production, DATABASE_SERVICE_ROLE: '' } }),
    /DATABASE_URL: its role "postgres" is a superuser or has BYPASSRLS and DATABASE_SERVICE_ROLE is empty, .*set DATABASE_SERVICE_ROLE/);
  const logs = captureLogs();
  await startTestApp(t, { logger: logs.logger, role: 'api', config: { DATABASE_SERVICE_ROLE: '' } });
  t.ok(logs.messages().some((m) => /^DATABASE_URL: its role "postgres" is a superuser or has BYPASSRLS/.test(m)), 'in development and tests, a warning');
  const quiet = captureLogs();
  await startTestApp(t, { logger: quiet.logger, role: 'api', config: { ...production, DATABASE_SERVICE_ROLE: ROLE } });
  t.notOk(quiet.messages().some((m) => m.startsWith('DATABASE_URL: its role')), 'not with a service role');
});
