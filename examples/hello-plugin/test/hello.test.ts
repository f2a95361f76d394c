// The example plugin, loaded the way an operator loads one: through the PLUGINS setting.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

t.test('hello plugin loaded through config', async (t) => {
  const quad = await startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: 'Ahoy' } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { hello: true } });

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

  t.test('its tool runs with the org\'s settings', async (t) => {
    const tool = quad.registry.tools.get('hello.greet')!;
    const out = await tool.handler({ em: quad.orm.em.fork(), org, log: quad.log, services: quad.services }, { name: 'Lin' });
    t.same(out, { message: 'Ahoy, Lin!' });
  });

  t.test('writes need a credential', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', payload: { name: 'Eve' } });
    t.equal(res.statusCode, 401);
  });
});

t.test('a bad plugin setting is named at boot', async (t) => {
  await t.rejects(startTestApp(t, { config: { PLUGINS: ['./examples/hello-plugin'], HELLO_GREETING: '' } }), {
    name: 'ConfigError', message: /HELLO_GREETING: Expected string length greater or equal to 1/,
  });
});
