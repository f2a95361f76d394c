// Tool-call benchmark: req/s on loopback, in one run with autocannon, of a tool call over MCP (Streamable HTTP,
// a new server and transport per request), the same call over POST /api/tools/call, and a bare Fastify route
// answering the same JSON. Every tool call authenticates the machine token, checks scope, module switch and
// token limits, counts against mcp.calls_per_minute in a transaction, runs the tool and writes an audit row.
// Run: npm run bench:tools [-- --seconds 5 --connections 10]
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { defineModule, defineTool, Type } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';

interface Targets { mcp: string; api: string; bare: string; token: string }

const bench = defineModule({
  name: 'bench', title: 'Bench', description: 'Benchmark tools', category: 'Tests',
  scopes: [{ name: 'bench:read', description: 'Benchmark' }],
  tools: [defineTool({
    name: 'bench.echo', description: 'Echoes', scope: 'bench:read', input: Type.Object({ text: Type.String() }),
    async handler({ org }, { text }) { return { org: org.prefix, text }; },
  })],
});

async function serve() {
  const teardowns: (() => unknown)[] = [];
  const quad = await startTestApp({ teardown: (fn) => { teardowns.push(fn); } }, { plugins: [bench], listen: true, config: { LIMIT_MCP_CALLS_PER_MINUTE: 'unlimited' } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { bench: true } });
  if (process.env.BENCH_ASYNC_COMMIT) await quad.orm.em.fork().getConnection().execute(`alter database "${new URL(quad.databaseUrl).pathname.slice(1)}" set synchronous_commit = off`);
  const { token } = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'bench', kind: 'agent', scopes: ['bench:read'] }, { kind: 'officer', actor: 'bench' });
  const bare = Fastify();
  bare.post('/call', async () => ({ ok: true, result: { org: 'acm', text: 'hi' } }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  process.send!({ mcp: `http://127.0.0.1:${port(quad.mcp!)}/mcp`, api: `${quad.url}/api/tools/call`, bare: `http://127.0.0.1:${port(bare)}/call`, token } satisfies Targets);
  process.once('message', async () => {
    await bare.close();
    for (const fn of teardowns.reverse()) await fn();
    process.exit(0);
  });
}

async function measure(url: string, body: object, headers: Record<string, string>, seconds: number, connections: number) {
  const result = await autocannon({ url, method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers }, connections, duration: seconds });
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
  const auth = { authorization: `Bearer ${targets.token}` };
  try {
    const mcp = await measure(targets.mcp, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bench.echo', arguments: { text: 'hi' } } },
      { ...auth, accept: 'application/json, text/event-stream' }, seconds, connections);
    const api = await measure(targets.api, { name: 'bench.echo', arguments: { text: 'hi' } }, auth, seconds, connections);
    const bare = await measure(targets.bare, { name: 'bench.echo', arguments: { text: 'hi' } }, {}, seconds, connections);
    const row = (label: string, v: number) => console.log(`${label.padEnd(44)} ${v.toFixed(0).padStart(7)} req/s`);
    console.log(`autocannon: ${connections} connections, ${seconds} s per target, loopback`);
    row('tool call over MCP (/mcp on TOOL_PORT)', mcp);
    row('tool call over POST /api/tools/call', api);
    row('bare Fastify route', bare);
    console.log(`mcp/bare = ${(mcp / bare).toFixed(3)}   api/bare = ${(api / bare).toFixed(3)}   mcp/api = ${(mcp / api).toFixed(2)}`);
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
