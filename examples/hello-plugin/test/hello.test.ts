// The example plugin, loaded the way an operator loads one: through the PLUGINS setting.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

t.test('hello plugin loaded through config', async (t) => {
  const quad = await startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: 'Ahoy' } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { hello: true } });
  void org;

  t.test('its manifest is registered', async (t) => {
    const mod = quad.registry.get('hello');
    t.ok(mod, 'module loaded from PLUGINS');
    t.ok(quad.registry.scopes.has('hello:read'));
    t.ok(quad.registry.scopes.has('hello:write'));
    t.equal(quad.registry.limits.get('hello.greetings_per_day')?.window, 'day');
    t.equal(quad.registry.tools.get('hello.greet')?.scope, 'hello:read');
    t.equal(quad.registry.jobs.get('hello.tally')?.once, 'org');
    t.same(quad.services.moduleSettings('hello'), { HELLO_GREETING: 'Ahoy' }, 'its own settings are resolved');
  });

  t.test('its migration ran and its routes are mounted and documented', async (t) => {
    const tables = await quad.orm.em.fork().getConnection().execute("select count(*)::int as n from information_schema.tables where table_name in ('hello_greetings', 'hello_tallies')");
    t.equal(tables[0].n, 2);
    t.same((await quad.api.inject('/api/hello/acm/greetings')).json(), { greetings: [] });
    const doc = (await quad.api.inject('/openapi.json')).json();
    t.ok(doc.paths['/api/hello/{org}/greetings'].get);
    t.ok(doc.paths['/api/hello/{org}/tally'].post);
  });

  t.test('its job counts the org\'s greetings', async (t) => {
    await quad.orm.em.fork().getConnection().execute(`insert into hello_greetings (organization_id, name) values (${org.id}, 'Ada'), (${org.id}, 'Grace')`);
    const run = await quad.services.startJob(quad.orm.em.fork(), 'hello.tally', {}, { orgId: org.id });
    t.equal((await quad.waitForRun(run.runId)).status, 'succeeded');
    const tally = (await quad.api.inject('/api/hello/acm/tally')).json();
    t.equal(tally.greetings, 2);
    const greetings = (await quad.api.inject('/api/hello/acm/greetings')).json().greetings;
    t.same(greetings.map((g: { message: string }) => g.message).sort(), ['Ahoy, Ada!', 'Ahoy, Grace!']);
  });

  t.test('writes need a machine token with hello:write', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', payload: { name: 'Eve' } });
    t.equal(res.statusCode, 401);
    const { issueToken } = await import('../../../core/src/auth/token-admin.js');
    const writer = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'w', kind: 'app', scopes: ['hello:write', 'hello:read'] }, { kind: 'officer', actor: 'test' });
    const reader = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'r', kind: 'app', scopes: ['hello:read'] }, { kind: 'officer', actor: 'test' });
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    const made = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', headers: auth(writer.token), payload: { name: 'Eve' } });
    t.equal(made.statusCode, 201);
    t.equal(made.json().message, 'Ahoy, Eve!');
    t.equal((await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', headers: auth(reader.token), payload: { name: 'Mal' } })).statusCode, 403, 'hello:read cannot write');
    const [audit] = await quad.orm.em.fork().getConnection().execute("select actor from audit_log where action = 'hello.greet'");
    t.equal(audit.actor, `machine:${writer.record.id}`);

    t.test('its tool, through /api/tools', async (t) => {
      const listed = await quad.api.inject({ url: '/api/tools', headers: auth(reader.token) });
      t.same(listed.json().tools.map((x: { name: string }) => x.name), ['hello.greet']);
      const called = await quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: auth(reader.token), payload: { name: 'hello.greet', arguments: { name: 'Lin' } } });
      t.same(called.json(), { ok: true, result: { message: 'Ahoy, Lin!' } });
    });
  });
});

t.test('a bad plugin setting is named at boot', async (t) => {
  await t.rejects(startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: '' } }), {
    name: 'ConfigError', message: /HELLO_GREETING: Expected string length greater or equal to 1/,
  });
});
