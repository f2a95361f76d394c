// Auth benchmark: req/s on loopback, measured in one run with autocannon, of
//   (a) an officer-authenticated JSON route that reads nothing from the database (JWT verify, revocation list,
//       cached org and cached access check),
//   (b) the same route making one database read through the ORM,
//   (c) a bare Fastify route, and (d) a bare Fastify route making one raw `pg` query (the same read as b).
// Prints a/c and b/d. The servers run in a child process so the load generator does not share their event loop.
// Run: npm run bench:auth [-- --seconds 5 --connections 10]
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { defineModule, Type, type RoutesPlugin } from '@quad/core';
import { User } from '../../core/src/auth/entities.js';
import type { OfficerCaller } from '../../core/src/auth/callers.js';
import { startSignInWorld } from '../support/sign-in.js';

interface Targets { a: string; b: string; c: string; d: string; authorization: string }

const benchRoutes: RoutesPlugin = async (app) => {
  const params = Type.Object({ org: Type.String() });
  app.get('/api/bench/:org/ping', { config: { auth: 'officer' }, schema: { params } }, async (request) => ({ ok: true, org: request.org!.prefix }));
  app.get('/api/bench/:org/read', { config: { auth: 'officer' }, schema: { params } }, async (request) => {
    const user = await request.em.findOne(User, { chatUserId: (request.caller as OfficerCaller).chatUserId });
    return { ok: true, user: user?.username ?? null };
  });
};
const bench = defineModule({ name: 'bench', title: 'Bench', description: 'Benchmark routes', category: 'Tests', routes: benchRoutes });

/** Child: start Quad (with a fake Discord), a bare Fastify and a bare pg route; send the URLs to the parent. */
async function serve() {
  const teardowns: (() => unknown)[] = [];
  const host = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
  const world = await startSignInWorld(host, { plugins: [bench], listen: true, orgModules: { bench: true } });
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
  const barePort = (bare.server.address() as { port: number }).port;
  const targets: Targets = {
    a: `${world.quad.url}/api/bench/acm/ping`, b: `${world.quad.url}/api/bench/acm/read`,
    c: `http://127.0.0.1:${barePort}/ping`, d: `http://127.0.0.1:${barePort}/read`,
    authorization: `Bearer ${token}`,
  };
  // Warm the org and access caches once, as a signed-in officer's first request would.
  const warm = await fetch(targets.a, { headers: { authorization: targets.authorization } });
  if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}: ${await warm.text()}`);
  process.send!(targets);
  process.once('message', async () => {
    await bare.close();
    await pool.end();
    for (const fn of teardowns.reverse()) await fn();
    process.exit(0);
  });
}

async function measure(url: string, seconds: number, connections: number, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], { execArgv: ['--import', 'tsx'] });
  const targets = await new Promise<Targets>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Targets));
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const auth = { authorization: targets.authorization };
  try {
    const a = await measure(targets.a, seconds, connections, auth);
    const b = await measure(targets.b, seconds, connections, auth);
    const c = await measure(targets.c, seconds, connections);
    const d = await measure(targets.d, seconds, connections);
    const row = (label: string, v: number) => console.log(`${label.padEnd(62)} ${v.toFixed(0).padStart(7)} req/s`);
    console.log(`autocannon: ${connections} connections, ${seconds} s per route, loopback`);
    row('(a) officer route, no database read', a);
    row('(b) officer route, one ORM read', b);
    row('(c) bare Fastify route', c);
    row('(d) bare Fastify route, one raw pg query', d);
    console.log(`a/c = ${(a / c).toFixed(2)}   b/d = ${(b / d).toFixed(2)}`);
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
