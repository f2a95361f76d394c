// The one wrapper every tool call goes through, over MCP and /api/tools alike: the token's scope, the org's
// module switch and the token's per-integration tool patterns decide what a token sees; an unknown tool and a
// refused one get the same answer, so a token cannot probe. Each call counts against mcp.calls_per_minute,
// runs in one transaction bound to the token's org, and is audited.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import '../http/formats.js';
import type { TSchema } from '@sinclair/typebox';
import { DeferredTransaction } from '../db/deferred-transaction.js';
import { forkFor, rawQuery, type RawQuery } from '../db/orm.js';
import { storableText } from '../db/storable-text.js';
import { auditStatement, audited } from '../events/audit.js';
import { internalErrorBody, knownError } from '../http/errors.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { ToolCaller, ToolDecl } from '../modules/types.js';
import type { CoreServices } from '../services.js';
import { patternRegExp } from '../auth/machine-tokens.js';
import { unstorableValue } from '../http/validation.js';

export const CALLS_PER_MINUTE = 'mcp.calls_per_minute';

export type RegisteredTool = ToolDecl & { module: string };

export type ToolOutcome =
  | { ok: true; result: unknown }
  | { ok: true; confirm_required: true; preview: unknown }
  | { ok: false; status: number; error: string; reason?: string; details?: Record<string, unknown> };

/** How a tool is shown to a client (MCP tools/list and GET /api/tools). */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  confirm: boolean;
}

interface AuditFields { org: OrgSnapshot; caller: ToolCaller; name: string; via: 'mcp' | 'api' }

function auditEntry({ org, caller, name, via }: AuditFields, outcome: ToolOutcome) {
  const result = !outcome.ok ? (outcome.reason ?? `error_${outcome.status}`) : 'confirm_required' in outcome ? 'confirm_required' : 'ok';
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

export class ToolService {
  private readonly checks = new WeakMap<object, TypeCheck<TSchema>>();
  /** Built once per tool: the registry does not change while the process runs. */
  private readonly listings = new WeakMap<RegisteredTool, ToolListing>();
  private sorted: RegisteredTool[] | null = null;

  /** Prepared statements on the ORM's pool, outside any transaction. */
  private readonly pool: RawQuery;
  /** Where the limits engine reads limit values (raw, unfiltered statements; no entity is ever loaded here). */
  private readonly reads: EntityManager;

  constructor(private readonly orm: MikroORM, readonly services: CoreServices, private readonly log: FastifyBaseLogger) {
    this.pool = rawQuery(orm);
    this.reads = forkFor(orm);
  }

  /** May this token call this tool for this org now? */
  private allowed(tool: RegisteredTool, org: OrgSnapshot, caller: ToolCaller): boolean {
    if (!caller.scopes.includes(tool.scope)) return false;
    if (!this.services.registry.isEnabled(org.modules, tool.module)) return false;
    // A token's limits narrow the tools of a connected service (scopes with an integration).
    const integration = this.services.registry.scopes.get(tool.scope)?.integration;
    const patterns = integration ? caller.limits[integration]?.tools : undefined;
    return !patterns || patterns.some((p) => patternRegExp(p).test(tool.name));
  }

  visible(org: OrgSnapshot, caller: ToolCaller): RegisteredTool[] {
    this.sorted ??= [...this.services.registry.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
    return this.sorted.filter((t) => this.allowed(t, org, caller));
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
    const tool = this.services.registry.tools.get(name);
    const { confirm, ...input } = args ?? {};
    const audit = { org, caller, name, via };
    if (!tool || !this.allowed(tool, org, caller)) return this.refuse(audit, unknownTool(name));
    const problem = this.problem(tool, input);
    if (problem) return this.refuse(audit, { ok: false, status: 400, error: `Invalid input for ${tool.name}: ${problem}`, reason: 'invalid_input' });
    const transaction = new DeferredTransaction(this.orm);
    try {
      // Checked first, outside the transaction (over the limit nothing runs), and counted last, in it: a failed
      // call is not counted, and the counter row is locked only through the commit, not while the call runs.
      const use = await this.services.limits.checkRate(this.reads, org.id, CALLS_PER_MINUTE);
      const log = this.log;
      let em: EntityManager | undefined;
      let child: FastifyBaseLogger | undefined;
      const ctx = {
        // Made on first use, in the call's transaction, which begins with the first statement sent through it.
        get em() { return (em ??= transaction.fork(org.id)); },
        org, caller, services: this.services,
        // The tool's logger is made on first use: most calls never log.
        get log() { return (child ??= log.child({ tool: tool.name, org: org.id })); },
      };
      const outcome: ToolOutcome = tool.confirm && confirm !== true
        ? { ok: true, confirm_required: true, preview: tool.preview ? await tool.preview(ctx, input) : { tool: tool.name, input } }
        : { ok: true, result: await tool.handler(ctx, input) };
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
        if (known !== err) this.log.warn({ err, tool: tool.name }, `tool ${tool.name} answered ${known.statusCode} ${known.reason}`);
        return this.refuse(audit, { ok: false, status: known.statusCode, error: known.message, reason: known.reason, details: known.details });
      }
      const line = `tool ${tool.name} failed: ${(err as Error)?.message}`;
      this.log.error({ err, request_id: requestId }, line);
      // logError never throws: the call is answered and audited whatever happens to the error log.
      await this.services.logError({ orgId: org.id, source: 'request', origin: `tool ${tool.name}`, requestId, error: err, logLine: line });
      const { error, request_id } = internalErrorBody(requestId);
      return this.refuse(audit, { ok: false, status: 500, error, details: { request_id } });
    }
  }

  /** Audit a call that ran nothing (or was rolled back) on its own, and answer it. */
  private async refuse(audit: AuditFields, outcome: ToolOutcome): Promise<ToolOutcome> {
    await this.pool(auditStatement(auditEntry(audit, outcome)))
      .catch((err) => this.log.error({ err }, 'could not audit a tool call'));
    return outcome;
  }
}
