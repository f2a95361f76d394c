// Issue 38, item 7: integers are bounded everywhere. Every integer of a route's input schema and of a tool's input
// that declares no maximum (minimum) gets PostgreSQL's int4 bound when it is registered, shown in the OpenAPI document
// and the MCP tool listings; a declared maximum above Number.MAX_SAFE_INTEGER refuses boot, naming the module and the
// field; the declared schemas are copied, never changed. The reproduction: tokens.revoke with id 99999999999 answered
// 500 and wrote an error-log row, over /api/tools/call and MCP alike; now it is a 400 and nothing is logged.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { defineModule, Type, type RoutesPlugin } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { INT4_MIN, withIntegerBounds } from '../../core/src/http/integer-bounds.js';
import { Registry } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';

const INT4_MAX = 2 ** 31 - 1;
const SAFE = Number.MAX_SAFE_INTEGER;

t.test('withIntegerBounds: int4 where nothing is declared, declared bounds kept, the schema itself untouched', async (t) => {
  const declared = Type.Object({
    bare: Type.Integer(),
    floor: Type.Integer({ minimum: 1 }),
    big: Type.Integer({ minimum: 1, maximum: SAFE }),
    exclusive: Type.Integer({ exclusiveMaximum: 10 }),
    nullable: Type.Union([Type.Integer(), Type.Null()]),
    list: Type.Array(Type.Integer()),
    record: Type.Record(Type.String(), Type.Integer()),
    nested: Type.Optional(Type.Object({ n: Type.Integer() })),
    text: Type.String(),
    number: Type.Number(),
    none: Type.Not(Type.Integer()),
  });
  const before = JSON.stringify(declared);
  const bounded = withIntegerBounds(declared, 'body') as any;
  t.equal(JSON.stringify(declared), before, 'the declared schema is not changed');
  t.not(bounded, declared);
  t.match(bounded.properties, {
    bare: { minimum: INT4_MIN, maximum: INT4_MAX },
    floor: { minimum: 1, maximum: INT4_MAX },
    big: { minimum: 1, maximum: SAFE },
    exclusive: { exclusiveMaximum: 10, minimum: INT4_MIN },
    nullable: { anyOf: [{ type: 'integer', minimum: INT4_MIN, maximum: INT4_MAX }, { type: 'null' }] },
    list: { items: { minimum: INT4_MIN, maximum: INT4_MAX } },
    record: { patternProperties: { '^(.*)$': { maximum: INT4_MAX } } },
    nested: { properties: { n: { maximum: INT4_MAX } } },
  });
  t.equal(bounded.properties.exclusive.maximum, undefined, 'an exclusive bound is a bound');
  t.equal(bounded.properties.text, declared.properties.text, 'what needs no bound is shared, not copied');
  t.equal(bounded.properties.number.maximum, undefined, 'numbers are not integers');
  t.equal(bounded.properties.none.not.maximum, undefined, 'a bound inside not would widen the schema');
  t.equal(withIntegerBounds(declared, 'body'), bounded, 'one copy per schema object');
  t.equal(withIntegerBounds(bounded, 'body'), bounded, 'bounding twice changes nothing');
  const check = TypeCompiler.Compile(bounded);
  const valid = { bare: 1, floor: 1, big: 2 ** 40, exclusive: 9, nullable: null, list: [1], record: { a: 1 }, text: '', number: 1e300, none: 'x' };
  t.ok(check.Check(valid), 'TypeBox still compiles the copy (its symbols are kept)');
  t.notOk(check.Check({ ...valid, bare: 2 ** 31 }));
  t.notOk(check.Check({ ...valid, list: [-(2 ** 31) - 1] }));
  t.notOk(check.Check({ ...valid, big: 2 ** 53 }));

  t.throws(() => withIntegerBounds(Type.Object({ amount: Type.Integer({ maximum: 2 ** 63 }) }), 'body'), { name: 'IntegerBoundError', field: 'body.amount', message: /maximum 9223372036854776000 is above Number\.MAX_SAFE_INTEGER/ });
  t.throws(() => withIntegerBounds(Type.Object({ a: Type.Array(Type.Integer({ minimum: -(2 ** 60) })) }), 'input'), { field: 'input.a[]', message: /minimum .* is below -Number\.MAX_SAFE_INTEGER/ });
  t.throws(() => withIntegerBounds(Type.Integer({ minimum: 2 ** 32 }), 'querystring'), { message: /declare the maximum its \(bigint\) column takes/ });
  t.throws(() => withIntegerBounds({ type: 'integer', maximum: 'ten' }, 'body'), { message: /maximum must be a number/ });
});

t.test('boot refuses a maximum above 2^53 - 1, naming the module and the field', async (t) => {
  const big = Type.Object({ amount: Type.Integer({ minimum: 0, maximum: 1e20 }) });
  const tool = defineModule({
    name: 'demo', title: 'Demo', description: 'x', category: 'Tests', scopes: [{ name: 'demo:write', description: 'x' }],
    tools: [{ name: 'demo.pay', description: 'x', scope: 'demo:write', input: big, handler: async () => ({}) }],
  });
  t.throws(() => new Registry([...CORE_MODULES, tool]), { message: 'Plugin "demo": tools[0].input.amount: maximum 100000000000000000000 is above Number.MAX_SAFE_INTEGER (9007199254740991): a larger integer is not exact in JavaScript; declare at most 9007199254740991' });
  const routes: RoutesPlugin = async (app) => {
    app.post('/api/demo/:org/pay', { config: { auth: 'public' }, schema: { body: big } }, async () => ({}));
  };
  const route = defineModule({ name: 'demo', title: 'Demo', description: 'x', category: 'Tests', routes });
  await t.rejects(startTestApp(t, { plugins: [route] }), { message: /^Plugin "demo": routes: POST \/api\/demo\/:org\/pay: body\.amount: maximum 100000000000000000000 is above Number\.MAX_SAFE_INTEGER/ });
});

// One TypeBox schema shared by a route's body, another route's response and a tool's input.
const Shared = Type.Object({ n: Type.Integer({ minimum: 0 }) });
const sharing: RoutesPlugin = async (app) => {
  app.post('/api/share/:org/in', { config: { auth: 'public' }, schema: { body: Shared, response: { 200: Shared } } }, async (request) => request.body);
  app.get('/api/share/:org/out', { config: { auth: 'public' }, schema: { querystring: Type.Object({ n: Type.Integer() }), response: { 200: Shared } } }, async (request) => ({ n: request.query.n }));
};
const shareModule = defineModule({
  name: 'share', title: 'Share', description: 'Shares one schema.', category: 'Tests', defaultEnabled: true, routes: sharing,
  scopes: [{ name: 'share:read', description: 'x' }],
  tools: [{ name: 'share.echo', description: 'x', scope: 'share:read', input: Shared, handler: async (_ctx, input: { n: number }) => input }],
});

t.test('tokens.revoke with a huge id: 400 over /api/tools/call and MCP, no error-log row; bounds in every listing', async (t) => {
  const quad = await startTestApp(t, { listen: true, plugins: [shareModule] });
  const org = await quad.createOrg({ prefix: 'acm', modules: { share: true } });
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);
  const { token } = await quad.issueToken(org.id, { scopes: ['tokens:manage', 'share:read'] });
  const victim = await quad.issueToken(org.id, { scopes: ['org:read'] });
  const headers = { authorization: `Bearer ${token}` };
  const call = (name: string, args: object) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers, payload: { name, arguments: args } });

  for (const args of [{ id: 99999999999, confirm: true }, { id: 99999999999 }, { id: 2 ** 31, confirm: true }]) {
    const res = await call('tokens.revoke', args);
    t.equal(res.statusCode, 400, JSON.stringify(args));
    t.match(res.json(), { ok: false, status: 400, reason: 'invalid_input', error: /^Invalid input for tokens\.revoke: id: Expected integer to be less or equal to 2147483647/ });
  }
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const mcpUrl = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }));
  t.teardown(() => client.close());
  const viaMcp = await client.callTool({ name: 'tokens.revoke', arguments: { id: 99999999999, confirm: true } });
  t.match(viaMcp, { isError: true, content: [{ text: /^Invalid input for tokens\.revoke: id: Expected integer to be less or equal to 2147483647/ }] });
  t.same(await sql('select origin, message from error_log'), [], 'no error-log row');
  const [audit] = await sql("select count(*)::int as n from audit_log where action = 'tools.call' and details->>'result' = 'invalid_input'");
  t.equal(audit.n, 4, 'each refusal is audited as invalid input');
  t.same((await call('tokens.revoke', { id: victim.record.id, confirm: true })).json().result, { revoked: true, id: victim.record.id }, 'a real id still works');

  const listed = (await client.listTools()).tools;
  t.match(listed.find((x) => x.name === 'tokens.revoke')?.inputSchema, { properties: { id: { type: 'integer', minimum: 1, maximum: INT4_MAX } } }, 'MCP lists the bound');
  t.match(listed.find((x) => x.name === 'share.echo')?.inputSchema, { properties: { n: { minimum: 0, maximum: INT4_MAX } } });
  t.equal((await client.callTool({ name: 'share.echo', arguments: { n: 2 ** 31 } })).isError, true);

  const doc = quad.api.swagger() as any;
  t.match(doc.paths['/api/organizations/{org}/tokens/{id}'].delete.parameters.find((p: { name: string }) => p.name === 'id').schema, { minimum: 1, maximum: INT4_MAX });
  t.match(doc.paths['/api/share/{org}/in'].post.requestBody.content['application/json'].schema.properties.n, { minimum: 0, maximum: INT4_MAX });
  t.equal(doc.paths['/api/share/{org}/in'].post.responses['200'].content['application/json'].schema.properties.n.maximum, undefined, 'a response schema is not an input: left as declared');
  t.match(doc.paths['/api/share/{org}/out'].get.parameters.find((p: { name: string }) => p.name === 'n').schema, { minimum: INT4_MIN, maximum: INT4_MAX });
  t.same(JSON.parse(JSON.stringify(Shared)), { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] }, 'the shared schema object is as declared');

  t.equal((await quad.api.inject({ method: 'POST', url: '/api/share/acm/in', payload: { n: 2 ** 31 } })).statusCode, 400);
  t.equal((await quad.api.inject({ method: 'POST', url: '/api/share/acm/in', payload: { n: INT4_MAX } })).json().n, INT4_MAX);
  t.equal((await quad.api.inject({ url: '/api/share/acm/out?n=-2147483649' })).statusCode, 400);
  t.equal((await quad.api.inject({ url: '/api/share/acm/out?n=-2147483648' })).json().n, INT4_MIN);
});
