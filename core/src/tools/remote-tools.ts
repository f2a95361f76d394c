// Remote tools: the tools of an integration's own MCP server (GitHub's, or any service an org connects), served by
// the tool server as `<integration>.<tool>` to tokens holding a scope that grants the integration. The tool service
// (tool-service.ts) decides who may call what and counts and audits each call; this file lists a remote server's
// tools and forwards a call, with the org's credentials, over the MCP SDK's client (Streamable HTTP).
//
// - Every request goes through the core's safe fetcher: an org's URL must reach a public address; a deployment's URL
//   (`mcp.trusted`, e.g. GITHUB_MCP_URL) may be private. Redirects are left to the SDK, which follows them only
//   within the origin (each hop through the safe fetcher again). The standalone SSE stream (GET) is never opened:
//   each exchange is one request-response session.
// - A listing is kept in this process's memory for LISTING_TTL_MS (a failure for FAILURE_TTL_MS), keyed by the org,
//   the integration and the version of the org's fields of it (their names and updated_at): saving or clearing a
//   field (a reconnect) changes the version, so the next use lists again. Nothing else is shared state.
// - Failures are tool errors in the officer's words (`remote_timeout` 504, `remote_unauthorized`,
//   `remote_unavailable`, `remote_refused`, `remote_error` 502), never an internal message or a stack.
import { LRUCache } from 'lru-cache';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { HttpError } from '../http/errors.js';
import { safeFetch, SafeFetchError } from '../net/safe-fetch.js';
import type { CoreServices } from '../core-services.js';
import type { IntegrationContext, IntegrationDecl, RemoteMcpDecl, ScopeDecl, ToolCaller } from '../modules/types.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import { defaultRepoArgument, repoRefusal } from './repo-limit.js';
import type { ToolListing, ToolOutcome } from './tool-types.js';

/** A remote listing is reused this long (per process, per org, integration and version of its fields). */
export const LISTING_TTL_MS = 60_000;
/** A listing that failed is not tried again for this long (a hanging server would hold every tools/list). */
export const FAILURE_TTL_MS = 10_000;
/** Largest answer of a remote server (a listing or one call's result). */
export const REMOTE_MAX_BYTES = 5 * 1024 * 1024;
/** At most this many tools of one server are served, read over at most MAX_PAGES pages. */
export const MAX_REMOTE_TOOLS = 500;
const MAX_PAGES = 10;
/** MCP's advice for tool names; a remote tool named otherwise is not served. */
const REMOTE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

type RemoteIntegration = IntegrationDecl & { module: string; mcp: RemoteMcpDecl };

export interface RemoteTool {
  /** `<integration>.<tool>`. */
  name: string;
  /** The name on the remote server. */
  remoteName: string;
  integration: string;
  listing: ToolListing;
}

/**
 * The MCP SDK's client half, loaded on first use: it (zod under it) takes about a fifth of a second to load, which
 * worker processes, CLI commands and orgs without a remote integration should not pay.
 */
interface Sdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  AjvJsonSchemaValidator: typeof AjvJsonSchemaValidator;
  ErrorCode: typeof import('@modelcontextprotocol/sdk/types.js').ErrorCode;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
}
let sdk: Sdk | null = null;

async function loadSdk(): Promise<Sdk> {
  if (sdk) return sdk;
  const [client, http, ajv, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'), import('@modelcontextprotocol/sdk/types.js'),
  ]);
  sdk = {
    Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, StreamableHTTPError: http.StreamableHTTPError,
    AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator, ErrorCode: types.ErrorCode, McpError: types.McpError,
  };
  return sdk;
}

/** One fetched listing of a remote server, with the input checks of its tools (compiled on first use). */
export class RemoteListing {
  readonly byName: ReadonlyMap<string, RemoteTool>;
  private validator: AjvJsonSchemaValidator | null = null;
  private readonly checks = new Map<string, ((input: unknown) => string | null)>();

  constructor(readonly tools: readonly RemoteTool[], private readonly title: string, private readonly Validator: typeof AjvJsonSchemaValidator) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  /** Null when `input` fits the tool's input schema, else what is wrong (or that the schema cannot be checked). */
  problem(tool: RemoteTool, input: unknown): string | null {
    let check = this.checks.get(tool.name);
    if (!check) {
      check = this.compile(tool);
      this.checks.set(tool.name, check);
    }
    return check(input);
  }

  private compile(tool: RemoteTool): (input: unknown) => string | null {
    try {
      // Its own Ajv per listing: one org's schemas (and their $id) never meet another's.
      this.validator ??= new this.Validator();
      const validate = this.validator.getValidator(checkable(tool.listing.inputSchema) as Record<string, unknown>);
      return (input) => {
        const result = validate(input);
        return result.valid ? null : (result.errorMessage ?? 'does not match the input schema').replace(/\bdata\//g, '').replace(/\bdata\b/g, 'input');
      };
    } catch {
      return () => `${serverName(this.title)} gave ${tool.name} an input schema that cannot be checked`;
    }
  }
}

/**
 * The schema the input is checked against: the remote's, without what would run the remote's own code or regular
 * expressions here (`pattern`, `patternProperties`, `format`) or clash between tools (`$id`, `$schema`). The remote
 * server checks those itself.
 */
function checkable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(checkable);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  let patterned = false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' || key === 'format' || key === '$id' || key === '$schema') continue;
    if (key === 'patternProperties') { patterned = true; continue; }
    if (VALUE_KEYWORDS.has(key)) out[key] = value;
    else if (MAP_KEYWORDS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, checkable(v)]));
    } else out[key] = checkable(value);
  }
  // Without its patternProperties, additionalProperties: false would refuse what they allowed.
  if (patterned) delete out.additionalProperties;
  return out;
}
/** Keywords whose value is data, not a schema. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required', 'title', 'description']);
/** Keywords whose value maps names (not keywords) to schemas. */
const MAP_KEYWORDS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/** Never compiles an output schema: a one-shot client checks nothing it lists (the agent's client does). */
const NO_VALIDATION: jsonSchemaValidator = { getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }) };

interface FieldState { connected: boolean; version: string }
interface CacheEntry { version: string; expires: number; listing: Promise<RemoteListing> }

export class RemoteTools {
  /** Integrations whose tools come from their own MCP server (`remote` with `mcp`). */
  readonly integrations: ReadonlyMap<string, RemoteIntegration>;
  // Each entry holds one listing (and, once a tool was called, its own Ajv): bounded.
  private readonly cache = new LRUCache<string, CacheEntry>({ max: 500 });

  constructor(private readonly services: CoreServices, private readonly log: FastifyBaseLogger) {
    this.integrations = new Map([...services.registry.integrations.values()]
      .filter((i): i is RemoteIntegration => i.remote === true && i.mcp !== undefined)
      .map((i) => [i.key, i]));
  }

  /** The remote integration a tool name belongs to (`github.get_me` → `github`), or null. */
  integrationOf(name: string): string | null {
    if (!this.integrations.size) return null;
    const dot = name.indexOf('.');
    return dot > 0 && this.integrations.has(name.slice(0, dot)) ? name.slice(0, dot) : null;
  }

  /** A scope the caller holds that grants the integration's tools, its module on for the org; undefined when none. */
  grantingScope(org: OrgSnapshot, scopes: readonly string[], key: string): (ScopeDecl & { module: string }) | undefined {
    const { registry } = this.services;
    for (const name of scopes) {
      const scope = registry.scopes.get(name);
      if (scope?.integration === key && registry.isEnabled(org.modules, scope.module)) return scope;
    }
    return undefined;
  }

  /** The remote integrations whose tools the caller's scopes grant for this org. */
  granted(org: OrgSnapshot, caller: Pick<ToolCaller, 'scopes'>): string[] {
    return [...this.integrations.keys()].filter((key) => this.grantingScope(org, caller.scopes, key));
  }

  /**
   * Refuse a call the token's `repos` patterns do not allow (null: allowed), read from the arguments the tool's
   * listed input schema declares (repo-limit.ts). Without patterns every call passes.
   */
  repoRefusal(tool: RemoteTool, patterns: readonly string[] | undefined, args: Readonly<Record<string, unknown>>): ToolOutcome | null {
    if (!patterns) return null;
    const decl = this.integrations.get(tool.integration)!;
    return repoRefusal({
      integration: tool.integration, title: decl.title, name: tool.name, inputSchema: tool.listing.inputSchema,
      repoArgument: decl.mcp.repoArgument ?? defaultRepoArgument,
    }, patterns, args);
  }

  /** For each remote integration: is it connected for the org, and the version of its fields (one read). */
  async states(em: EntityManager, orgId: number): Promise<Map<string, FieldState>> {
    const statuses = await this.services.secrets.list(em, orgId);
    const states = new Map<string, FieldState>();
    for (const [key, decl] of this.integrations) {
      const fields = statuses.filter((s) => s.integration === key);
      states.set(key, {
        connected: decl.secrets.every((d) => d.optional || fields.some((f) => f.name === d.name && f.set)),
        version: fields.map((f) => `${f.name}@${f.updatedAt?.getTime() ?? '-'}`).sort().join(','),
      });
    }
    return states;
  }

  /**
   * The integration's remote tools for the org: null when the org has not connected it; throws an HttpError (502,
   * 504…) when the server cannot list them. From the cache while the org's fields are unchanged.
   */
  async listing(em: EntityManager, orgId: number, key: string, state: FieldState): Promise<RemoteListing | null> {
    if (!state.connected) return null;
    const cacheKey = `${orgId}:${key}`;
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.version === state.version && hit.expires > now) return hit.listing;
    const entry: CacheEntry = { version: state.version, expires: now + LISTING_TTL_MS, listing: this.fetchListing(em, orgId, key) };
    entry.listing.catch((err) => {
      entry.expires = Math.min(entry.expires, Date.now() + FAILURE_TTL_MS);
      this.log.warn({ org: orgId, integration: key, reason: (err as HttpError).reason }, `remote tools of ${key} for org ${orgId}: ${(err as Error).message}`);
    });
    this.cache.set(cacheKey, entry);
    return entry.listing;
  }

  /** Forward one call to the remote server with the org's credentials; its result as the server answered it. */
  async call(em: EntityManager, orgId: number, tool: RemoteTool, args: Record<string, unknown>): Promise<CallToolResult> {
    const decl = this.integrations.get(tool.integration)!;
    const values = await this.values(em, orgId, decl);
    try {
      return await exchange(this.services, decl, values, async (client, options) => (
        await client.callTool({ name: tool.remoteName, arguments: args }, undefined, options)
      ) as CallToolResult);
    } catch (err) {
      this.log.warn({ org: orgId, tool: tool.name, reason: (err as HttpError).reason }, `remote tool ${tool.name} for org ${orgId}: ${(err as Error).message}`);
      throw err;
    }
  }

  private async fetchListing(em: EntityManager, orgId: number, key: string): Promise<RemoteListing> {
    const decl = this.integrations.get(key)!;
    const local = this.services.registry.tools;
    const listed = await listRemoteTools(this.services, decl, await this.values(em, orgId, decl));
    const seen = new Set<string>();
    const tools: RemoteTool[] = [];
    for (const t of listed) {
      const name = `${key}.${t.name}`;
      // A local tool of the same name wins; a name MCP advises against is not served.
      if (!REMOTE_NAME.test(t.name) || local.has(name) || seen.has(name)) continue;
      seen.add(name);
      tools.push({ name, remoteName: t.name, integration: key, listing: remoteListing(name, t) });
    }
    tools.sort((a, b) => a.name.localeCompare(b.name));
    return new RemoteListing(tools, decl.title, (await loadSdk()).AjvJsonSchemaValidator);
  }

  /** The org's set fields of the integration, by secret name (one read). */
  private async values(em: EntityManager, orgId: number, decl: RemoteIntegration): Promise<Record<string, string>> {
    const values = await this.services.secrets.values(em, orgId, decl.secrets.map((f) => f.name));
    return Object.freeze(Object.fromEntries(values));
  }
}

/**
 * The tools a remote integration's server lists with these values of the org's fields (at most MAX_REMOTE_TOOLS,
 * over at most MAX_PAGES pages), as the server names them: one uncached session. Failures as in `exchange`.
 */
export function listRemoteTools(services: CoreServices, decl: RemoteIntegration, values: Record<string, string>): Promise<Tool[]> {
  return exchange(services, decl, values, async (client, options) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_REMOTE_TOOLS; page++) {
      const answer = await client.listTools(cursor ? { cursor } : undefined, options);
      tools.push(...answer.tools);
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return tools.slice(0, MAX_REMOTE_TOOLS);
  });
}

/** Names a connection test spells out before "and N more". */
const TEST_NAMES = 10;

/**
 * The connection test of a remote integration (Explore → Integrations, Test): list its server's tools with the org's
 * fields, bypassing the cache. `"MCP server lists 5 tools: get_repo, list_issues, …"`; a failure throws the same
 * HttpError a listing would (`401 from MCP server: check the integration's token`), which the core shows as is.
 */
export async function testRemoteIntegration(key: string, { services, values }: IntegrationContext): Promise<string> {
  const decl = services.registry.integrations.get(key);
  if (!decl?.remote || !decl.mcp) throw new Error(`${key} is not an integration with its own MCP server`);
  const names = (await listRemoteTools(services, decl as RemoteIntegration, { ...values })).map((t) => t.name);
  const who = serverName(decl.title);
  if (!names.length) return `${who} answered, and lists no tools`;
  const shown = names.slice(0, TEST_NAMES).join(', ');
  const more = names.length > TEST_NAMES ? ` and ${names.length - TEST_NAMES} more` : '';
  return `${who} lists ${names.length} tool${names.length === 1 ? '' : 's'}: ${shown}${more}`;
}

/** One MCP session with the integration's server: connect, `work`, close; every failure as an HttpError. */
async function exchange<T>(services: CoreServices, decl: RemoteIntegration, values: Record<string, string>, work: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
  const who = serverName(decl.title);
  let url: URL;
  let headers: Record<string, string>;
  try {
    url = new URL(decl.mcp.url(values, services));
    headers = Object.fromEntries(new Headers(decl.mcp.headers(values)).entries());
  } catch {
    throw new HttpError(502, `${who}: its URL or credentials are not usable; check the integration's fields`, 'remote_misconfigured');
  }
  const timeoutMs = services.settings.REMOTE_MCP_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const trusted = decl.mcp.trusted === true;
  const fetchThrough = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const method = (init?.method ?? 'GET').toUpperCase();
    // No standalone SSE stream: 405 is how a server says it offers none, and the SDK takes it so.
    if (method === 'GET') return new Response(null, { status: 405 });
    const res = await safeFetch(String(input), {
      method: method as 'POST' | 'DELETE',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? init.body : undefined,
      maxRedirects: 0, maxBytes: REMOTE_MAX_BYTES, timeoutMs, trusted,
      signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
    });
    const empty = res.status === 204 || res.status === 205 || res.status === 304;
    return new Response(empty ? null : new Uint8Array(res.body), { status: res.status, headers: res.headers });
  };
  const { Client, StreamableHTTPClientTransport } = await loadSdk();
  const client = new Client({ name: 'quad', version: services.version }, { capabilities: {}, jsonSchemaValidator: NO_VALIDATION });
  const transport = new StreamableHTTPClientTransport(url, { fetch: fetchThrough, requestInit: { headers } });
  const options = { signal: deadline, timeout: timeoutMs };
  try {
    await client.connect(transport, options);
    return await work(client, options);
  } catch (err) {
    throw remoteFailure(who, err, deadline.aborted, timeoutMs);
  } finally {
    await client.close().catch(() => {});
  }
}

/** How a remote tool is shown: the remote's own description and schemas, under its served name. */
function remoteListing(name: string, tool: Tool): ToolListing {
  const title = tool.title ?? tool.annotations?.title ?? name;
  return Object.freeze({
    name, title, description: tool.description ?? '',
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema && { outputSchema: tool.outputSchema as Record<string, unknown> }),
    annotations: {
      title,
      readOnlyHint: tool.annotations?.readOnlyHint ?? false,
      destructiveHint: tool.annotations?.destructiveHint ?? false,
      idempotentHint: tool.annotations?.idempotentHint ?? false,
    },
    confirm: false,
  });
}

/** `GitHub's MCP server`; an integration titled `MCP server` is itself. */
const serverName = (title: string) => (/MCP server$/i.test(title) ? title : `${title}'s MCP server`);

const clip = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** A remote failure in words an agent or officer can act on; the cause stays out of the answer. */
export function remoteFailure(who: string, err: unknown, timedOut: boolean, timeoutMs: number): HttpError {
  if (err instanceof HttpError) return err;
  // The SDK's errors come only from a session, which loaded it.
  const { McpError, ErrorCode, StreamableHTTPError } = sdk ?? { McpError: null, ErrorCode: null, StreamableHTTPError: null };
  const isMcpError = (e: unknown): e is InstanceType<Sdk['McpError']> => McpError !== null && e instanceof McpError;
  const timeout = () => new HttpError(504, `${who} did not answer within ${timeoutMs / 1000} s`, 'remote_timeout');
  if (timedOut || (isMcpError(err) && err.code === ErrorCode!.RequestTimeout)) return timeout();
  if (err instanceof SafeFetchError) {
    if (err.reason === 'timeout') return timeout();
    if (err.reason === 'refused') return new HttpError(502, `${who} may not be reached: ${err.message}`, 'remote_refused');
    if (err.reason === 'too_large') return new HttpError(502, `${who} answered more than ${REMOTE_MAX_BYTES / 1024 / 1024} MB`, 'remote_error');
    return new HttpError(502, `${who} cannot be reached: ${err.message}`, 'remote_unavailable');
  }
  const status = StreamableHTTPError !== null && err instanceof StreamableHTTPError ? (err.code ?? 0) : 0;
  if (status >= 100) {
    if (status === 401 || status === 403) return new HttpError(502, `${status} from ${who}: check the integration's token`, 'remote_unauthorized');
    if (status === 404) return new HttpError(502, `404 from ${who}: check its URL`, 'remote_error');
    return new HttpError(502, `${who} answered HTTP ${status}`, status >= 500 ? 'remote_unavailable' : 'remote_error');
  }
  // A JSON-RPC error the remote server answered (an unknown tool, bad arguments): its own words, clipped.
  if (isMcpError(err) && err.code !== ErrorCode!.ConnectionClosed) return new HttpError(502, `${who} refused the call: ${clip(err.message.replace(/^MCP error -?\d+: /, ''))}`, 'remote_error');
  return new HttpError(502, `${who} did not answer as an MCP server`, 'remote_error');
}
