// Auth benchmark: req/s on loopback, measured in one run with autocannon, at the production log level (`info`,
// lines written to /dev/null the way production writes them to stdout: buffered, see log.ts), of
//   (a) an officer-authenticated JSON route that reads nothing from the database (JWT verify, revocation list,
//       cached org and cached access check),
//   (b) an officer route making one core lookup (the org by prefix, as on an org-cache miss),
//   (c) an officer route making one plugin-style ORM `findOne`,
// against their floors in the same run: (d) a bare Fastify route, (e) a bare route sending b's SQL with raw `pg`,
// (f) a bare route sending c's SQL with raw `pg`. Prints a/d (target ≥ 0.60), b/e (≥ 0.80) and c/f (≥ 0.50).
// Also (g, h, i): d, e and f doing the work every Quad answer must do — the same response headers (helmet's set,
// request id, cache-control, CORS's vary), one JSON log line at `info` and the request metrics — and a/g, b/h, c/i:
// how much of the gap is that work and how much is the officer check and the ORM.
// Each ratio is the median of the ratios within each round (see harness.ts).
// Run: npm run bench:auth [-- --rounds 3 --seconds 3 --connections 10]
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pg from 'pg';
import { defineModule, Type, type RoutesPlugin } from '@quad/core';
import { User } from '../../core/src/auth/entities.js';
import { rawQuery } from '../../core/src/db/orm.js';
import { PgListener } from '../../core/src/db/listener.js';
import { OrgCache } from '../../core/src/orgs/org-cache.js';
import type { OfficerCaller } from '../../core/src/auth/callers.js';
import { createLogger, logDestination, ResponseLogController } from '../../core/src/log.js';
import { Metrics } from '../../core/src/metrics/metrics.js';
import { requestIdOf } from '../../core/src/http/request-id.js';
import { startSignInWorld } from '../support/sign-in.js';
import { measureTargets, ratio, serveTargets, type Target } from './harness.js';

interface Served { a: string; b: string; c: string; d: string; e: string; f: string; g: string; h: string; i: string; authorization: string }

let missingOrgs: OrgCache | undefined;
const benchRoutes: RoutesPlugin = async (app) => {
  const params = Type.Object({ org: Type.String() });
  app.get('/api/bench/:org/ping', { config: { auth: 'officer' }, schema: { params } }, async (request) => ({ ok: true, org: request.org!.prefix }));
  app.get('/api/bench/:org/core-read', { config: { auth: 'officer' }, schema: { params } }, async (request) => {
    // The core's org lookup on a cache miss, through a cache whose listener never started (so it always misses):
    // one read per request, and the request path's own cache stays warm, as the floor's route has no cache to miss.
    const org = await missingOrgs!.find(request.org!.prefix);
    return { ok: true, org: org?.prefix ?? null };
  });
  app.get('/api/bench/:org/read', { config: { auth: 'officer' }, schema: { params } }, async (request) => {
    const user = await request.em.findOne(User, { chatUserId: (request.caller as OfficerCaller).chatUserId });
    return { ok: true, user: user?.username ?? null };
  });
};
const bench = defineModule({ name: 'bench', title: 'Bench', description: 'Benchmark routes', category: 'Tests', routes: benchRoutes });

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const logger = createLogger('info', logDestination('/dev/null'));
  const world = await startSignInWorld({ teardown }, { plugins: [bench], listen: true, orgModules: { bench: true }, logger: logger as never });
  missingOrgs = new OrgCache(new PgListener(world.quad.databaseUrl, world.quad.log), rawQuery(world.quad.orm));
  await world.quad.orm.em.fork().getConnection().execute(`insert into users (chat_user_id, username) values ('${world.officer.id}', 'ada')`);
  const token = world.quad.api.jwt.sign({ username: 'ada', chat_user_id: world.officer.id, type: 'access', jti: 'bench' }, { iss: 'quad', expiresIn: 3600 } as never);
  const pool = new pg.Pool({ connectionString: world.quad.databaseUrl, max: world.quad.settings.DATABASE_POOL_MAX });
  teardown(() => pool.end());
  const floorRoutes = (app: FastifyInstance) => {
    app.get('/ping', async () => ({ ok: true, org: 'acm' }));
    app.get('/core-read', async () => {
      const { rows } = await pool.query('select * from organizations where prefix = $1 limit 1', ['acm']);
      return { ok: true, org: rows[0]?.prefix ?? null };
    });
    app.get('/read', async () => {
      const { rows } = await pool.query('select * from users where chat_user_id = $1 limit 1', [world.officer.id]);
      return { ok: true, user: rows[0]?.username ?? null };
    });
  };
  const bare = await listening(Fastify(), floorRoutes, teardown);
  const dutiful = await listening(await requiredWorkApp(`${world.quad.url}/api/bench/acm/ping`, `Bearer ${token}`, logger), floorRoutes, teardown);
  const served = {
    a: `${world.quad.url}/api/bench/acm/ping`, b: `${world.quad.url}/api/bench/acm/core-read`, c: `${world.quad.url}/api/bench/acm/read`,
    d: `${bare}/ping`, e: `${bare}/core-read`, f: `${bare}/read`, g: `${dutiful}/ping`, h: `${dutiful}/core-read`, i: `${dutiful}/read`,
    authorization: `Bearer ${token}`,
  };
  // Warm the org and access caches once, as a signed-in officer's first request would.
  for (const url of [served.a, served.b, served.c]) {
    const warm = await fetch(url, { headers: { authorization: served.authorization } });
    if (warm.status !== 200) throw new Error(`warm-up of ${url} answered ${warm.status}: ${await warm.text()}`);
  }
  return served;
}

/** `app` serving `routes` on a free loopback port, closed at teardown; its base URL. */
async function listening(app: FastifyInstance, routes: (app: FastifyInstance) => void, teardown: (fn: () => unknown) => void): Promise<string> {
  routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

/**
 * The floors (g, h, i) with the work every Quad answer does and nothing else: the headers a's answer carries (copied
 * from one of its answers), a request id, one log line through the same logger and controller, and the same request
 * counter and histogram.
 */
async function requiredWorkApp(officerUrl: string, authorization: string, logger: ReturnType<typeof createLogger>): Promise<FastifyInstance> {
  const sample = await fetch(officerUrl, { headers: { authorization } });
  const headers: Record<string, string> = {};
  sample.headers.forEach((value, name) => {
    if (!['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'x-request-id'].includes(name)) headers[name] = value;
  });
  const metrics = new Metrics();
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, genReqId: requestIdOf, logController: new ResponseLogController() });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', metrics.onResponse);
  return app;
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  const r = await measureTargets<Served>(new URL(import.meta.url).pathname, (s): Target[] => [
    { label: '(a) officer route, no database read', url: s.a, headers: { authorization: s.authorization } },
    { label: '(b) officer route, one core lookup (org on a cache miss)', url: s.b, headers: { authorization: s.authorization } },
    { label: '(c) officer route, one plugin ORM findOne', url: s.c, headers: { authorization: s.authorization } },
    { label: '(d) bare Fastify route', url: s.d },
    { label: '(e) bare Fastify route, b\'s SQL in raw pg', url: s.e },
    { label: '(f) bare Fastify route, c\'s SQL in raw pg', url: s.f },
    { label: '(g) d with the required work: headers, log line, metrics', url: s.g },
    { label: '(h) e with the required work', url: s.h },
    { label: '(i) f with the required work', url: s.i },
  ]);
  const [a, b, c, d, e, f, g, h, i] = Object.values(r);
  const x = (p: number[], q: number[]) => ratio(p, q).toFixed(2);
  console.log(`a/d = ${x(a, d)} (target ≥ 0.60)   b/e = ${x(b, e)} (≥ 0.80)   c/f = ${x(c, f)} (≥ 0.50)`);
  console.log(`floors doing the work every answer must do: g/d = ${x(g, d)}   a/g = ${x(a, g)}   b/h = ${x(b, h)}   c/i = ${x(c, i)}`);
}
