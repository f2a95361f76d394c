// The MCP server: Streamable HTTP at /mcp on TOOL_PORT, authenticated by `Authorization: Bearer plat_…`.
// Stateless: every request gets its own Server and transport (a shared transport has leaked responses between
// clients, GHSA-345p-7cg4-v4c7), closed if the response closes before it is answered. DNS-rebinding protection
// checks the Host.
// No answer carries an error's own message: a failure before the MCP server runs (the token check during a
// database outage…) is a JSON-RPC error with a fixed message and the request id; so is a failing tool.
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, RequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { internalErrorBody, knownError, retryAfterOf } from '../http/errors.js';
import { routeNotFound } from '../http/error-handler.js';
import { requestIdOf } from '../http/request-id.js';
import { ResponseLogController } from '../log.js';
import type { MachineTokenCache } from '../auth/machine-tokens.js';
import type { OrgCache, OrgSnapshot } from '../orgs/org-cache.js';
import type { ToolCaller } from '../modules/types.js';
import { toolCaller } from './caller.js';
import type { ToolListing, ToolService } from './tool-service.js';

/** JSON-RPC error code for a rate-limited call (server-defined range). */
export const RATE_LIMITED = -32029;

export interface McpOptions {
  orm: MikroORM;
  orgs: OrgCache;
  machineTokens: MachineTokenCache;
  tools: ToolService;
  log: FastifyBaseLogger;
  version: string;
  /** Host headers accepted; empty: localhost, 127.0.0.1 and [::1] on the port listened on. */
  allowedHosts: string[];
  bodyLimit: number;
}

/** Where this server's protected-resource metadata is (RFC 9728 §3.1: the resource's path after the well-known name). */
const METADATA_PATH = '/.well-known/oauth-protected-resource';
const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** A 401 that points MCP clients to the protected-resource metadata, as the MCP authorization spec asks. */
function refuse(reply: FastifyReply, error: string) {
  const metadata = `${origin(reply.request)}${METADATA_PATH}/mcp`;
  return reply
    .code(401)
    .header('www-authenticate', `Bearer realm="quad", resource_metadata="${metadata}", error="invalid_token", error_description="${error}"`)
    .send({ jsonrpc: '2.0', error: { code: -32001, message: error }, id: null });
}

/**
 * tools/call as the SDK's Server validates it itself: registered with CallToolRequestSchema, the SDK's generic
 * parse would answer malformed params with -32603 (internal error) before its own check answers -32602.
 */
const ToolsCallRequest = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

/** A JSON-RPC error answer outside the MCP server: a fixed message, never the cause's. */
function rpcError(reply: FastifyReply, status: number, code: number, message: string, data?: Record<string, unknown>) {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message, ...(data && { data }) }, id: null });
}

type McpTool = { name: string; title: string; description: string; inputSchema: { type: 'object' }; outputSchema?: { type: 'object' }; annotations: ToolListing['annotations'] };

/** What a tool with `confirm` answers first; its outputSchema allows it beside the tool's own output. */
const CONFIRM_REQUIRED = { type: 'object', required: ['confirm_required', 'preview'], properties: { confirm_required: { const: true }, preview: {} } };

/**
 * What one request's Server shares with the others (never a transport): the JSON Schema validator (the SDK's
 * Server would build its own Ajv otherwise; ours never elicits, so it is not even used) and each tool's MCP listing.
 */
class SharedParts {
  readonly validator = new AjvJsonSchemaValidator();
  /** By the tool service's listing: one per local tool for the process, one per remote tool per cached listing. */
  private readonly listings = new WeakMap<ToolListing, McpTool>();

  listing(tool: ToolListing): McpTool {
    let listed = this.listings.get(tool);
    if (!listed) {
      const { name, title, description, inputSchema, outputSchema, annotations, confirm } = tool;
      const output = outputSchema && (confirm ? { type: 'object', anyOf: [outputSchema, CONFIRM_REQUIRED] } : outputSchema);
      listed = { name, title, description, inputSchema: inputSchema as { type: 'object' }, ...(output && { outputSchema: output as { type: 'object' } }), annotations };
      this.listings.set(tool, listed);
    }
    return listed;
  }
}

function mcpServer(options: McpOptions, shared: SharedParts, org: OrgSnapshot, caller: ToolCaller, requestId: string): Server {
  const server = new Server({ name: 'quad', version: options.version }, { capabilities: { tools: {} }, jsonSchemaValidator: shared.validator });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await options.tools.list(org, caller)).map((t) => shared.listing(t)),
  }));
  server.setRequestHandler(ToolsCallRequest, async (request) => {
    // The SDK has checked params against CallToolRequestSchema by now (InvalidParams otherwise).
    const params = request.params as { name: string; arguments?: Record<string, unknown> };
    const outcome = await options.tools.call(org, caller, params.name, params.arguments ?? {}, 'mcp', requestId);
    if (!outcome.ok) {
      // Unknown and refused tools look alike; a rate limit is a protocol error too (nothing ran).
      if (outcome.status === 404) throw new McpError(ErrorCode.InvalidParams, outcome.error);
      if (outcome.status === 429) throw new McpError(RATE_LIMITED, outcome.error, outcome.details);
      const structured = { error: outcome.error, reason: outcome.reason ?? null, status: outcome.status, ...outcome.details };
      // A client checks structuredContent against the tool's outputSchema when there is one, errors included: such
      // a tool's error is its text alone.
      const declaresOutput = options.tools.declaresOutput(params.name);
      return { isError: true, content: [{ type: 'text' as const, text: outcome.error }], ...(!declaresOutput && { structuredContent: structured }) };
    }
    // A remote tool's result is the remote server's, passed on as it answered (its content, isError…).
    if ('remote' in outcome && outcome.remote) return outcome.result as CallToolResult;
    const value = 'confirm_required' in outcome ? { confirm_required: true, preview: outcome.preview } : outcome.result;
    const structured = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
    return { content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: structured };
  });
  return server;
}

export async function buildMcpApp(options: McpOptions): Promise<FastifyInstance> {
  // One log line per response, as on the main port.
  const app = Fastify({ loggerInstance: options.log, bodyLimit: options.bodyLimit, genReqId: requestIdOf, logController: new ResponseLogController() });
  app.decorateRequest('org', null);
  const shared = new SharedParts();
  // (A callback hook, not an async one: no promise per request.)
  app.addHook('onRequest', (request, reply, done) => {
    // On the raw response: the MCP transport answers on it directly (the reply is hijacked).
    reply.raw.setHeader('x-request-id', request.id);
    // Tool results may hold tokens (tokens.create): no cache keeps them.
    reply.raw.setHeader('cache-control', 'no-store');
    done();
  });
  app.setErrorHandler(async (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = knownError(err);
    if (known) {
      const retryAfter = retryAfterOf(known);
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      if (known !== err) request.log.warn({ err, reason: known.reason }, `MCP request answered ${known.statusCode} ${known.reason}`);
      return rpcError(reply, known.statusCode, ErrorCode.InternalError, known.message, { reason: known.reason, ...known.details });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors (bad JSON, body too large…).
      return rpcError(reply, err.statusCode, err.statusCode === 400 ? ErrorCode.ParseError : ErrorCode.InvalidRequest, err.message);
    }
    request.log.error({ err }, `unhandled error in the MCP server: ${err.message}`);
    await options.tools.services.logError({ source: 'request', origin: `${request.method} /mcp`, requestId: request.id, error: err, logLine: `unhandled error in ${request.method} /mcp: ${err.message}` });
    const body = internalErrorBody(request.id);
    return rpcError(reply, 500, ErrorCode.InternalError, body.error, { request_id: body.request_id });
  });
  // Unknown paths: the API port's 404 body.
  app.setNotFoundHandler((request, reply) => reply.code(404).send(routeNotFound(request)));
  // RFC 9728 metadata, at the well-known name and under it for /mcp: which resource this is and how to present a
  // token. No authorization server is named: machine tokens come from `quad token create` or the Tokens page.
  const scopes = [...options.tools.services.registry.scopes.keys()].sort();
  app.get(METADATA_PATH, protectedResource);
  app.get(`${METADATA_PATH}/mcp`, protectedResource);
  async function protectedResource(request: FastifyRequest) {
    return {
      resource: `${origin(request)}/mcp`,
      resource_name: 'Quad tool server',
      bearer_methods_supported: ['header'],
      scopes_supported: scopes,
    };
  }
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
    const check = await options.machineTokens.verify(options.orm, presented);
    if (!check.ok) return refuse(reply, check.why === 'unknown' ? 'Invalid token' : `Token ${check.why}`);
    const org = await options.orgs.find(String(check.token.organization.id));
    if (!org) return refuse(reply, 'The token\'s org no longer exists');
    request.org = org;

    const server = mcpServer(options, shared, org, toolCaller(check.token), request.id);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      // Answered: nothing of the request still runs, and both are dropped with it (closing would only build a
      // "connection closed" error for no one). Cut short (the client went away): stop what still runs.
      if (reply.raw.writableFinished) return;
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  return app;
}
