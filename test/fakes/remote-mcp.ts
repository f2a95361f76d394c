// Fake remote MCP server (an org's "any service with an MCP server", or GitHub's) for the remote-tools tests: the
// MCP SDK's Server over its Streamable HTTP server transport, stateless (a server and transport per request), on
// OUTSIDE_HOST (127.0.0.2) through listenOutside. It records every request and every tools/call it receives
// (name, arguments, Authorization header) and can refuse the bearer (401), fail (HTTP 500) or hang. The low-level
// Server (as the core's own tool server) rather than McpServer: its tools are written as the JSON Schemas a remote
// server sends, with no zod dependency. Test code, not production code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { listenOutside } from './outside.js';

export interface FakeRemoteTool {
  listing: Tool;
  run(args: Record<string, unknown>): CallToolResult;
}

export interface RecordedRemoteCall { name: string; arguments: Record<string, unknown>; authorization: string | null }
export interface RecordedRemoteRequest { method: string; rpc: string[]; authorization: string | null }

export interface FakeRemoteMcpOptions {
  /** Requests without `Authorization: Bearer <token>` get 401. Default: none needed. */
  token?: string;
  /** Answer with an SSE stream rather than JSON (both are Streamable HTTP). Default: false. */
  sse?: boolean;
}

export interface FakeRemoteMcp {
  /** `http://127.0.0.2:<port>/mcp`. */
  readonly url: string;
  /** Every tools/call received, answered or not. */
  readonly calls: RecordedRemoteCall[];
  /** Every HTTP request, with the JSON-RPC methods of its body. */
  readonly requests: RecordedRemoteRequest[];
  /** tools/list requests received. */
  listings(): number;
  /** The tools served (change them to see a listing refreshed). */
  tools: FakeRemoteTool[];
  /** The bearer required from now on (null: none). */
  token: string | null;
  /** `fail`: every request is answered HTTP 500; `hang-calls`: tools/call is never answered; `hang`: nothing is. */
  mode: 'ok' | 'fail' | 'hang-calls' | 'hang';
  close(): Promise<void>;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** get_repo (owner, repo), list_issues (owner, repo, state?), echo (text), whoami (no arguments), broken (an isError result). */
export function defaultRemoteTools(): FakeRemoteTool[] {
  const repoArgs = { owner: { type: 'string' }, repo: { type: 'string' } };
  return [
    {
      listing: { name: 'get_repo', title: 'Get a repository', description: 'A repository by owner and name', inputSchema: { type: 'object', properties: repoArgs, required: ['owner', 'repo'] }, annotations: { readOnlyHint: true } },
      run: (a) => ({ ...text(`repo ${a.owner}/${a.repo}`), structuredContent: { full_name: `${a.owner}/${a.repo}` } }),
    },
    {
      listing: { name: 'list_issues', description: 'Issues of a repository', inputSchema: { type: 'object', properties: { ...repoArgs, state: { type: 'string', enum: ['open', 'closed'] } }, required: ['owner', 'repo'] } },
      run: (a) => text(`issues of ${a.owner}/${a.repo}`),
    },
    {
      listing: { name: 'echo', description: 'Echoes its text', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { text: { type: 'string', pattern: '^[a-z ]+$', maxLength: 50 } }, required: ['text'] } },
      run: (a) => text(String(a.text)),
    },
    { listing: { name: 'whoami', description: 'The signed-in user', inputSchema: { type: 'object', properties: {} } }, run: () => text('octocat') },
    { listing: { name: 'broken', description: 'Always answers an error result', inputSchema: { type: 'object' } }, run: () => ({ ...text('that went wrong'), isError: true }) },
  ];
}

export async function startFakeRemoteMcp(t?: { teardown(fn: () => unknown): void }, options: FakeRemoteMcpOptions = {}): Promise<FakeRemoteMcp> {
  // The SDK loads here, not with @quad/core/testing: most test processes never start this fake.
  const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const calls: RecordedRemoteCall[] = [];
  const requests: RecordedRemoteRequest[] = [];
  let listings = 0;
  const state = { tools: defaultRemoteTools(), token: options.token ?? null, mode: 'ok' as FakeRemoteMcp['mode'] };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    const messages = (Array.isArray(body) ? body : body ? [body] : []) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } }[];
    const authorization = req.headers.authorization ?? null;
    requests.push({ method: req.method ?? '', rpc: messages.map((m) => m.method ?? 'response'), authorization });
    if (state.mode === 'fail') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal error at /srv/fake/secret-path.js:12');
    if (state.token && authorization !== `Bearer ${state.token}`) {
      return void res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end('{"error":"bad credentials"}');
    }
    for (const m of messages) {
      if (m.method === 'tools/list') listings++;
      if (m.method === 'tools/call') calls.push({ name: String(m.params?.name), arguments: m.params?.arguments ?? {}, authorization });
    }
    if (state.mode === 'hang' || (state.mode === 'hang-calls' && messages.some((m) => m.method === 'tools/call'))) return; // never answered
    const server = new Server({ name: 'fake-remote', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: state.tools.map((x) => x.listing) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = state.tools.find((x) => x.listing.name === request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      return tool.run(request.params.arguments ?? {});
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !options.sse });
    res.on('close', () => { void transport.close(); void server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => { if (!res.headersSent) res.writeHead(500).end(); });
  });
  const { origin, close } = await listenOutside(http, t);
  return {
    url: `${origin}/mcp`,
    calls,
    requests,
    listings: () => listings,
    get tools() { return state.tools; },
    set tools(tools) { state.tools = tools; },
    get token() { return state.token; },
    set token(token) { state.token = token; },
    get mode() { return state.mode; },
    set mode(mode) { state.mode = mode; },
    close,
  };
}
