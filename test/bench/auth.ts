// Auth benchmark: req/s on loopback, measured in one run with autocannon, of
//   (a) an officer-authenticated JSON route that reads nothing from the database (JWT verify, revocation list,
//       cached org and cached access check),
//   (b) the same route making one database read through the ORM,
//   (c) a bare Fastify route, and (d) a bare Fastify route making one raw `pg` query (the same read as b).
// Prints a/c and b/d. Run: npm run bench:auth [-- --seconds 5 --connections 10]
import Fastify from 'fastify';
import pg from 'pg';
import { defineModule, Type, type RoutesPlugin } from '@quad/core';
import { User } from '../../core/src/auth/entities.js';
import type { OfficerCaller } from '../../core/src/auth/callers.js';
import { startSignInWorld } from '../support/sign-in.js';
import { measureTargets, serveTargets, type Target } from './harness.js';

interface Served { a: string; b: string; c: string; d: string; authorization: string }

const benchRoutes: RoutesPlugin = async (app) => {
  const params = Type.Object({ org: Type.String() });
  app.get('/api/bench/:org/ping', { config: { auth: 'officer' }, schema: { params } }, async (request) => ({ ok: true, org: request.org!.prefix }));
  app.get('/api/bench/:org/read', { config: { auth: 'officer' }, schema: { params } }, async (request) => {
    const user = await request.em.findOne(User, { chatUserId: (request.caller as OfficerCaller).chatUserId });
    return { ok: true, user: user?.username ?? null };
  });
};
const bench = defineModule({ name: 'bench', title: 'Bench', description: 'Benchmark routes', category: 'Tests', routes: benchRoutes });

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const world = await startSignInWorld({ teardown }, { plugins: [bench], listen: true, orgModules: { bench: true } });
  await world.quad.orm.em.fork().getConnection().execute(`insert into users (chat_user_id, username) values ('${world.officer.id}', 'ada')`);
  const token = world.quad.api.jwt.sign({ username: 'ada', chat_user_id: world.officer.id, type: 'access', jti: 'bench' }, { iss: 'quad', expiresIn: 3600 } as never);
  const pool = new pg.Pool({ connectionString: world.quad.databaseUrl, max: world.quad.settings.DATABASE_POOL_MAX });
  const bare = Fastify();
  bare.get('/ping', async () => ({ ok: true, org: 'acm' }));
  bare.get('/read', async () => {
    const { rows } = await pool.query('select * from users where chat_user_id = $1 limit 1', [world.officer.id]);
    return { ok: true, user: rows[0]?.username ?? null };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => pool.end());
  teardown(() => bare.close());
  const served = {
    a: `${world.quad.url}/api/bench/acm/ping`, b: `${world.quad.url}/api/bench/acm/read`,
    c: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/ping`, d: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/read`,
    authorization: `Bearer ${token}`,
  };
  // Warm the org and access caches once, as a signed-in officer's first request would.
  const warm = await fetch(served.a, { headers: { authorization: served.authorization } });
  if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}: ${await warm.text()}`);
  return served;
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  const r = await measureTargets<Served>(new URL(import.meta.url).pathname, (s): Target[] => [
    { label: '(a) officer route, no database read', url: s.a, headers: { authorization: s.authorization } },
    { label: '(b) officer route, one ORM read', url: s.b, headers: { authorization: s.authorization } },
    { label: '(c) bare Fastify route', url: s.c },
    { label: '(d) bare Fastify route, one raw pg query', url: s.d },
  ]);
  const [a, b, c, d] = Object.values(r);
  console.log(`a/c = ${(a / c).toFixed(2)}   b/d = ${(b / d).toFixed(2)}`);
}
