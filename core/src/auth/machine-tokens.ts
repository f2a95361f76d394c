// Machine tokens: `plat_…` credentials of apps, agents and CLIs. One org each; stored as SHA-256 hash plus the
// first characters; shown once. A token made by another token gets at most its creator's scopes and limits.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { badRequest, forbidden } from '../http/errors.js';
import type { Registry } from '../modules/registry.js';
import { MachineToken, type IntegrationLimits, type MachineTokenEntity } from './entities.js';
import { CLI_TOKEN_DAYS, MACHINE_TOKEN_PREFIX, SHOWN_PREFIX_LENGTH, randomSecret, sha256 } from './secrets.js';
import type { PgListener } from '../db/listener.js';
import type { CoreServices } from '../core-services.js';
import { ORG_CHANGED_CHANNEL } from '../orgs/org-cache.js';

export const TOKEN_KINDS = ['app', 'agent', 'cli'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
export const CLI_SCOPE = 'podhost:connect';
const PATTERN = /^[A-Za-z0-9_.\-/*:]{1,200}$/;
const LAST_USED_EVERY_MS = 60_000;

export interface TokenRequest {
  name: string;
  kind: TokenKind;
  scopes: string[];
  expires_days?: number;
  limits?: Record<string, IntegrationLimits>;
}

/** The creator of a token: an officer, or a machine token holding tokens:manage (which bounds what it may grant). */
export type TokenCreator =
  | { kind: 'officer'; actor: string }
  | { kind: 'machine'; actor: string; scopes: string[]; limits: Record<string, IntegrationLimits> };

export interface IssuedToken { token: string; record: MachineTokenEntity }

/**
 * Does a limits pattern (`acm/*`, `github.get_*`) match `value`? The whole value must match; `*` stands for any run
 * of characters (none included, `/` and `.` too); every other character stands for itself. Patterns hold letters,
 * digits, `_ . - / :` and `*` (PATTERN). `ignoreCase` for repository names, which GitHub compares without case.
 * Greedy matching with one backtrack point: time at most pattern × value, whatever the stars (a RegExp of
 * `*a*a*a…` backtracks exponentially).
 */
export function patternMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  let i = 0, j = 0, star = -1, mark = 0;
  while (j < v.length) {
    if (i < p.length && p[i] !== '*' && p[i] === v[j]) { i++; j++; }
    else if (i < p.length && p[i] === '*') { star = i++; mark = j; }
    else if (star >= 0) { i = star + 1; j = ++mark; }
    else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}

/** Do a token's `tools` patterns of an integration allow this tool? A pattern matches its full name or the name after the first dot. */
export function toolPatternsAllow(patterns: readonly string[] | undefined, name: string): boolean {
  if (!patterns) return true;
  const bare = name.slice(name.indexOf('.') + 1);
  return patterns.some((p) => patternMatches(p, name) || patternMatches(p, bare));
}

/** Is every value `inner` allows also allowed by `outer`? (each inner pattern is matched by an outer one) */
function narrower(inner: string[] | undefined, outer: string[] | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  return inner.every((p) => outer.some((o) => o === p || patternMatches(o, p)));
}

/** Check a create request against the registry and the creator; answers the limits the token gets. */
export function checkTokenRequest(registry: Registry, body: TokenRequest, creator: TokenCreator): Record<string, IntegrationLimits> {
  for (const scope of body.scopes) {
    if (!registry.scopes.has(scope)) throw badRequest(`Unknown scope "${scope}"`, 'unknown_scope', { scope });
  }
  if (new Set(body.scopes).size !== body.scopes.length) throw badRequest('scopes lists a scope twice', 'duplicate_scope');
  const limits = body.limits ?? {};
  for (const [name, value] of Object.entries(limits)) {
    if (!registry.integrations.has(name)) throw badRequest(`limits: unknown integration "${name}"`, 'unknown_integration', { integration: name });
    for (const field of ['repos', 'tools'] as const) {
      for (const pattern of value[field] ?? []) {
        if (!PATTERN.test(pattern)) throw badRequest(`limits.${name}.${field}: "${pattern}" is not a pattern (letters, digits, _ . - / : and *)`, 'invalid_limit_pattern');
      }
    }
  }
  if (creator.kind === 'officer') return limits;
  const extra = body.scopes.filter((s) => !creator.scopes.includes(s));
  if (extra.length) throw forbidden(`A token cannot grant scopes it does not hold: ${extra.join(', ')}`, 'scope_not_held');
  // The new token is at most as wide as its creator, integration by integration.
  const merged: Record<string, IntegrationLimits> = { ...limits };
  for (const [name, outer] of Object.entries(creator.limits)) {
    const inner = limits[name] ?? {};
    const result: IntegrationLimits = {};
    for (const field of ['repos', 'tools'] as const) {
      const wanted = inner[field] ?? outer[field];
      if (!narrower(wanted, outer[field])) throw forbidden(`limits.${name}.${field} is wider than the creating token's`, 'limit_not_held');
      if (wanted) result[field] = wanted;
    }
    merged[name] = result;
  }
  return merged;
}

function newToken(): { token: string; hash: string; prefix: string } {
  const token = `${MACHINE_TOKEN_PREFIX}${randomSecret(32)}`;
  return { token, hash: sha256(token), prefix: token.slice(0, SHOWN_PREFIX_LENGTH) };
}

const days = (n: number) => new Date(Date.now() + n * 86_400_000);

/** Create a token in `orgId` (in the caller's transaction). The plain token is returned once. */
export async function createMachineToken(
  em: EntityManager, orgId: number, fields: { name: string; kind: TokenKind; scopes: string[]; limits: Record<string, IntegrationLimits>; expiresDays?: number; createdBy: string; memberChatUserId?: string },
): Promise<IssuedToken> {
  const { token, hash, prefix } = newToken();
  const record = em.create(MachineToken, {
    organization: orgId,
    name: fields.name,
    kind: fields.kind,
    scopes: fields.scopes,
    limits: fields.limits,
    tokenHash: hash,
    tokenPrefix: prefix,
    createdBy: fields.createdBy,
    memberChatUserId: fields.memberChatUserId ?? null,
    expiresAt: fields.expiresDays ? days(fields.expiresDays) : null,
  });
  await em.flush();
  return { token, record };
}

/**
 * A CLI token for one member of an org: kind cli, scope podhost:connect, 90 days. Issuing one revokes the
 * member's previous CLI tokens in that org. For the pods module's CLI sign-in.
 */
export async function issueCliToken(em: EntityManager, orgId: number, member: { chatUserId: string; name: string }): Promise<IssuedToken> {
  const issued = await em.transactional(async (tem) => {
    await tem.nativeUpdate(MachineToken, { organization: orgId, kind: 'cli', memberChatUserId: member.chatUserId, revokedAt: null }, { revokedAt: new Date() }, { filters: false });
    return createMachineToken(tem, orgId, {
      name: member.name, kind: 'cli', scopes: [CLI_SCOPE], limits: {}, expiresDays: CLI_TOKEN_DAYS,
      createdBy: `member:${member.chatUserId}`, memberChatUserId: member.chatUserId,
    });
  });
  // The revoked ones are refused at once in this process too (not only when the NOTIFY arrives).
  forgetMachineToken();
  return issued;
}

/** A verified token as the callers see it: a frozen snapshot of its row, shared by the requests of a process. */
export type VerifiedMachineToken = Readonly<Pick<MachineTokenEntity,
  'id' | 'name' | 'kind' | 'scopes' | 'limits' | 'tokenPrefix' | 'createdBy' | 'memberChatUserId' | 'createdAt' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'>>
  & { readonly organization: { readonly id: number } };

export type MachineTokenCheck =
  | { ok: true; token: VerifiedMachineToken }
  | { ok: false; why: 'unknown' | 'revoked' | 'expired' };

export const MACHINE_TOKEN_CHANGED_CHANNEL = 'quad_machine_token_changed';
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

interface TokenRow {
  id: number; organization_id: number; name: string; kind: string; scopes: string[]; limits: Record<string, IntegrationLimits>;
  token_prefix: string; created_by: string; member_chat_user_id: string | null;
  created_at: Date | string; expires_at: Date | string | null; revoked_at: Date | string | null; last_used_at: Date | string | null;
}

// The ORM's pg connections hand timestamps over as text.
const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

/** Where tokens are looked up: the cross-org path (a presented token names its org; the org is not known before). */
export type TokenLookup = Pick<CoreServices, 'acrossOrgs'>;

async function lookUp(db: TokenLookup, hash: string): Promise<VerifiedMachineToken | null> {
  const row = await db.acrossOrgs('core.machine_token', (all) => all.one<TokenRow>`
    select id, organization_id, name, kind, scopes, limits, token_prefix, created_by, member_chat_user_id,
       created_at, expires_at, revoked_at, last_used_at
     from machine_tokens where token_hash = ${hash}`);
  if (!row) return null;
  return Object.freeze({
    id: row.id, organization: Object.freeze({ id: row.organization_id }), name: row.name, kind: row.kind,
    scopes: Object.freeze([...row.scopes]) as string[], limits: Object.freeze(row.limits ?? {}), tokenPrefix: row.token_prefix,
    createdBy: row.created_by, memberChatUserId: row.member_chat_user_id, createdAt: new Date(row.created_at),
    expiresAt: dateOrNull(row.expires_at), revokedAt: dateOrNull(row.revoked_at), lastUsedAt: dateOrNull(row.last_used_at),
  });
}

function check(token: VerifiedMachineToken | null): MachineTokenCheck {
  if (!token) return { ok: false, why: 'unknown' };
  if (token.revokedAt) return { ok: false, why: 'revoked' };
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return { ok: false, why: 'expired' };
  return { ok: true, token };
}

const caches = new Set<WeakRef<MachineTokenCache>>();

/**
 * Drop a token (or every token) from the caches of this process at once, after committing a change to it. Other
 * processes hear the trigger's NOTIFY (migrations/0008); so does this one, a moment later.
 */
export function forgetMachineToken(id?: number) {
  for (const ref of caches) {
    const cache = ref.deref();
    if (cache) cache.forget(id);
    else caches.delete(ref);
  }
}

/**
 * Verified tokens per process, keyed by the token's SHA-256 (what is stored), for 30 s. A change to a token
 * (revoked, expired, deleted) drops it in every process through NOTIFY, and at once in the process that made it
 * (forgetMachineToken); a change to its org drops the org's tokens. While the listener is down the cache is
 * bypassed; past 10,000 tokens the least recently used go first. last_used_at is written at most once a minute per
 * token and process.
 */
export class MachineTokenCache {
  private readonly entries = new LRUCache<string, VerifiedMachineToken>({ max: CACHE_MAX_ENTRIES, ttl: CACHE_TTL_MS });
  /** When this process last wrote each token's last_used_at. */
  private readonly touched = new LRUCache<number, number>({ max: CACHE_MAX_ENTRIES });
  /** Bumped by every drop: a lookup that started before a drop does not store what it read. */
  private generation = 0;

  constructor(private readonly listener: PgListener) {
    caches.add(new WeakRef(this));
    listener.subscribe({
      channel: MACHINE_TOKEN_CHANGED_CHANNEL,
      onMessage: (payload) => this.forget(Number(payload)),
      onConnect: async () => this.forget(),
    });
    listener.subscribe({ channel: ORG_CHANGED_CHANNEL, onMessage: (payload) => this.forgetOrg(Number(payload)) });
  }

  /** `db` serves the lookups a cache miss and last_used_at need. */
  async verify(db: TokenLookup, presented: string): Promise<MachineTokenCheck> {
    if (!presented.startsWith(MACHINE_TOKEN_PREFIX)) return { ok: false, why: 'unknown' };
    const hash = sha256(presented);
    let token = (this.listener.healthy ? this.entries.get(hash) : undefined) ?? null;
    if (!token) {
      const generation = this.generation;
      token = await lookUp(db, hash);
      if (token && this.listener.healthy && generation === this.generation) this.entries.set(hash, token);
    }
    const result = check(token);
    if (result.ok) await this.touch(db, result.token);
    return result;
  }

  private async touch(db: TokenLookup, token: VerifiedMachineToken) {
    const now = Date.now();
    const last = Math.max(token.lastUsedAt?.getTime() ?? 0, this.touched.get(token.id) ?? 0);
    if (now - last <= LAST_USED_EVERY_MS) return;
    this.touched.set(token.id, now);
    // An autocommit update outside the caller's transaction (last_used_at is not a credential: no NOTIFY).
    await db.acrossOrgs('core.machine_token', (all) => all.run`update machine_tokens set last_used_at = now() where id = ${token.id}`);
  }

  /** Drop one token by id, or all. */
  forget(id?: number) {
    this.generation++;
    if (id === undefined || Number.isNaN(id)) {
      this.entries.clear();
      return;
    }
    this.drop((token) => token.id === id);
  }

  private forgetOrg(orgId: number) {
    this.generation++;
    this.drop((token) => token.organization.id === orgId);
  }

  private drop(matches: (token: VerifiedMachineToken) => boolean) {
    const hashes = [...this.entries.entries()].filter(([, token]) => matches(token)).map(([hash]) => hash);
    for (const hash of hashes) this.entries.delete(hash);
  }
}

/** The public view of a token record: never its hash. */
export function tokenView(t: MachineTokenEntity) {
  return {
    id: t.id,
    name: t.name,
    kind: t.kind,
    scopes: t.scopes,
    limits: t.limits,
    prefix: t.tokenPrefix,
    created_by: t.createdBy,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    revoked: t.revokedAt != null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}
