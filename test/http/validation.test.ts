// Issue 11, defect 2: input PostgreSQL cannot take is refused once, by the core's validation, with a 400 that names
// the field: NUL bytes and lone surrogates in any declared string (nested ones too), malformed org references on every
// org route, and integers that are not finite or that no column can hold.
import t, { type Test } from 'tap';
import type { InjectOptions } from 'fastify';
import { defineModule, Type, type RoutesPlugin } from '@quad/core';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

const ADMIN = '999000333';

// A module whose handlers send their input straight to PostgreSQL, so anything validation lets through shows up.
const sink: RoutesPlugin = async (app) => {
  app.get('/api/sink/:org/bare', { config: { auth: 'public' } }, async (request) => ({ org: request.org!.prefix }));
  app.post('/api/sink/:org/write', {
    config: { auth: 'public' },
    schema: {
      params: Type.Object({ org: Type.String() }),
      body: Type.Object({
        text: Type.String(),
        n: Type.Optional(Type.Integer()),
        x: Type.Optional(Type.Number()),
        tags: Type.Optional(Type.Array(Type.String())),
        data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        anything: Type.Optional(Type.Unknown()),
      }),
    },
  }, async (request) => {
    const b = request.body;
    const [row] = await request.em.execute<Record<string, unknown>[]>('select ?::text as text, ?::bigint as n, ?::float8 as x, ?::jsonb as tags, ?::jsonb as data, ?::jsonb as anything', [
      b.text, b.n ?? null, b.x ?? null, JSON.stringify(b.tags ?? []), JSON.stringify(b.data ?? {}), JSON.stringify(b.anything ?? null),
    ]);
    return { ok: true, text: row.text };
  });
  app.get('/api/sink/:org/count', {
    config: { auth: 'public' },
    schema: { params: Type.Object({ org: Type.String() }), querystring: Type.Object({ n: Type.Integer({ minimum: 0 }), q: Type.Optional(Type.String()) }) },
  }, async (request) => {
    const [row] = await request.em.execute<Record<string, unknown>[]>('select ?::bigint as n, ?::text as q', [request.query.n, request.query.q ?? null]);
    return { n: Number(row.n) };
  });
};
const sinkModule = defineModule({ name: 'sink', title: 'Sink', description: 'Writes its input to SQL.', category: 'Tests', defaultEnabled: true, routes: sink });

t.test('input PostgreSQL cannot store is a 400 naming the field', async (t) => {
  const world = await startSignInWorld(t, {
    plugins: [sinkModule, './plugins/points', './plugins/store'],
    orgModules: { sink: true, points: true, store: true },
    config: { SYS_ADMIN: [ADMIN], ACCESS_ENFORCE: true },
  });
  const { quad, discord } = world;
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const admin = discord.addUser({ id: ADMIN, username: 'root' });
  const adminToken = (await signInOfficer(world, admin.id)).access_token;
  const made = await quad.api.inject({ method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(token), payload: { name: 'bot', kind: 'agent', scopes: ['org:read'] } });
  t.equal(made.statusCode, 201, made.body);
  const machine = made.json().token as string;
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);
  const rows = async () => (await sql(`select (select count(*) from machine_tokens)::int + (select count(*) from audit_log)::int
    + (select count(*) from error_log)::int + (select count(*) from notifications)::int as n`))[0].n as number;

  /** 400 `{ error: "<field>: …", field, reason: 'validation' }`, and nothing written. */
  async function refused(t: Test, request: InjectOptions, field: string | RegExp, message?: RegExp) {
    const before = await rows();
    const res = await quad.api.inject(request);
    t.equal(res.statusCode, 400, `${JSON.stringify(request.url)}: ${res.body}`);
    const body = res.json();
    t.match(body.field, field);
    t.equal(body.reason, 'validation');
    t.ok(body.error.startsWith(`${body.field}: `), body.error);
    if (message) t.match(body.error, message);
    t.equal(await rows(), before, 'no row written');
  }
  const post = (payload: unknown) => ({ method: 'POST' as const, url: '/api/sink/acm/write', payload: payload as object });
  /** A JSON body as written, for numbers JSON.stringify cannot make (1e400 parses as Infinity). */
  const raw = (json: string, url = '/api/sink/acm/write', headers: Record<string, string> = {}) =>
    ({ method: 'POST' as const, url, payload: json, headers: { ...headers, 'content-type': 'application/json' } });

  t.test('a NUL byte in any declared string', async (t) => {
    await refused(t, { method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(token), payload: { name: 'a\u0000b', kind: 'agent', scopes: ['org:read'] } }, 'body.name', /NUL/);
    await refused(t, { method: 'POST', url: '/api/organizations/acm/tokens', headers: bearer(token), payload: { name: 'ok', kind: 'agent', scopes: ['org:read', '\u0000'] } }, 'body.scopes.1');
    await refused(t, post({ text: '\u0000' }), 'body.text');
    await refused(t, post({ text: 'ok', tags: ['a', 'b\u0000'] }), 'body.tags.1');
    await refused(t, post({ text: 'ok', data: { deep: { list: [1, 'x\u0000'] } } }), 'body.data.deep.list.1');
    await refused(t, post({ text: 'ok', data: { ['k\u0000']: 1 } }), 'body.data', /property names must not contain a NUL/);
    await refused(t, post({ text: 'ok', anything: ['\u0000'] }), 'body.anything.0');
    await refused(t, { url: '/api/sink/acm/count?n=1&q=%00' }, 'querystring.q');
    await refused(t, { url: '/api/storefront/acm/products?category=%00' }, 'querystring.category');
    await refused(t, { url: `/api/dashboard/acm/secrets/${encodeURIComponent('github.\u0000')}`, method: 'DELETE', headers: bearer(token) }, 'params.name');
  });

  t.test('a lone UTF-16 surrogate in a string', async (t) => {
    await refused(t, { method: 'PUT', url: '/api/dashboard/acm/settings', headers: bearer(token), payload: { description: 'x\ud800y' } }, 'body.description', /surrogate/);
    await refused(t, post({ text: '\udc00' }), 'body.text');
    await refused(t, post({ text: 'ok', data: { a: '\ud83d' } }), 'body.data.a');
    await refused(t, { method: 'POST', url: '/api/tools/batch', headers: bearer(machine), payload: { calls: [{ name: 'org.get', arguments: { q: ['\udfff'] } }] } }, 'body.calls.0.arguments.q.0');
    const pair = await quad.api.inject(post({ text: 'emoji \ud83d\ude00' }));
    t.equal(pair.statusCode, 200, 'a surrogate pair is a character like any other');
    t.equal(pair.json().text, 'emoji \ud83d\ude00');
  });

  t.test('{org} in the path: a prefix or an id, checked before any SQL', async (t) => {
    for (const ref of ['%00', 'a%00b', '..%2F..', 'acm%20', 'x'.repeat(65), '%E2%82%AC']) {
      await refused(t, { url: `/api/dashboard/${ref}/settings`, headers: bearer(token) }, 'params.org');
      await refused(t, { url: `/api/sink/${ref}/bare` }, 'params.org');
      await refused(t, { url: `/api/storefront/${ref}/store` }, 'params.org');
    }
    for (const ref of ['nope', '99999999999999999999', '2147483648', '0']) {
      const res = await quad.api.inject({ url: `/api/sink/${ref}/bare` });
      t.equal(res.statusCode, 404, `${ref}: ${res.body}`);
      t.equal(res.json().reason, 'unknown_org');
    }
    t.equal((await quad.api.inject({ url: `/api/sink/${world.org.id}/bare` })).json().org, 'acm', 'an id still names the org');
    t.equal((await quad.api.inject({ url: '/api/sink/ACM/bare' })).json().org, 'acm', 'prefixes are case-insensitive');
  });

  t.test('integers: finite and within the column\'s range', async (t) => {
    const audit = (q: string) => ({ url: `/api/superadmin/audit?${q}`, headers: bearer(adminToken) });
    t.equal((await quad.api.inject(audit('page=2&per_page=10'))).statusCode, 200);
    await refused(t, audit('page=1e309'), 'querystring.page');
    await refused(t, audit('page=99999999999999999999'), 'querystring.page');
    await refused(t, audit('page=10001'), 'querystring.page', /<= 10000/);
    await refused(t, audit('per_page=-1'), 'querystring.per_page');
    await refused(t, audit('per_page=0'), 'querystring.per_page');
    await refused(t, { url: '/api/dashboard/acm/notifications?page=Infinity', headers: bearer(token) }, 'querystring.page');
    await refused(t, { method: 'DELETE', url: '/api/organizations/acm/tokens/1e20', headers: bearer(token) }, 'params.id');
    await refused(t, { method: 'DELETE', url: '/api/organizations/acm/tokens/2147483648', headers: bearer(token) }, 'params.id');
    await refused(t, { method: 'DELETE', url: '/api/auth/appTokens/99999999999999999999', headers: bearer(token) }, 'params.id');
    const gone = await quad.api.inject({ method: 'DELETE', url: '/api/organizations/acm/tokens/2147483647', headers: bearer(token) });
    t.equal(gone.statusCode, 404, 'the largest id is well formed: no such token');
    await refused(t, raw('{"ids":[1e400]}', '/api/dashboard/acm/notifications/resolve', bearer(token)), 'body.ids.0');
    // A schema that forgets a maximum still cannot send PostgreSQL a number it cannot hold.
    await refused(t, { url: '/api/sink/acm/count?n=1e309' }, 'querystring.n');
    await refused(t, { url: '/api/sink/acm/count?n=99999999999999999999' }, 'querystring.n');
    await refused(t, { url: `/api/sink/acm/count?n=${2 ** 63}` }, 'querystring.n');
    // It gets int4's bounds (issue 38): a field that needs more declares its maximum.
    await refused(t, { url: '/api/sink/acm/count?n=2147483648' }, 'querystring.n', /<= 2147483647/);
    t.equal((await quad.api.inject({ url: '/api/sink/acm/count?n=2147483647' })).json().n, 2147483647);
    await refused(t, raw('{"text":"ok","n":1e400}'), 'body.n');
    await refused(t, raw('{"text":"ok","n":99999999999999999999}'), 'body.n');
    await refused(t, raw('{"text":"ok","x":-1e400}'), 'body.x', /finite/);
    await refused(t, raw('{"text":"ok","data":{"a":[1e999]}}'), 'body.data.a.0');
    const fine = await quad.api.inject(raw('{"text":"ok","x":1e300,"data":{"big":1e20}}'));
    t.equal(fine.statusCode, 200, 'large finite numbers are fine where the schema says number');
  });

  t.test('nesting is bounded', async (t) => {
    const deep = `{"text":"ok","anything":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    await refused(t, raw(deep), /^body\.anything(\.0)+$/, /nested more than 64 levels/);
    const fine = `{"text":"ok","anything":${'['.repeat(60)}${']'.repeat(60)}}`;
    t.equal((await quad.api.inject(raw(fine))).statusCode, 200);
  });
});
