// The load benchmark's server side (the child process of test/bench/load.ts): one Quad (API role) with the default
// plugins of config/default.json listening on loopback against fakes of Discord, the identity provider and an
// embeddings service, and ORGS orgs with every module on, each with an officer, a machine token, shoppers funded
// for more orders than a run can place, products with plenty of stock, agent members with a conversation, and
// knowledge passages (test/bench/knowledge-data.ts, a small corpus). Beside it, on another port: the bare Fastify
// route, the raw-pg floor route, and the control routes the parent reads this process's memory and CPU time and the
// checkouts' exactness from. The fakes run in this process too (as in the other benches): their work counts in its
// CPU and shares its event loop (fake Discord answers each agent turn's member lookup and each access check the
// 60-second cache misses; the fake embeddings service embeds each search's text and each commit's new nodes).
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { allowOutside, signInOfficer, startFakeEmbeddings, startFakeIdp, startSignInWorld, type SignInWorld } from '@quad/core/testing';
import { sha256 } from '../../core/src/auth/secrets.js';
import { createLogger, logDestination } from '../../core/src/log.js';
import { createVectorBasis, loadPassages, MODEL } from './knowledge-data.js';

export const ORGS = 10;
export const SHOPPERS_PER_ORG = 10;
export const PRODUCTS_PER_ORG = 5;
export const AGENT_MEMBERS_PER_ORG = 3;
const PASSAGES_PER_ORG = 300;
/** Each shopper's points: at 1 point an order, more orders than any run places (checkouts never hear 400). */
export const FUNDS = 10_000_000;
/** Each product's stock: more than any run sells (checkouts never hear 409 out_of_stock). */
export const STOCK = 1_000_000;
/** mcp.calls_per_minute for every org: one the run never reaches, so the counter is still written on each call. */
const CALLS_PER_MINUTE = 1_000_000_000;
export const CHANNEL = '930000000000000001';
const SEED = 7;
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');
const PLUGINS = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')).PLUGINS as string[];
/** Scopes of each org's machine token: every tool the mix calls, searches and agent turns. */
const MACHINE_SCOPES = ['org:read', 'knowledge:read', 'calendar:read', 'feeds:manage', 'uptime:read', 'agents:read', 'agents:write'];

export interface AgentMember { id: string; conversation: string }
export interface LoadOrg {
  prefix: string;
  /** The officer's access token (30 minutes). */
  officer: string;
  /** The org's machine token (kind agent). */
  machine: string;
  products: number[];
  /** Identity-provider tokens of the org's shoppers. */
  shoppers: string[];
  agentMembers: AgentMember[];
}
export interface Served {
  api: string; mcp: string; bare: string; floor: string; control: string;
  orgs: LoadOrg[];
  setupSeconds: number;
}

export async function serveLoadWorld(teardown: (fn: () => unknown) => void): Promise<Served> {
  const started = performance.now();
  const t = { teardown };
  const idp = await startFakeIdp();
  teardown(() => idp.close());
  const embeddings = await startFakeEmbeddings(t);
  allowOutside(t);
  const world = await startSignInWorld(t, {
    plugins: PLUGINS, role: 'api', listen: true,
    // The production log level, written the way production writes stdout (buffered), to /dev/null.
    logger: createLogger('info', logDestination('/dev/null')) as never,
    config: {
      ACCESS_ENFORCE: true, POINTS_GATEWAY: false, SECRETS_KEY: [SECRETS_KEY], DATABASE_POOL_MAX: 10,
      IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp],
      EMBEDDINGS_URL: embeddings.url, EMBEDDINGS_MODEL: MODEL,
      LIMIT_MCP_CALLS_PER_MINUTE: String(CALLS_PER_MINUTE),
    },
  });
  // The fakes record every request for tests to assert on; here those records would grow with the run and count
  // as the server's memory, so they are emptied every second.
  const trim = setInterval(() => {
    for (const list of [world.discord.requests, world.discord.messages, world.discord.webhookPosts, idp.requests, embeddings.requests]) list.length = 0;
  }, 1000);
  trim.unref();
  teardown(() => clearInterval(trim));

  const { quad } = world;
  const pool = new pg.Pool({ connectionString: quad.databaseUrl, max: quad.settings.DATABASE_POOL_MAX });
  teardown(() => pool.end());
  const modules = Object.fromEntries(quad.registry.modules.filter((m) => !m.core).map((m) => [m.name, true]));
  const orgs: LoadOrg[] = [];
  const orgIds: number[] = [];
  for (let i = 0; i < ORGS; i++) {
    const { org, id } = await addOrg(world, pool, idp, `l${i}`, modules);
    orgs.push(org);
    orgIds.push(id);
  }
  await createVectorBasis(pool, SEED);
  await loadPassages(pool, orgIds.map((orgId) => ({ orgId, passages: PASSAGES_PER_ORG })), { seed: SEED, publicSources: 1, progress: () => {} });
  await pool.query('vacuum analyze');
  // The searches of the mix embed their text through the embeddings service: check that they do (dense).
  const probe = await quad.api.inject({ method: 'POST', url: '/api/knowledge/search', headers: { authorization: `Bearer ${orgs[0].machine}` }, payload: { query: 'club meeting' } });
  if (probe.statusCode !== 200 || probe.json().dense !== true) throw new Error(`setup: a search answered ${probe.statusCode}, not a dense search: ${probe.body.slice(0, 300)}`);

  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  const side = await sideServer(pool, orgIds);
  teardown(() => side.close());
  const base = `http://127.0.0.1:${port(side)}`;
  return {
    api: quad.url, mcp: `http://127.0.0.1:${port(quad.mcp!)}/mcp`, bare: `${base}/bare`, floor: `${base}/floor`, control: base,
    orgs, setupSeconds: (performance.now() - started) / 1000,
  };
}

type Idp = Awaited<ReturnType<typeof startFakeIdp>>;

/** One org bound to its own Discord server, with everything the mix's callers need (each made through the API). */
async function addOrg(world: SignInWorld, pool: pg.Pool, idp: Idp, prefix: string, modules: Record<string, boolean>) {
  const { quad, discord } = world;
  const guild = discord.addGuild({ name: `Server ${prefix}` });
  const role = discord.addRole(guild.id, { name: 'Officers' });
  const officerUser = discord.addUser({ username: `officer-${prefix}` });
  discord.addMember(guild.id, officerUser.id, [role.id]);
  const entity = await quad.createOrg({ prefix, discordGuildId: guild.id, officerRoleId: role.id, modules });
  const officer = (await signInOfficer(world, officerUser.id)).access_token;
  const { token: machine } = await quad.issueToken(entity.id, { name: 'load', kind: 'agent', scopes: MACHINE_SCOPES });
  const call = async (method: 'GET' | 'POST', url: string, token: string, body: object, status: number) => {
    const res = await quad.api.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: body });
    if (res.statusCode !== status) throw new Error(`setup: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json();
  };

  const products: number[] = [];
  for (let p = 0; p < PRODUCTS_PER_ORG; p++) {
    products.push((await call('POST', `/api/storefront/${prefix}/products`, officer, { name: `Item ${p}`, price: 1, stock: STOCK }, 201)).id);
  }
  const shoppers: string[] = [];
  for (let s = 0; s < SHOPPERS_PER_ORG; s++) {
    const email = `s${s}.${prefix}@load.test`;
    const { rows: [user] } = await pool.query('insert into users (email) values ($1) returning id', [email]);
    await pool.query(`insert into points_entries (organization_id, user_id, amount, source, reason, awarded_by) values ($1, $2, $3, 'award', 'load bench', 'system')`, [entity.id, user.id, FUNDS]);
    const token = await idp.issueToken(idp.addUser({ emails: [email] }).id, { expiresIn: 4 * 3600 });
    // A first order makes the shopper a member the org knows, as after their first real checkout.
    await call('POST', `/api/storefront/${prefix}/checkout`, token, { items: [{ product_id: products[s % products.length], quantity: 1, price: 1 }], total: 1 }, 201);
    shoppers.push(token);
  }
  const agentMembers: AgentMember[] = [];
  for (let a = 0; a < AGENT_MEMBERS_PER_ORG; a++) {
    const user = discord.addUser({ username: `member-${prefix}-${a}` });
    discord.addMember(guild.id, user.id, []);
    const conversation = randomUUID();
    // The member's conversation starts with a first turn.
    await call('POST', `/api/agents/members/${user.id}/turn/commit`, machine,
      { conversation_id: conversation, channel_id: CHANNEL, visibility: 'private', messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi there' }] }, 201);
    agentMembers.push({ id: user.id, conversation });
  }
  return { org: { prefix, officer, machine, products, shoppers, agentMembers }, id: entity.id };
}

/** The bare route, the floor, and the control routes, on their own Fastify (not Quad's). */
async function sideServer(pool: pg.Pool, orgIds: number[]) {
  const side = Fastify();
  side.get('/bare', async () => ({ ok: true }));
  // The floor: what any authenticated org read must do at least, in raw pg: look the machine token up, read its org.
  side.post('/floor', async (request, reply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const { rows: [t] } = await pool.query({ name: 'tok', text: 'select id, organization_id, scopes, revoked_at, expires_at from machine_tokens where token_hash = $1', values: [sha256(token)] });
    if (!t) return reply.code(401).send({ error: 'Invalid token' });
    const { rows: [org] } = await pool.query({ name: 'org', text: 'select id, prefix, name, modules from organizations where id = $1', values: [t.organization_id] });
    return { id: org.id, prefix: org.prefix, name: org.name };
  });
  // Memory and CPU time of this process; with ?gc=1 after a full collection (the child runs with --expose-gc).
  side.get<{ Querystring: { gc?: string } }>('/process', async (request) => {
    if (request.query.gc && global.gc) {
      // Twice: the first pass runs finalizers whose objects the second frees. V8 hands freed pages back to the
      // system from background threads after a collection, so RSS is read a second later.
      global.gc();
      await new Promise((r) => setTimeout(r, 200));
      global.gc();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const { rss, heapUsed } = process.memoryUsage();
    const { user, system } = process.cpuUsage();
    return { rss, heapUsed, cpuMicros: user + system, gc: Boolean(global.gc) } satisfies ProcessStats;
  });
  // Exactness of the checkouts: each shopper's balance against their ledger and their orders, each product's stock
  // against what was sold, negative balances, and the orders written (to compare with the 201s the parent counted).
  side.get('/checkouts', async () => {
    const { rows: [row] } = await pool.query(`
      with shoppers as (
        select b.organization_id, b.user_id, b.balance from points_balances b join users u on u.id = b.user_id
        where u.email like '%@load.test' and b.organization_id = any($1))
      select
        (select count(*) from orders o where o.organization_id = any($1))::int as orders,
        (select count(*) from shoppers where balance < 0)::int as negative,
        (select count(*) from shoppers s where s.balance <> (select coalesce(sum(e.amount), 0) from points_entries e
           where e.organization_id = s.organization_id and e.user_id = s.user_id))::int as ledger_off,
        (select count(*) from shoppers s where s.balance <> $2 - (select coalesce(sum(o.total), 0) from orders o
           where o.organization_id = s.organization_id and o.user_id = s.user_id))::int as spend_off,
        (select count(*) from products p where p.organization_id = any($1) and p.stock <> $3 - (select coalesce(sum(i.quantity), 0)
           from order_items i where i.organization_id = p.organization_id and i.product_id = p.id))::int as stock_off`,
    [orgIds, FUNDS, STOCK]);
    return row as Checkouts;
  });
  await side.listen({ port: 0, host: '127.0.0.1' });
  return side;
}

export interface ProcessStats {
  rss: number; heapUsed: number;
  /** CPU time used so far, user and system, in microseconds. */
  cpuMicros: number;
  /** Whether global.gc was there to collect before reading. */
  gc: boolean;
}
export interface Checkouts { orders: number; negative: number; ledger_off: number; spend_off: number; stock_off: number }
