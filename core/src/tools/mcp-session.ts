// The MCP SDK's part of the tool server (mcp-server.ts): one Server and one Streamable HTTP transport per request
// (never a shared transport: GHSA-345p-7cg4-v4c7), over the tool service. Loaded by mcp-server.ts when it starts
// listening or on the first /mcp request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, RequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { ToolCaller } from '../modules/types.js';
import type { ToolListing, ToolService } from './tool-service.js';

/** What the sessions use of the tool server's options (mcp-server.ts's McpOptions). */
export interface McpSessionOptions { version: string; tools: ToolService }

/** JSON-RPC error code for a rate-limited call (server-defined range). */
const RATE_LIMITED = -32029;

/**
 * tools/call as the SDK's Server validates it itself: registered with CallToolRequestSchema, the SDK's generic
 * parse would answer malformed params with -32603 (internal error) before its own check answers -32602.
 */
const ToolsCallRequest = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

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

function mcpServer(options: McpSessionOptions, shared: SharedParts, org: OrgSnapshot, caller: ToolCaller, requestId: string): Server {
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

/** Answers /mcp requests whose caller and org mcp-server.ts has checked. */
export class McpSessions {
  private readonly shared = new SharedParts();

  constructor(private readonly options: McpSessionOptions) {}

  /** One request: its own Server and transport, dropped with it. `hosts`: the Host headers accepted. */
  async answer(request: FastifyRequest, reply: FastifyReply, org: OrgSnapshot, caller: ToolCaller, hosts: string[]): Promise<void> {
    const server = mcpServer(this.options, this.shared, org, caller, request.id);
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
  }
}
