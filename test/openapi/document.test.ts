// The OpenAPI document, walked whole with every shipped plugin loaded: what a client generator needs of it.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

type Operation = { operationId?: string; tags?: string[]; security?: Record<string, string[]>[]; 'x-quad-auth'?: { policy: string; scope?: string }; responses: Record<string, { content?: Record<string, { schema: Record<string, any> }> }> };

const ERROR_REF = '#/components/schemas/Error';
/** Error bodies that are not `{ error }`: the health report answers 503 when degraded. */
const NOT_ERROR_BODIES = new Set(['GET /health 503']);

t.test('the OpenAPI document', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./plugins/points', './plugins/store', './plugins/event_webhook', './plugins/knowledge', './examples/hello-plugin'] });
  const doc = (await quad.api.inject('/openapi.json')).json() as { paths: Record<string, Record<string, Operation>>; tags: { name: string; description?: string }[]; components: Record<string, any> };
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
  t.ok(operations.length > 80, `${operations.length} operations`);

  t.test('every operation has an operationId, and no two share one', async (t) => {
    t.same(operations.filter(({ op }) => !op.operationId).map((o) => o.key), []);
    const seen = new Map<string, string>();
    const repeated = operations.filter(({ key, op }) => seen.has(op.operationId!) || !seen.set(op.operationId!, key)).map((o) => o.key);
    t.same(repeated, []);
    t.equal(doc.paths['/api/points/{org}/members'].get.operationId, 'getPointsByOrgMembers', 'derived from method and path');
  });

  t.test('every operation declares its credentials, or declares it takes none', async (t) => {
    const schemes = Object.keys(doc.components.securitySchemes).sort();
    t.same(schemes, ['idpToken', 'machineToken', 'memberSession', 'officerToken']);
    for (const { key, op } of operations) {
      const auth = op['x-quad-auth'];
      if (!t.ok(Array.isArray(op.security) && auth, `${key}: security and x-quad-auth`)) continue;
      if (op.security!.length === 0) t.equal(auth!.policy, 'public', `${key}: explicitly public`);
      const named = op.security!.flatMap((r) => Object.keys(r));
      t.same(named.filter((s) => !schemes.includes(s)), [], `${key}: only known schemes`);
      if (named.includes('machineToken') && auth!.policy !== 'machine') t.ok(auth!.scope, `${key}: a machine token's scope is named`);
    }
    const tokens = doc.paths['/api/organizations/{org}/tokens'].post;
    t.same(tokens.security, [{ officerToken: [] }, { machineToken: [] }]);
    t.same(tokens['x-quad-auth'], { policy: 'officerOrMachine:tokens:manage', scope: 'tokens:manage' });
    t.same(doc.paths['/api/tools'].get.security, [{ machineToken: [] }]);
    t.same(doc.paths['/api/superadmin/orgs'].get.security, [{ officerToken: [] }]);
    t.same(doc.paths['/health'].get.security, []);
  });

  t.test('every error response points to the one Error component', async (t) => {
    t.match(doc.components.schemas.Error, { type: 'object', required: ['error'], properties: { error: { type: 'string' }, reason: { type: 'string' } } });
    const stray: string[] = [];
    for (const { key, op } of operations) {
      t.ok(op.responses.default, `${key}: a default (error) response`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]|^default$/.test(status) || NOT_ERROR_BODIES.has(`${key} ${status}`)) continue;
        for (const { schema } of Object.values(response.content ?? {})) {
          if (schema.$ref !== ERROR_REF && schema.allOf?.[0]?.$ref !== ERROR_REF) stray.push(`${key} ${status}`);
        }
      }
    }
    t.same(stray, []);
  });

  t.test('every tag is described by its module\'s manifest', async (t) => {
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    t.same(doc.tags.map((tag) => tag.name).sort(), [...used].sort());
    t.same(doc.tags.filter((tag) => !tag.description).map((tag) => tag.name), []);
    t.equal(doc.tags.find((tag) => tag.name === 'points')?.description, 'Points: Members earn points for messages, event check-ins and officer awards; leaderboards and member lists.');
  });
});

t.test('GET / redirects to the docs; an unknown path is a 404 error body', async (t) => {
  const quad = await startTestApp(t);
  const res = await quad.api.inject('/');
  t.equal(res.statusCode, 302);
  t.equal(res.headers.location, '/docs');
  const missing = await quad.api.inject('/nowhere?x=1');
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { error: 'Route GET /nowhere not found', reason: 'route_not_found' }, 'the 404 of the API port');
});
