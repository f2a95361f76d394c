// The store's routes are a folder of route files (catalog, orders, members, storefront) mounted by the core with
// @fastify/autoload: the whole route list is asserted, so a file that was silently skipped fails here. The OpenAPI
// document says how each route is called (officers: bearer; members: the session cookie).
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

t.test('every route file of the store is mounted and documented', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./plugins/points', './plugins/store'], config: { POINTS_GATEWAY: false } });
  t.same(quad.routes('/api/storefront/'), [
    'DELETE /api/storefront/:org/orders/:id',
    'DELETE /api/storefront/:org/products/:id',
    'GET /api/storefront/:org/members/orders',
    'GET /api/storefront/:org/members/points',
    'GET /api/storefront/:org/members/store',
    'GET /api/storefront/:org/orders',
    'GET /api/storefront/:org/orders/:email',
    'GET /api/storefront/:org/orders/:id(^\\d+$)',
    'GET /api/storefront/:org/products',
    'GET /api/storefront/:org/products/:id',
    'GET /api/storefront/:org/store',
    'GET /api/storefront/:org/wallet/:email',
    'POST /api/storefront/:org/checkout',
    'POST /api/storefront/:org/members/orders',
    'POST /api/storefront/:org/products',
    'PUT /api/storefront/:org/orders/:id',
    'PUT /api/storefront/:org/products/:id',
  ]);
  t.ok(quad.api.registeredRoutes.filter((r) => r.url.startsWith('/api/storefront/')).every((r) => r.config?.module === 'store'), 'each is the store\'s, behind its gate');

  const doc = (await quad.api.inject('/openapi.json')).json();
  const security = (path: string, method: string) => doc.paths[path]?.[method]?.security;
  for (const [path, method] of [
    ['/api/storefront/{org}/members/orders', 'get'], ['/api/storefront/{org}/members/orders', 'post'],
    ['/api/storefront/{org}/members/store', 'get'], ['/api/storefront/{org}/members/points', 'get'],
  ]) {
    t.same(security(path, method), [{ memberSession: [] }], `${method.toUpperCase()} ${path}: the member's session cookie`);
  }
  t.same(security('/api/storefront/{org}/orders', 'get'), [{ officerToken: [] }], 'officer routes: an officer\'s token');
  t.same(security('/api/storefront/{org}/products', 'get'), [], 'the public catalog: none, explicitly');
  t.match(doc.components.securitySchemes.memberSession, { type: 'apiKey', in: 'cookie', name: 'quad_session' });
});
