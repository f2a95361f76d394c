// The MCP server: Streamable HTTP at /mcp on TOOL_PORT, authenticated by `Authorization: Bearer plat_…`.
// Stateless: every request gets its own Server and transport (a shared transport has leaked responses between
// clients, GHSA-345p-7cg4-v4c7), closed if the response closes before it is answered. DNS-rebinding protection
// checks the Host.
// No answer carries an error's own message: a failure before the MCP server runs (the token check during a
// database outage…) is a JSON-RPC error with a fixed message and the request id; so is a failing tool.
// The MCP SDK (and zod) is half a second of loading: mcp-session.ts holds what uses it, loaded when the server starts
// listening or on the first /mcp request, so a process that never serves MCP (tests on inject) never loads it.
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { internalErrorBody, knownError, retryAfterOf } from '../http/errors.js';
import { routeNotFound } from '../http/error-handler.js';
import { requestIdOf } from '../http/request-id.js';
import { closingFlag, shuttingDown } from '../http/shutdown.js';
import { ResponseLogController } from '../log.js';
import type { MachineTokenCache } from '../auth/machine-tokens.js';
import type { OrgCache } from '../orgs/org-cache.js';
import { toolCaller } from './caller.js';
import type { ToolService } from './tool-service.js';
import type { McpSessions } from './mcp-session.js';

/** JSON-RPC 2.0's error codes for what is answered here, before any MCP server runs. */
const ErrorCode = { ParseError: -32700, InvalidRequest: -32600, InternalError: -32603 } as const;

export interface McpOptions {
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

/** A JSON-RPC error answer outside the MCP server: a fixed message, never the cause's. */
function rpcError(reply: FastifyReply, status: number, code: number, message: string, data?: Record<string, unknown>) {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message, ...(data && { data }) }, id: null });
}

export async function buildMcpApp(options: McpOptions): Promise<FastifyInstance> {
  // One log line per response, as on the main port.
  const app = Fastify({
    loggerInstance: options.log, bodyLimit: options.bodyLimit, genReqId: requestIdOf, logController: new ResponseLogController(),
    return503OnClosing: false, // our own 503 while closing: see shutdown.ts
  });
  const shutdown = closingFlag(app);
  app.decorateRequest('org', null);
  let sessions: Promise<McpSessions> | undefined;
  const loadSessions = () => (sessions ??= import('./mcp-session.js').then(({ McpSessions }) => new McpSessions(options)));
  // (A callback hook, not an async one: no promise per request.)
  app.addHook('onRequest', (request, reply, done) => {
    // On the raw response: the MCP transport answers on it directly (the reply is hijacked).
    reply.raw.setHeader('x-request-id', request.id);
    // Tool results may hold tokens (tokens.create): no cache keeps them.
    reply.raw.setHeader('cache-control', 'no-store');
    if (shutdown.closing) return done(shuttingDown());
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
    // Loaded now, so the first client does not wait for it (a failure shows on that client's request).
    loadSessions().catch(() => { sessions = undefined; });
    const address = app.server.address();
    if (!options.allowedHosts.length && address && typeof address === 'object') {
      hosts = ['localhost', '127.0.0.1', '[::1]'].map((h) => `${h}:${address.port}`);
    }
  });

  app.all('/mcp', async (request, reply) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!presented) return refuse(reply, 'Send Authorization: Bearer <machine token>');
    const check = await options.machineTokens.verify(options.tools.services, presented);
    if (!check.ok) return refuse(reply, check.why === 'unknown' ? 'Invalid token' : `Token ${check.why}`);
    const org = await options.orgs.find(String(check.token.organization.id));
    if (!org) return refuse(reply, 'The token\'s org no longer exists');
    request.org = org;

    await (await loadSessions()).answer(request, reply, org, toolCaller(check.token), hosts);
  });
  return app;
}
