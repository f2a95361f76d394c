// The one wrapper every tool call goes through, over MCP and /api/tools alike: the token's scope, the org's
// module switch and the token's per-integration tool patterns decide what a token sees; an unknown tool and a
// refused one get the same answer, so a token cannot probe. Each call counts against mcp.calls_per_minute,
// runs in one transaction bound to the token's org, is audited, and is counted and timed in the metrics. Remote
// tools (an integration's own MCP server, remote-tools.ts) go through the same checks, count and audit; their repos
// patterns are checked before anything is sent.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import '../http/formats.js';
import type { TSchema } from '@sinclair/typebox';
import { DeferredTransaction } from '../db/deferred-transaction.js';
import { LRUCache } from 'lru-cache';
import { forkFor, poolClient, rawQueryOn } from '../db/orm.js';
import { withDb } from '../db/org-db.js';
import { storableText } from '../db/storable-text.js';
import { auditStatement, audited } from '../events/audit.js';
import { internalErrorBody, knownError } from '../http/errors.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { ToolCaller, ToolContext, ToolDecl } from '../modules/types.js';
import type { CoreServices } from '../services.js';
import { toolPatternsAllow } from '../auth/machine-tokens.js';
import { unstorableValue } from '../http/validation.js';
import { RemoteTools } from './remote-tools.js';
import type { ToolListing, ToolOutcome } from './tool-types.js';
import { UNKNOWN_TOOL, type Metrics, type ToolCallOutcome } from '../metrics/metrics.js';

export const CALLS_PER_MINUTE = 'mcp.calls_per_minute';

export type RegisteredTool = ToolDecl & { module: string };

export type { ToolListing, ToolOutcome } from './tool-types.js';

/** A tool a caller may call, with the scope that grants it. */
export interface ToolEntry {
  listing: ToolListing;
  scope: string;
  /** The integration whose scope grants it, or null. */
  integration: string | null;
  /** Served from the integration's own MCP server. */
  remote: boolean;
}

/** What a caller may call, and the remote integrations whose tools could not be listed (and why). */
export interface ToolEntries {
  tools: ToolEntry[];
  unavailable: { integration: string; error: string; reason: string | null }[];
}

interface AuditFields { org: OrgSnapshot; caller: ToolCaller; name: string; via: 'mcp' | 'api' }

function auditEntry({ org, caller, name, via }: AuditFields, outcome: ToolOutcome) {
  const result = !outcome.ok ? (outcome.reason ?? `error_${outcome.status}`)
    : 'confirm_required' in outcome ? 'confirm_required'
      : outcome.remote && (outcome.result as { isError?: boolean }).isError === true ? 'tool_error' : 'ok';
  // The name is the caller's: keep it storable, so the audit row is written whatever was sent.
  return { orgId: org.id, actor: caller.actor, action: 'tools.call', details: { tool: storableText(name, 200), result, via } };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const unknownTool = (name: string): ToolOutcome => ({ ok: false, status: 404, error: `Unknown tool "${name}"`, reason: 'unknown_tool' });

/** A call's outcome as the metrics count it. */
function metricOutcome(outcome: ToolOutcome): ToolCallOutcome {
  if (outcome.ok) {
    if ('confirm_required' in outcome) return 'confirm_required';
    return outcome.remote && (outcome.result as { isError?: boolean }).isError === true ? 'tool_error' : 'ok';
  }
  if (outcome.status === 429) return 'rate_limited';
  if (outcome.status === 503) return 'unavailable';
  return outcome.status >= 500 ? 'error' : 'refused';
}

export class ToolService {
  private readonly checks = new WeakMap<object, TypeCheck<TSchema>>();
  /** Built once per tool: the registry does not change while the process runs. */
  private readonly listings = new WeakMap<RegisteredTool, ToolListing>();
  private sorted: RegisteredTool[] | null = null;

  /**
   * Per org, where the limits engine reads limit values and use, remote tools the org's secrets, and a refused
   * call is audited: an EntityManager bound to the org, outside the call's transaction. Kept for the orgs called
   * most recently (a fork and its binding cost more than a cached read).
   */
  private readonly reads = new LRUCache<number, EntityManager>({ max: 1000 });
  /** Remote integrations' tools. */
  readonly remote: RemoteTools;

  constructor(
    private readonly orm: MikroORM, readonly services: CoreServices, private readonly log: FastifyBaseLogger,
    /** Where each call's outcome and time are recorded. Default: nowhere. */
    private readonly metrics?: Metrics,
  ) {
    this.remote = new RemoteTools(services, log);
  }

  private readsOf(orgId: number): EntityManager {
    let em = this.reads.get(orgId);
    if (!em) this.reads.set(orgId, (em = forkFor(this.orm, orgId)));
    return em;
  }

  /** May this token call this tool for this org now? */
  private allowed(tool: RegisteredTool, org: OrgSnapshot, caller: Pick<ToolCaller, 'scopes' | 'limits'>): boolean {
    if (!caller.scopes.includes(tool.scope)) return false;
    if (!this.services.registry.isEnabled(org.modules, tool.module)) return false;
    // A token's limits narrow the tools of a connected service (scopes with an integration).
    const integration = this.services.registry.scopes.get(tool.scope)?.integration;
    return !integration || toolPatternsAllow(caller.limits[integration]?.tools, tool.name);
  }

  /** The local tools (of the modules) this token may call, by name. */
  visible(org: OrgSnapshot, caller: Pick<ToolCaller, 'scopes' | 'limits'>): RegisteredTool[] {
    this.sorted ??= [...this.services.registry.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
    return this.sorted.filter((t) => this.allowed(t, org, caller));
  }

  /** Every tool this token may call, remote ones included, by name (MCP tools/list, GET /api/tools). */
  async list(org: OrgSnapshot, caller: Pick<ToolCaller, 'scopes' | 'limits'>): Promise<ToolListing[]> {
    return (await this.entries(org, caller)).tools.map((e) => e.listing);
  }

  /**
   * Every tool a caller with these scopes and limits may call, with the scope that grants each. A remote server
   * that cannot list its tools leaves them out (named in `unavailable`, and logged): the rest is still served.
   */
  async entries(org: OrgSnapshot, caller: Pick<ToolCaller, 'scopes' | 'limits'>): Promise<ToolEntries> {
    const { registry } = this.services;
    const tools: ToolEntry[] = this.visible(org, caller).map((t) => ({
      listing: this.listing(t), scope: t.scope, integration: registry.scopes.get(t.scope)?.integration ?? null, remote: false,
    }));
    const unavailable: ToolEntries['unavailable'] = [];
    const keys = this.remote.granted(org, caller);
    if (!keys.length) return { tools, unavailable };
    const states = await this.remote.states(this.readsOf(org.id), org.id);
    await Promise.all(keys.map(async (key) => {
      const scope = this.remote.grantingScope(org, caller.scopes, key)!.name;
      try {
        const listing = await this.remote.listing(this.readsOf(org.id), org.id, key, states.get(key)!);
        for (const t of listing?.tools ?? []) {
          if (toolPatternsAllow(caller.limits[key]?.tools, t.name)) tools.push({ listing: t.listing, scope, integration: key, remote: true });
        }
      } catch (err) {
        const known = knownError(err);
        unavailable.push({ integration: key, error: known?.message ?? `${key}: the tools could not be listed`, reason: known?.reason ?? null });
      }
    }));
    tools.sort((a, b) => a.listing.name.localeCompare(b.listing.name));
    unavailable.sort((a, b) => a.integration.localeCompare(b.integration));
    return { tools, unavailable };
  }

  /** Does the tool declare an output schema (its MCP error results then carry text only)? Remote tools: assume so. */
  declaresOutput(name: string): boolean {
    const local = this.services.registry.tools.get(name);
    return local ? local.output !== undefined : this.remote.integrationOf(name) !== null;
  }

  /** How a tool is shown; one frozen object per tool, shared by every request. */
  listing(tool: RegisteredTool): ToolListing {
    let listing = this.listings.get(tool);
    if (!listing) {
      listing = deepFreeze(this.buildListing(tool));
      this.listings.set(tool, listing);
    }
    return listing;
  }

  private buildListing(tool: RegisteredTool): ToolListing {
    const input = structuredClone(tool.input) as Record<string, any>;
    if (tool.confirm) {
      input.properties = { ...input.properties, confirm: { type: 'boolean', description: 'true to act; without it the tool answers confirm_required with a preview' } };
    }
    const title = tool.title ?? tool.name;
    return {
      name: tool.name, title, description: tool.description, inputSchema: input,
      ...(tool.output && { outputSchema: structuredClone(tool.output) as unknown as Record<string, unknown> }),
      annotations: {
        title,
        readOnlyHint: tool.annotations?.readOnly ?? false,
        destructiveHint: tool.annotations?.destructive ?? false,
        idempotentHint: tool.annotations?.idempotent ?? false,
      },
      confirm: tool.confirm ?? false,
    };
  }

  private problem(tool: RegisteredTool, input: unknown): string | null {
    let check = this.checks.get(tool.input);
    if (!check) {
      check = TypeCompiler.Compile(tool.input);
      this.checks.set(tool.input, check);
    }
    // Check first: walking the errors of a valid input costs as much again.
    const first = check.Check(input) ? undefined : check.Errors(input).First();
    if (first) return `${first.path.replace(/^\//, '').replace(/\//g, '.') || 'input'}: ${first.message}`;
    // MCP calls skip Fastify's validator: refuse what PostgreSQL cannot store here too, like every route does.
    const unstorable = unstorableValue(input);
    return unstorable ? `${unstorable.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'input'}: ${unstorable.message}` : null;
  }

  /**
   * Call one tool as `caller` for `org`. Never throws: the outcome says what happened. A tool that fails with an
   * error the core knows answers its status (an unreachable database or service: 503); any other failure answers
   * 500 with `request_id` (the HTTP request's id, or a new one) and no detail, which goes to the error log.
   */
  async call(org: OrgSnapshot, caller: ToolCaller, name: string, args: Record<string, unknown> = {}, via: 'mcp' | 'api' = 'api', requestId: string = randomUUID()): Promise<ToolOutcome> {
    const began = performance.now();
    // Counted under a name the registry or a remote server's listing knows; any other name is `unknown`, so a caller
    // cannot make a series per name it sends.
    const label = { tool: UNKNOWN_TOOL };
    const outcome = await this.dispatch(org, caller, name, args, via, requestId, label);
    this.metrics?.toolCalled(label.tool, metricOutcome(outcome), (performance.now() - began) / 1000);
    return outcome;
  }

  /** `call`, which sets `label.tool` once the name is known to be a tool (local, or listed by its remote server). */
  private async dispatch(org: OrgSnapshot, caller: ToolCaller, name: string, args: Record<string, unknown>, via: 'mcp' | 'api', requestId: string, label: { tool: string }): Promise<ToolOutcome> {
    const tool = this.services.registry.tools.get(name);
    const audit = { org, caller, name, via };
    if (!tool) {
      const integration = this.remote.integrationOf(name);
      return integration ? this.callRemote(audit, integration, args ?? {}, requestId, label) : this.refuse(audit, unknownTool(name));
    }
    label.tool = tool.name;
    const { confirm, ...input } = args ?? {};
    if (!this.allowed(tool, org, caller)) return this.refuse(audit, unknownTool(name));
    const problem = this.problem(tool, input);
    if (problem) return this.refuse(audit, { ok: false, status: 400, error: `Invalid input for ${tool.name}: ${problem}`, reason: 'invalid_input' });
    return this.counted(audit, requestId, async (ctx) => (tool.confirm && confirm !== true
      ? { ok: true, confirm_required: true, preview: tool.preview ? await tool.preview(ctx, input) : { tool: tool.name, input } }
      : { ok: true, result: await tool.handler(ctx, input) }));
  }

  /**
   * A remote tool: refused like a local one (same answer when the token may not see it), counted and audited by the
   * same wrapper; its input checked against the listed schema, then its repositories against the token's repos
   * patterns (repo-limit.ts), before anything is sent. A refusal is rolled back and not counted. Its arguments go to
   * the remote server as they are (a remote tool's own `confirm` included).
   */
  private async callRemote(audit: AuditFields, integration: string, args: Record<string, unknown>, requestId: string, label: { tool: string }): Promise<ToolOutcome> {
    const { org, caller, name } = audit;
    const limits = caller.limits[integration];
    if (!this.remote.grantingScope(org, caller.scopes, integration) || !toolPatternsAllow(limits?.tools, name)) return this.refuse(audit, unknownTool(name));
    return this.counted(audit, requestId, async () => {
      const states = await this.remote.states(this.readsOf(org.id), org.id);
      const listing = await this.remote.listing(this.readsOf(org.id), org.id, integration, states.get(integration)!);
      const tool = listing?.byName.get(name);
      if (!listing || !tool) return unknownTool(name);
      label.tool = name;
      const problem = listing.problem(tool, args);
      if (problem) return { ok: false, status: 400, error: `Invalid input for ${name}: ${problem}`, reason: 'invalid_input' };
      // The repository is read from the arguments the listed schema declares, so the listing comes first.
      const refused = this.remote.repoRefusal(tool, limits?.repos, args);
      if (refused) return refused;
      return { ok: true, result: await this.remote.call(this.readsOf(org.id), org.id, tool, args), remote: true };
    });
  }

  /**
   * Run `work` as one counted call: the rate limit is checked first, outside the transaction (over it nothing
   * runs), and counted last, in it, with the audit row: a call that fails (throws, or answers a refusal) is rolled
   * back and not counted, and the counter row is locked only through the commit, not while the call runs.
   */
  private async counted(audit: AuditFields, requestId: string, work: (ctx: ToolContext) => Promise<ToolOutcome>): Promise<ToolOutcome> {
    const { org, caller, name } = audit;
    const transaction = new DeferredTransaction(poolClient(this.orm), org.id);
    try {
      const use = await this.services.limits.checkRate(this.readsOf(org.id), org.id, CALLS_PER_MINUTE);
      const log = this.log;
      let em: EntityManager | undefined;
      let child: FastifyBaseLogger | undefined;
      const orm = this.orm;
      const ctx: ToolContext = withDb({
        // Made on first use, in the call's transaction, which begins with the first statement sent through it.
        get em() { return (em ??= transaction.enlist(forkFor(orm, org.id))); },
        org, caller, services: this.services,
        // The tool's logger is made on first use: most calls never log.
        get log() { return (child ??= log.child({ tool: name, org: org.id })); },
      });
      const outcome = await work(ctx);
      if (!outcome.ok) {
        await transaction.rollback();
        return this.refuse(audit, outcome);
      }
      // What the tool persisted without flushing is written in the call's transaction too.
      await em?.flush();
      // Counted and audited by one statement, the transaction's last: a call that sent nothing else is that one
      // statement, with no BEGIN or COMMIT.
      await this.services.limits.commitRate((statement) => transaction.last(audited(statement, auditEntry(audit, outcome))), use);
      await transaction.commit();
      return outcome;
    } catch (err) {
      await transaction.rollback();
      const known = knownError(err);
      if (known) {
        if (known !== err) this.log.warn({ err, tool: name }, `tool ${name} answered ${known.statusCode} ${known.reason}`);
        return this.refuse(audit, { ok: false, status: known.statusCode, error: known.message, reason: known.reason, details: known.details });
      }
      const line = `tool ${name} failed: ${(err as Error)?.message}`;
      this.log.error({ err, request_id: requestId }, line);
      // logError never throws: the call is answered and audited whatever happens to the error log.
      await this.services.logError({ orgId: org.id, source: 'request', origin: `tool ${name}`, requestId, error: err, logLine: line });
      const { error, request_id } = internalErrorBody(requestId);
      return this.refuse(audit, { ok: false, status: 500, error, details: { request_id } });
    }
  }

  /** Audit a call that ran nothing (or was rolled back) on its own, and answer it. */
  private async refuse(audit: AuditFields, outcome: ToolOutcome): Promise<ToolOutcome> {
    await rawQueryOn(this.readsOf(audit.org.id))(auditStatement(auditEntry(audit, outcome)))
      .catch((err) => this.log.error({ err }, 'could not audit a tool call'));
    return outcome;
  }
}
