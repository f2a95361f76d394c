// Module routes are mounted behind the core hooks and gated on the org's module switch.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import sample from './fixtures/sample-module.js';

t.test('module routes are mounted and gated per org', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample] });
  const on = await quad.createOrg({ prefix: 'acm', modules: { sample: true } });
  await quad.createOrg({ prefix: 'ieee', modules: { sample: false } });

  // Assert the whole route list, so a silently skipped route plugin fails loudly.
  const routes = quad.routes();
  for (const route of ['GET /health', 'GET /api/sample/:org/items', 'POST /api/sample/:org/items', 'POST /api/sample/:org/work', 'GET /api/sample/boom', 'GET /openapi.json', 'GET /docs/']) {
    t.ok(routes.includes(route), route);
  }

  const created = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/items', payload: { label: 'kept' } });
  t.equal(created.statusCode, 201);

  const off = await quad.api.inject('/api/sample/ieee/items');
  t.equal(off.statusCode, 404, 'a module that is off answers 404');
  t.same(off.json(), { error: 'The sample module is off for this org', reason: 'module_off' });
  const offWrite = await quad.api.inject({ method: 'POST', url: '/api/sample/ieee/items', payload: { label: 'nope' } });
  t.equal(offWrite.statusCode, 404);

  const byId = await quad.api.inject(`/api/sample/${on.id}/items`);
  t.same(byId.json(), { items: ['kept'] }, 'the org in the URL may be its id');
  const upper = await quad.api.inject('/api/sample/ACM/items');
  t.same(upper.json(), { items: ['kept'] }, 'prefixes are case-insensitive');

  // Switching off keeps the data; switching back on shows it again.
  await quad.updateOrg(on.id, { modules: { sample: false } });
  t.equal((await quad.api.inject('/api/sample/acm/items')).statusCode, 404);
  await quad.updateOrg(on.id, { modules: { sample: true } });
  t.same((await quad.api.inject('/api/sample/acm/items')).json(), { items: ['kept'] });
});

t.test('routes that declare a policy without credentials support refuse with 401', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./examples/hello-plugin'] });
  await quad.createOrg({ prefix: 'acm', modules: { hello: true } });
  const res = await quad.api.inject({ method: 'POST', url: '/api/hello/acm/greetings', payload: { name: 'Ada' } });
  t.equal(res.statusCode, 401);
  t.same(res.json(), { error: 'Authentication required' });
});

t.test('module routes are encapsulated: a hook one module adds never runs for another module\'s routes', async (t) => {
  const { defineModule, OrgParams } = await import('@quad/core');
  const noisy = defineModule({
    name: 'noisy', title: 'Noisy', description: 'Adds a hook', category: 'Tests',
    routes: async (app) => {
      app.addHook('onSend', async (_request, reply) => { reply.header('x-noisy', 'yes'); });
      app.get('/api/noisy/:org', { config: { auth: 'public' }, schema: { params: OrgParams } }, async (request) => ({ audit: typeof request.audit }));
    },
  });
  const quad = await startTestApp(t, { plugins: [noisy, sample] });
  await quad.createOrg({ prefix: 'acm', modules: { noisy: true, sample: true } });
  const own = await quad.api.inject('/api/noisy/acm');
  t.equal(own.headers['x-noisy'], 'yes');
  t.same(own.json(), { audit: 'function' }, 'the core\'s decorations (a fastify-plugin) reach every module');
  t.equal((await quad.api.inject('/api/sample/acm/items')).headers['x-noisy'], undefined, 'another module\'s route');
  t.equal((await quad.api.inject('/health')).headers['x-noisy'], undefined, 'a core route');
});
