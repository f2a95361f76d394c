// The limits engine: count limits (reserve, 409) and rate limits (consume, 429) declared by manifests.
// A limit's value for an org is, first that is set: the org override (org_limits), the setting LIMIT_<KEY>,
// the manifest default; null means no limit. Rate counters live in usage_counters, one row per org, key and
// UTC window, and are written on the caller's transaction so a rolled-back request is not counted.
import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../config/load.js';
import { conflict, tooManyRequests } from '../http/errors.js';
import type { PgListener } from '../db/listener.js';
import { forkBoundTo, type RawQuery } from '../db/orm.js';
import { orgDbFor } from '../db/org-db.js';
import { prepared, sql } from '../db/sql.js';
import type { QuadEntityManager } from '../db/entity-manager.js';
import type {
  CountUse, PendingRateUse, LimitKind, LimitReportEntry, LimitsService, LimitValue, LimitWindow, ModuleRegistry, OverrideValue, RateUse,
} from '../core-services.js';
import type { LimitDecl } from '../modules/types.js';

export type {
  LimitKind, LimitWindow, PaidBy, LimitSource, LimitValue, OverrideValue, RateUse, CountUse, LimitReportEntry, PendingRateUse,
} from '../core-services.js';

export const ORG_LIMITS_CHANGED_CHANNEL = 'quad_org_limits_changed';
const OVERRIDES_TTL_MS = 30_000;
const OVERRIDES_MAX_ORGS = 10_000;

/** Largest value a limit or counter holds (PostgreSQL integer). */
export const MAX_LIMIT = 2_147_483_647;

/**
 * Below this share of a rate limit's value, checkRate trusts the use this process last saw counted in the window
 * (the count a commit answered) and reads nothing (see checkRate).
 */
const TRUSTED_SHARE = 0.5;

/** Use at or above this share of the value marks a limit as near (superadmin list). */
export const NEAR_LIMIT_SHARE = 0.8;

const WINDOW_MS: Record<LimitWindow, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Start of the UTC window holding `at` (UTC has no daylight saving: windows are fixed lengths). */
export function windowStart(window: LimitWindow, at: Date): Date {
  const ms = WINDOW_MS[window];
  return new Date(Math.floor(at.getTime() / ms) * ms);
}

/** End of the UTC window holding `at` (the start of the next one). */
export function windowEnd(window: LimitWindow, at: Date): Date {
  return new Date(windowStart(window, at).getTime() + WINDOW_MS[window]);
}

/** The setting that overrides a key's default: `knowledge.sources` → `LIMIT_KNOWLEDGE_SOURCES`. */
export function limitSettingName(key: string): string {
  return `LIMIT_${key.toUpperCase().replace(/\./g, '_')}`;
}

/** A LIMIT_<KEY> value: a whole number ≥ 0 (number or digits) or the word `unlimited` (null). */
export function parseLimitSetting(raw: unknown): { ok: true; value: number | null } | { ok: false } {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= MAX_LIMIT) return { ok: true, value: raw };
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (/^unlimited$/i.test(text)) return { ok: true, value: null };
    if (/^\d+$/.test(text) && Number(text) <= MAX_LIMIT) return { ok: true, value: Number(text) };
  }
  return { ok: false };
}

type Decl = LimitDecl & { module: string };
type SettingState = { set: false } | { set: true; value: number | null } | { set: true; problem: string };

export interface LimitsEngineOptions {
  /** The clock that picks rate windows. Default: the system clock. Tests pass a fixed one. */
  now?: () => Date;
}

export class LimitsEngine implements LimitsService {
  private readonly settings = new Map<string, SettingState>();
  private readonly now: () => Date;
  /** Each org's overrides, per process, while a listener hears changes (listen()); least recently used go first. */
  private readonly cached = new LRUCache<number, Map<string, OverrideValue>>({ max: OVERRIDES_MAX_ORGS, ttl: OVERRIDES_TTL_MS });
  private listener: PgListener | null = null;
  /** Bumped by every drop: a read that started before a drop does not store what it read. */
  private generation = 0;
  /** Per org and rate key, the use last seen counted (by any process) and the window it was in. */
  private readonly seenUse = new LRUCache<string, { windowStart: number; use: number }>({ max: OVERRIDES_MAX_ORGS });

  constructor(readonly registry: ModuleRegistry, readonly raw: (name: string) => unknown, options: LimitsEngineOptions = {}) {
    this.now = options.now ?? (() => new Date());
    for (const key of registry.limits.keys()) {
      const name = limitSettingName(key);
      const value = raw(name);
      if (value === undefined) {
        this.settings.set(key, { set: false });
        continue;
      }
      const parsed = parseLimitSetting(value);
      this.settings.set(key, parsed.ok
        ? { set: true, value: parsed.value }
        : { set: true, problem: `${name}: must be a whole number from 0 to ${MAX_LIMIT} or "unlimited" (got ${JSON.stringify(value) ?? typeof value})` });
    }
  }

  /**
   * Cache each org's overrides in this process: setOverrides drops the org at once here and NOTIFYs the others
   * on commit. While the listener is down, every read goes to the database.
   */
  listen(listener: PgListener) {
    this.listener = listener;
    listener.subscribe({
      channel: ORG_LIMITS_CHANGED_CHANNEL,
      onMessage: (payload) => this.forget(Number(payload)),
      onConnect: async () => this.forget(),
    });
  }

  private forget(orgId?: number) {
    this.generation++;
    if (orgId === undefined || Number.isNaN(orgId)) this.cached.clear();
    else this.cached.delete(orgId);
  }

  /** The org's overrides, from this process's cache when it can be trusted. */
  private async cachedOverrides(em: EntityManager, orgId: number): Promise<Map<string, OverrideValue>> {
    if (!this.listener?.healthy) return this.overrides(em, orgId);
    const hit = this.cached.get(orgId);
    if (hit) return hit;
    const generation = this.generation;
    const overrides = await this.overrides(em, orgId);
    if (this.listener.healthy && generation === this.generation) {
      this.cached.set(orgId, overrides);
    }
    return overrides;
  }

  /** Every bad LIMIT_<KEY> setting of a declared limit, one line each (empty when all are good). */
  settingProblems(): string[] {
    return [...this.settings.values()].flatMap((s) => (s.set && 'problem' in s ? [s.problem] : []));
  }

  /** Throw a ConfigError naming every bad LIMIT_<KEY> setting. The core calls this at start. */
  checkSettings(): void {
    const problems = this.settingProblems();
    if (problems.length) throw new ConfigError(problems);
  }

  /** The declaration of a key; a programming error (plain Error) when no loaded module declares it. */
  decl(key: string): Decl {
    const decl = this.registry.limits.get(key);
    if (!decl) throw new Error(`limits: no loaded module declares the limit "${key}"`);
    return decl;
  }

  private declOf(key: string, kind: LimitKind, method: string): Decl {
    const decl = this.decl(key);
    if (decl.kind !== kind) {
      throw new Error(`limits: ${method}() takes a ${kind} limit; "${key}" is a ${decl.kind} limit (use ${decl.kind === 'count' ? 'reserve' : 'consume'}())`);
    }
    return decl;
  }

  private settingValue(key: string): { set: false } | { set: true; value: number | null } {
    const state = this.settings.get(key) ?? { set: false };
    if (state.set && 'problem' in state) throw new ConfigError([state.problem]);
    return state;
  }

  /** Resolve a key's value from the org's overrides (as loaded), the setting and the default. */
  private resolve(decl: Decl, overrides: Map<string, OverrideValue>): LimitValue {
    if (overrides.has(decl.key)) return { value: overrides.get(decl.key)!, source: 'override' };
    const setting = this.settingValue(decl.key);
    if (setting.set) return { value: setting.value, source: 'setting' };
    return { value: decl.default, source: 'default' };
  }

  /** The org's overrides (org_limits rows) by key; a null value is "no limit". */
  async overrides(em: EntityManager, orgId: number, key?: string): Promise<Map<string, OverrideValue>> {
    const db = orgDbFor(em, orgId);
    const rows = await db.sql<{ key: string; value: number | null }>`
      select key, value from org_limits where ${db.inOrg()}${key === undefined ? sql`` : sql` and key = ${key}`}`;
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /** The value in force for an org: its override, else LIMIT_<KEY>, else the manifest default (null: no limit). */
  async value(em: EntityManager, orgId: number, key: string): Promise<LimitValue> {
    const decl = this.decl(key);
    return this.resolve(decl, this.listener ? await this.cachedOverrides(em, orgId) : await this.overrides(em, orgId, key));
  }

  /**
   * Count `amount` uses of a rate limit in the current UTC window, or refuse with 429 (`rate_limited`) and
   * count nothing. Runs on `em`, so inside a transaction the count is kept only if the transaction commits.
   * With no limit the use is still counted (and shown) but never refused. The 429 leaves the transaction usable.
   */
  async consume(em: EntityManager, orgId: number, key: string, amount = 1): Promise<RateUse> {
    const decl = this.declOf(key, 'rate', 'consume');
    checkAmount(key, amount);
    const window = decl.window!;
    const now = this.now();
    const start = windowStart(window, now);
    const end = windowEnd(window, now);
    const { value } = await this.value(em, orgId, key);
    const refuse = () => {
      const retryAfter = Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
      return tooManyRequests(
        `Rate limit ${key} reached: ${value} a ${window}; try again in ${retryAfter} s`,
        'rate_limited',
        { limit: key, value, window, retry_after: retryAfter },
      );
    };
    if (amount === 0) return { use: await this.rateUse(em, orgId, key, start), value, window, window_start: start, resets_at: end };
    if (value !== null && amount > value) throw refuse();
    const db = orgDbFor(em, orgId);
    const rows = await db.sql<{ count: number }>`
      insert into usage_counters (organization_id, key, window_start, count) values (${db.org}, ${key}, ${start.toISOString()}::timestamptz, ${amount})
      on conflict (organization_id, key, window_start) do update set count = usage_counters.count + excluded.count
      ${value === null ? sql`` : sql`where usage_counters.count + excluded.count <= ${value}`}
      returning count`;
    if (!rows.length) {
      this.saw(orgId, key, start, value!);
      throw refuse();
    }
    this.saw(orgId, key, start, Number(rows[0].count));
    return { use: Number(rows[0].count), value, window, window_start: start, resets_at: end };
  }

  /**
   * For a call that counts at its end (tool calls): does `amount` more fit in the current window? Refuses with 429
   * (`rate_limited`) when it does not, and counts nothing. The use is counted by commitRate, which checks again
   * under the row lock: this check only spares running a call that could not be counted, so it may be out of date.
   * While the use this process last saw counted in the window (a commit's answer) is below half the value, it is
   * trusted and nothing is read: other processes would have to make half the limit's calls since then for the call
   * to run and be refused. Otherwise the use is read without a lock, as one prepared statement outside the call's
   * transaction (`em` serves it and the limit's value), so nothing waits.
   */
  async checkRate(em: EntityManager, orgId: number, key: string, amount = 1): Promise<PendingRateUse> {
    const decl = this.declOf(key, 'rate', 'checkRate');
    checkAmount(key, amount);
    const window = decl.window!;
    const now = this.now();
    const pending: PendingRateUse = {
      orgId, key, amount, value: (await this.value(em, orgId, key)).value, window, window_start: windowStart(window, now), resets_at: windowEnd(window, now),
    };
    if (pending.value === null) return pending;
    if (amount > pending.value) throw this.rateRefusal(pending);
    const seen = this.seenUse.get(`${orgId}:${key}`);
    if (seen?.windowStart === pending.window_start.getTime() && seen.use + amount <= pending.value * TRUSTED_SHARE) return pending;
    const db = orgDbFor(em, orgId);
    const { rows: [row] } = await db.prepared<{ count: number }>(prepared('quad_rate_use', sql`
      select count from usage_counters where ${db.inOrg()} and key = ${key} and window_start = ${pending.window_start.toISOString()}`));
    const use = row ? Number(row.count) : 0;
    this.saw(orgId, key, pending.window_start, use);
    if (use + amount > pending.value) throw this.rateRefusal(pending);
    return pending;
  }

  /** Remember the use of a rate key seen counted in a window (checkRate's trust). */
  private saw(orgId: number, key: string, windowStart: Date, use: number) {
    this.seenUse.set(`${orgId}:${key}`, { windowStart: windowStart.getTime(), use });
  }

  /**
   * Count a use checked by checkRate, as the last statement of the call's transaction (`query` runs it there):
   * the conditional increment takes the counter row's lock, held only through the commit, so calls of one org do
   * not wait on each other while they run. A concurrent call that counted first and left no room makes this one
   * 429 (roll back: nothing of it is kept or counted). The limit is never exceeded: the increment's condition is
   * re-checked under the lock.
   */
  async commitRate(query: RawQuery, pending: PendingRateUse): Promise<RateUse> {
    const { orgId, key, amount, value, window } = pending;
    const rows = await query<{ count: number }>(prepared('quad_rate_commit', sql`
      insert into usage_counters (organization_id, key, window_start, count) values (${orgId}, ${key}, ${pending.window_start.toISOString()}, ${amount})
      on conflict (organization_id, key, window_start) do update set count = usage_counters.count + excluded.count
      where ${value}::integer is null or usage_counters.count + excluded.count <= ${value}::integer
      returning count`));
    if (!rows.length) {
      // Full, as far as this process knows: the next check reads again.
      if (value !== null) this.saw(orgId, key, pending.window_start, value);
      throw this.rateRefusal(pending);
    }
    this.saw(orgId, key, pending.window_start, Number(rows[0].count));
    return { use: Number(rows[0].count), value, window, window_start: pending.window_start, resets_at: pending.resets_at };
  }

  private rateRefusal({ key, value, window, resets_at }: PendingRateUse) {
    const retryAfter = Math.max(1, Math.ceil((resets_at.getTime() - this.now().getTime()) / 1000));
    return tooManyRequests(
      `Rate limit ${key} reached: ${value} a ${window}; try again in ${retryAfter} s`,
      'rate_limited',
      { limit: key, value, window, retry_after: retryAfter },
    );
  }

  /**
   * Check that `amount` more things fit under a count limit, or refuse with 409 (`limit_reached`). Call it inside
   * the transaction that then inserts them, before creating the entities: it takes a transaction-scoped advisory
   * lock on (org, key), so concurrent creates of the org wait until this transaction ends and then count again.
   * The transaction must be READ COMMITTED (PostgreSQL's default).
   */
  async reserve(em: EntityManager, orgId: number, key: string, amount = 1): Promise<CountUse> {
    const decl = this.declOf(key, 'count', 'reserve');
    checkAmount(key, amount);
    if (!em.isInTransaction()) {
      throw new Error(`limits: reserve("${key}") must run inside the transaction that inserts (em.transactional)`);
    }
    const { value } = await this.value(em, orgId, key);
    if (value === null) return { use: null, value: null };
    await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`quad.limits:${orgId}:${key}`]);
    const use = await this.count(decl, em, orgId);
    if (use + amount > value) {
      throw conflict(`Limit ${key} reached: the org has ${use} of ${value}`, 'limit_reached', { limit: key, value, use });
    }
    return { use, value };
  }

  /** Counts: how many the org has (the declaration's count). Rates: use in the current window. */
  async usage(em: EntityManager, orgId: number, key: string): Promise<number> {
    const decl = this.decl(key);
    if (decl.kind === 'count') return this.count(decl, em, orgId);
    return this.rateUse(em, orgId, key, windowStart(decl.window!, this.now()));
  }

  /**
   * Run a declaration's count bound to `orgId`, not seeing the caller's unflushed entities: on a fork of `em` that
   * keeps its transaction when `em` is bound to that org, else on a fresh fork bound to it (a superadmin's report,
   * the cross-org path), whose statements row-level security keeps in the org.
   */
  private async count(decl: Decl, em: EntityManager, orgId: number): Promise<number> {
    const fork = (em as QuadEntityManager).boundOrgId === orgId ? em.fork({ keepTransactionContext: true }) : forkBoundTo(em, orgId);
    return Number(await decl.count!(fork, orgId));
  }

  private async rateUse(em: EntityManager, orgId: number, key: string, start: Date): Promise<number> {
    const db = orgDbFor(em, orgId);
    const row = await db.one<{ count: number }>`
      select count from usage_counters where ${db.inOrg()} and key = ${key} and window_start = ${start.toISOString()}::timestamptz`;
    return row ? Number(row.count) : 0;
  }

  /** Every limit of the modules that are on for the org, with its value, where the value comes from and the use. */
  async report(em: EntityManager, org: { id: number; modules: Readonly<Record<string, boolean>> }): Promise<LimitReportEntry[]> {
    const decls = [...this.registry.limits.values()].filter((d) => this.registry.isEnabled(org.modules as Record<string, boolean>, d.module));
    if (!decls.length) return [];
    const overrides = await this.overrides(em, org.id);
    const now = this.now();
    // Every current window starts on or after the current day's start: one read for all rate counters.
    const db = orgDbFor(em, org.id);
    const counters = decls.some((d) => d.kind === 'rate')
      ? await db.sql<{ key: string; window_start: Date | string; count: number }>`
        select key, window_start, count from usage_counters where ${db.inOrg()} and window_start >= ${windowStart('day', now).toISOString()}::timestamptz`
      : [];
    const counted = new Map(counters.map((c) => [`${c.key}@${new Date(c.window_start).getTime()}`, Number(c.count)]));
    const entries: LimitReportEntry[] = [];
    for (const decl of decls) {
      const { value, source } = this.resolve(decl, overrides);
      const window = decl.window ?? null;
      const use = decl.kind === 'count'
        ? await this.count(decl, em, org.id)
        : counted.get(`${decl.key}@${windowStart(window!, now).getTime()}`) ?? 0;
      entries.push({
        key: decl.key,
        module: decl.module,
        kind: decl.kind,
        window,
        value,
        source,
        default: decl.default,
        use,
        paid_by: decl.paidBy ?? (decl.kind === 'count' ? 'org' : 'metered'),
        integrations: [...(decl.integrations ?? [])],
        description: decl.description,
        resets_at: window ? windowEnd(window, now).toISOString() : null,
        near_limit: value !== null && use >= NEAR_LIMIT_SHARE * value,
      });
    }
    return entries;
  }

  /**
   * Apply overrides for an org on `em` (call inside a transaction): a number or null sets the override,
   * `default` removes it. Keys must be declared (plain Error otherwise; routes validate first).
   * Answers each key's override before and after (`default` when there was none).
   */
  async setOverrides(
    em: EntityManager, orgId: number, changes: Record<string, OverrideValue | 'default'>, actor: string,
  ): Promise<{ key: string; from: OverrideValue | 'default'; to: OverrideValue | 'default' }[]> {
    const keys = Object.keys(changes);
    keys.forEach((key) => this.decl(key));
    if (!keys.length) return [];
    const db = orgDbFor(em, orgId);
    const before = await db.sql<{ key: string; value: number | null }>`
      select key, value from org_limits where ${db.inOrg()} and key = any(${keys}::text[]) for update`;
    const old = new Map(before.map((r) => [r.key, r.value]));
    const applied: { key: string; from: OverrideValue | 'default'; to: OverrideValue | 'default' }[] = [];
    for (const key of keys) {
      const to = changes[key];
      const from = old.has(key) ? old.get(key)! : 'default';
      if (to === 'default') {
        await db.run`delete from org_limits where ${db.inOrg()} and key = ${key}`;
      } else {
        if (to !== null && !(Number.isInteger(to) && to >= 0 && to <= MAX_LIMIT)) throw new Error(`limits: bad override for "${key}": ${to}`);
        await db.run`
          insert into org_limits (organization_id, key, value, updated_by) values (${db.org}, ${key}, ${to}, ${actor})
          on conflict (organization_id, key) do update set value = excluded.value, updated_by = excluded.updated_by, updated_at = now()`;
      }
      if (from !== to) applied.push({ key, from, to });
    }
    // This process drops the org's cached overrides now; the others when the transaction commits.
    this.forget(orgId);
    await em.execute('select pg_notify(?, ?)', [ORG_LIMITS_CHANGED_CHANNEL, String(orgId)]);
    return applied;
  }
}

function checkAmount(key: string, amount: number) {
  if (!Number.isInteger(amount) || amount < 0 || amount > MAX_LIMIT) {
    throw new Error(`limits: the amount for "${key}" must be a whole number ≥ 0 (got ${amount})`);
  }
}
