// Tool-call benchmark (issue 12's floor rule): req/s on loopback, in one run with autocannon, of a tool call over
// MCP (Streamable HTTP, a new server and transport per request) and over POST /api/tools/call, each against "the
// floor": a bare Fastify route sending the same SQL statements with raw `pg` in one transaction (token lookup,
// limit read, counter upsert, audit insert, commit). Four cells: 1 and 10 connections, calls of one org and calls
// spread over many orgs (each request presents the next org's token). Every tool call authenticates the machine
// token, checks scope, module switch and token limits, counts against mcp.calls_per_minute (a limit the org never
// reaches: the counter is written) and writes its audit row in one transaction, and runs the tool.
// Two tools: `bench.echo` sends no SQL of its own (the call's own statements only), and `bench.read` reads its org
// through the ORM (`em.findOne`), as most tools do; its floor sends the same read inside the transaction.
// Run: npm run bench:tools [-- --rounds 3 --seconds 3 --orgs 50 --tool echo|read|both]
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import { defineModule, defineTool, Organization, Type } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';
import { sha256 } from '../../core/src/auth/secrets.js';
import { measureCells, serveTargets, type Target } from './harness.js';

interface Served { mcp: string; api: string; floor: string; floorRead: string; tokens: string[] }

const { values } = parseArgs({ options: { orgs: { type: 'string', default: '50' }, tool: { type: 'string', default: 'both' } }, strict: false });
const ORGS = Number(values.orgs);
const LIMIT = 1_000_000_000;

const bench = defineModule({
  name: 'bench', title: 'Bench', description: 'Benchmark tools', category: 'Tests',
  scopes: [{ name: 'bench:read', description: 'Benchmark' }],
  tools: [defineTool({
    name: 'bench.echo', description: 'Echoes', scope: 'bench:read', input: Type.Object({ text: Type.String() }),
    async handler({ org }, { text }) { return { org: org.prefix, text }; },
  }), defineTool({
    name: 'bench.read', description: 'Reads its org through the ORM', scope: 'bench:read', input: Type.Object({ text: Type.String() }),
    async handler({ em, org }, { text }) { return { org: (await em.findOneOrFail(Organization, org.id)).prefix, text }; },
  })],
});

/**
 * The floor: the statements a counted, audited tool call must send, with raw pg on a pool of the ORM's size; with
 * `read`, also the read bench.read makes.
 */
async function floorRoute(url: string, poolMax: number, read: boolean, teardown: (fn: () => unknown) => void): Promise<string> {
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  teardown(() => pool.end());
  const bare = Fastify();
  bare.post('/call', async (request, reply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows: [t] } = await client.query({ name: 'tok', text: 'select id, organization_id, scopes, revoked_at, expires_at from machine_tokens where token_hash = $1', values: [sha256(token)] });
      if (!t) return reply.code(401).send({ error: 'Invalid token' });
      const { rows: limit } = await client.query({ name: 'lim', text: 'select value from org_limits where organization_id = $1 and key = $2', values: [t.organization_id, 'mcp.calls_per_minute'] });
      const value = limit[0]?.value ?? LIMIT;
      if (read) await client.query({ name: 'org', text: 'select * from organizations where id = $1', values: [t.organization_id] });
      const start = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
      await client.query({
        name: 'ctr',
        text: `insert into usage_counters (organization_id, key, window_start, count) values ($1, $2, $3::timestamptz, 1)
          on conflict (organization_id, key, window_start) do update set count = usage_counters.count + 1
          where usage_counters.count + 1 <= $4 returning count`,
        values: [t.organization_id, 'mcp.calls_per_minute', start, value],
      });
      await client.query({ name: 'aud', text: 'insert into audit_log (organization_id, actor, action, details) values ($1, $2, $3, $4)', values: [t.organization_id, `machine:${t.id}`, 'tools.call', { tool: 'bench.echo', result: 'ok', via: 'api' }] });
      await client.query('commit');
      return { ok: true, result: { org: 'acm', text: 'hi' } };
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => bare.close());
  return `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/call`;
}

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const quad = await startTestApp({ teardown }, { plugins: [bench], listen: true, config: { LIMIT_MCP_CALLS_PER_MINUTE: String(LIMIT) } });
  const tokens: string[] = [];
  for (let i = 0; i < ORGS; i++) {
    const org = await quad.createOrg({ prefix: `b${i}`, modules: { bench: true } });
    const { token } = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'bench', kind: 'agent', scopes: ['bench:read'] }, { kind: 'officer', actor: 'bench' });
    tokens.push(token);
  }
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  const floor = await floorRoute(quad.settings.DATABASE_URL!, quad.settings.DATABASE_POOL_MAX, false, teardown);
  const floorRead = await floorRoute(quad.settings.DATABASE_URL!, quad.settings.DATABASE_POOL_MAX, true, teardown);
  const served = { mcp: `http://127.0.0.1:${port(quad.mcp!)}/mcp`, api: `${quad.url}/api/tools/call`, floor, floorRead, tokens };
  await warmUp(served);
  return served;
}

const calls = { echo: { name: 'bench.echo', arguments: { text: 'hi' } }, read: { name: 'bench.read', arguments: { text: 'hi' } } };
const mcpBody = (call: object) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call });
const mcpHeaders = { accept: 'application/json, text/event-stream' };

/**
 * A new server's first thousands of requests run cold code (JIT tiers, pool connections opening): spend them here,
 * on every target and token, so that the first cell measures the paths and not the warm-up.
 */
async function warmUp(served: Served, requests = 3000, concurrency = 10) {
  const targets = [
    { url: served.floor, body: calls.echo, headers: {} },
    { url: served.floorRead, body: calls.read, headers: {} },
    ...Object.values(calls).flatMap((call) => [
      { url: served.api, body: call, headers: {} },
      { url: served.mcp, body: mcpBody(call), headers: mcpHeaders },
    ]),
  ];
  for (const { url, body, headers } of targets) {
    let sent = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (sent < requests) {
        const token = served.tokens[sent++ % served.tokens.length];
        const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`warm-up: ${url} answered ${res.status}`);
        await res.arrayBuffer();
      }
    }));
  }
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  const tools = values.tool === 'both' ? (['echo', 'read'] as const) : [values.tool as 'echo' | 'read'];
  for (const tool of tools) {
    const call = calls[tool];
    console.log(`\n${call.name}${tool === 'read' ? ' (one em.findOne; its floor sends the same read)' : ' (no SQL of its own)'}`);
    await measureCells<Served>(new URL(import.meta.url).pathname, (s, spread) => {
      const tokens = spread ? s.tokens : s.tokens.slice(0, 1);
      const paths: Target[] = [
        { label: 'POST /api/tools/call', url: s.api, method: 'POST', body: call, tokens },
        { label: 'MCP tools/call', url: s.mcp, method: 'POST', body: mcpBody(call), headers: mcpHeaders, tokens },
      ];
      const floor = tool === 'read' ? s.floorRead : s.floor;
      return { floor: { label: 'floor (raw pg, same SQL, one transaction)', url: floor, method: 'POST', body: call, tokens }, paths };
    });
  }
}
