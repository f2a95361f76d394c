// The MCP server: Streamable HTTP at /mcp on TOOL_PORT, authenticated by `Authorization: Bearer plat_…`.
// Stateless: every request gets its own Server and transport (a shared transport has leaked responses between
// clients, GHSA-345p-7cg4-v4c7), closed when the response closes. DNS-rebinding protection checks the Host.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { verifyMachineToken } from '../auth/machine-tokens.js';
import type { OrgCache, OrgSnapshot } from '../orgs/org-cache.js';
import type { ToolCaller } from '../modules/types.js';
import { toolCaller } from './caller.js';
import type { ToolService } from './tool-service.js';

/** JSON-RPC error code for a rate-limited call (server-defined range). */
export const RATE_LIMITED = -32029;

export interface McpOptions {
  orm: MikroORM;
  orgs: OrgCache;
  tools: ToolService;
  log: FastifyBaseLogger;
  version: string;
  /** Host headers accepted; empty: localhost, 127.0.0.1 and [::1] on the port listened on. */
  allowedHosts: string[];
  bodyLimit: number;
}

function refuse(reply: FastifyReply, error: string) {
  return reply
    .code(401)
    .header('www-authenticate', `Bearer realm="quad", error="invalid_token", error_description="${error}"`)
    .send({ jsonrpc: '2.0', error: { code: -32001, message: error }, id: null });
}

function mcpServer(options: McpOptions, org: OrgSnapshot, caller: ToolCaller): Server {
  const server = new Server({ name: 'quad', version: options.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools.visible(org, caller).map((t) => {
      const { name, title, description, inputSchema, outputSchema, annotations } = options.tools.listing(t);
      return { name, title, description, inputSchema: inputSchema as { type: 'object' }, ...(outputSchema && { outputSchema: outputSchema as { type: 'object' } }), annotations };
    }),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const outcome = await options.tools.call(org, caller, request.params.name, request.params.arguments ?? {}, 'mcp');
    if (!outcome.ok) {
      // Unknown and refused tools look alike; a rate limit is a protocol error too (nothing ran).
      if (outcome.status === 404) throw new McpError(ErrorCode.InvalidParams, outcome.error);
      if (outcome.status === 429) throw new McpError(RATE_LIMITED, outcome.error, outcome.details);
      return { isError: true, content: [{ type: 'text' as const, text: outcome.error }], structuredContent: { error: outcome.error, reason: outcome.reason ?? null, status: outcome.status } };
    }
    const value = 'confirm_required' in outcome ? { confirm_required: true, preview: outcome.preview } : outcome.result;
    const structured = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
    return { content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: structured };
  });
  return server;
}

export async function buildMcpApp(options: McpOptions): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: options.log, bodyLimit: options.bodyLimit });
  let hosts: string[] = options.allowedHosts;
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (!options.allowedHosts.length && address && typeof address === 'object') {
      hosts = ['localhost', '127.0.0.1', '[::1]'].map((h) => `${h}:${address.port}`);
    }
  });

  app.all('/mcp', async (request, reply) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!presented) return refuse(reply, 'Send Authorization: Bearer <machine token>');
    const em = options.orm.em.fork();
    const check = await verifyMachineToken(em, presented);
    if (!check.ok) return refuse(reply, check.why === 'unknown' ? 'Invalid token' : `Token ${check.why}`);
    const org = await options.orgs.find(em, String(check.token.organization.id));
    if (!org) return refuse(reply, 'The token\'s org no longer exists');

    const server = mcpServer(options, org, toolCaller(check.token));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  return app;
}
