// The example plugin, loaded the way an operator loads one: through the PLUGINS setting.
import t from 'tap';
import { defineModule, defineService, OrgParams, Type } from '@quad/core';
import { startTestApp } from '@quad/core/testing';

// A second module, as another package would write it: it uses the service hello.greeter through its own ref
// (the interface it expects), without importing the hello plugin.
interface Greetings { greet(name: string): string }
const greeter = defineService<Greetings>({ id: 'hello.greeter', methods: ['greet'] });
const welcome = defineModule({
  name: 'welcome', title: 'Welcome', description: 'Welcomes new members with the hello greeter', category: 'Tests',
  consumes: [greeter],
  routes: async (app) => {
    app.get('/api/welcome/:org', { config: { auth: 'public' }, schema: { params: OrgParams } }, async () => ({ message: app.quad.service(greeter).greet('new member') }));
  },
  jobs: [{
    name: 'welcome.check', payload: Type.Object({}),
    async handler({ services }) {
      if (services.service(greeter).greet('job') !== 'Ahoy, job!') throw new Error('the greeter in a job context is not the hello greeter');
    },
  }],
});

t.test('hello plugin loaded through config', async (t) => {
  const quad = await startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: 'Ahoy' }, plugins: [welcome] });
  const org = await quad.createOrg({ prefix: 'acm', modules: { hello: true, welcome: true } });

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

  t.test('its routes folder is mounted whole (autoload), behind the core hooks', async (t) => {
    t.same(quad.routes('/api/hello/'), [
      'GET /api/hello/:org/greetings', 'GET /api/hello/:org/tally', 'POST /api/hello/:org/greetings', 'POST /api/hello/:org/tally',
    ], 'every file of routes/ registered its routes');
    await quad.updateOrg(org.id, { modules: { hello: false, welcome: true } });
    t.match((await quad.api.inject('/api/hello/acm/greetings')).json(), { reason: 'module_off' }, 'the module gate applies to autoloaded routes');
    await quad.updateOrg(org.id, { modules: { hello: true, welcome: true } });
  });

  t.test('its service hello.greeter serves a module that consumes it', async (t) => {
    t.equal(quad.registry.services.get('hello.greeter')?.module, 'hello');
    t.same((await quad.api.inject('/api/welcome/acm')).json(), { message: 'Ahoy, new member!' }, 'in a route, with the hello settings');
    const run = await quad.services.startJob(quad.orm.em.fork(), 'welcome.check', {}, { orgId: org.id });
    t.equal((await quad.waitForRun(run.runId)).status, 'succeeded', 'in a job');
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
    const writer = await quad.issueToken(org.id, { name: 'w', scopes: ['hello:write', 'hello:read'] });
    const reader = await quad.issueToken(org.id, { name: 'r', scopes: ['hello:read'] });
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

t.test('a module that consumes hello.greeter without the hello plugin refuses boot', async (t) => {
  await t.rejects(startTestApp(t, { plugins: [welcome] }), {
    name: 'ManifestError',
    message: 'Plugin "welcome": consumes[0]: needs service "hello.greeter", which no loaded module provides (add the plugin that provides it to PLUGINS)',
  });
});

t.test('a bad plugin setting is named at boot', async (t) => {
  await t.rejects(startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: '' } }), {
    name: 'ConfigError', message: /HELLO_GREETING: Expected string length greater or equal to 1/,
  });
});
