// Tool-call benchmark: req/s on loopback, in one run with autocannon, of a tool call over MCP (Streamable HTTP,
// a new server and transport per request), the same call over POST /api/tools/call, and a bare Fastify route
// answering the same JSON. Every tool call authenticates the machine token, checks scope, module switch and
// token limits, counts against mcp.calls_per_minute and writes its audit row in one transaction, and runs the tool.
// Run: npm run bench:tools [-- --seconds 5 --connections 10]
import Fastify from 'fastify';
import { defineModule, defineTool, Type } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { issueToken } from '../../core/src/auth/token-admin.js';
import { measureTargets, serveTargets, type Target } from './harness.js';

interface Served { mcp: string; api: string; bare: string; token: string }

const bench = defineModule({
  name: 'bench', title: 'Bench', description: 'Benchmark tools', category: 'Tests',
  scopes: [{ name: 'bench:read', description: 'Benchmark' }],
  tools: [defineTool({
    name: 'bench.echo', description: 'Echoes', scope: 'bench:read', input: Type.Object({ text: Type.String() }),
    async handler({ org }, { text }) { return { org: org.prefix, text }; },
  })],
});

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const quad = await startTestApp({ teardown }, { plugins: [bench], listen: true, config: { LIMIT_MCP_CALLS_PER_MINUTE: 'unlimited' } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { bench: true } });
  const { token } = await issueToken(quad.orm.em.fork(), quad.services, org.id, { name: 'bench', kind: 'agent', scopes: ['bench:read'] }, { kind: 'officer', actor: 'bench' });
  const bare = Fastify();
  bare.post('/call', async () => ({ ok: true, result: { org: 'acm', text: 'hi' } }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => bare.close());
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  return { mcp: `http://127.0.0.1:${port(quad.mcp!)}/mcp`, api: `${quad.url}/api/tools/call`, bare: `http://127.0.0.1:${port(bare)}/call`, token };
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  const call = { name: 'bench.echo', arguments: { text: 'hi' } };
  const r = await measureTargets<Served>(new URL(import.meta.url).pathname, (s): Target[] => [
    { label: 'tool call over MCP (/mcp on TOOL_PORT)', url: s.mcp, method: 'POST', body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }, headers: { authorization: `Bearer ${s.token}`, accept: 'application/json, text/event-stream' } },
    { label: 'tool call over POST /api/tools/call', url: s.api, method: 'POST', body: call, headers: { authorization: `Bearer ${s.token}` } },
    { label: 'bare Fastify route', url: s.bare, method: 'POST', body: call },
  ]);
  const [mcp, api, bare] = Object.values(r);
  console.log(`mcp/bare = ${(mcp / bare).toFixed(3)}   api/bare = ${(api / bare).toFixed(3)}   mcp/api = ${(mcp / api).toFixed(2)}`);
}
