// Machine tokens: `plat_…` credentials of apps, agents and CLIs. One org each; stored as SHA-256 hash plus the
// first characters; shown once. A token made by another token gets at most its creator's scopes and limits.
import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest, forbidden } from '../http/errors.js';
import type { Registry } from '../modules/registry.js';
import { MachineToken, type IntegrationLimits, type MachineTokenEntity } from './entities.js';
import { CLI_TOKEN_DAYS, MACHINE_TOKEN_PREFIX, SHOWN_PREFIX_LENGTH, randomSecret, sha256 } from './secrets.js';

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

/** A glob-ish pattern (`owner/*`, `github.*`) as a RegExp. */
export function patternRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** Is every value `inner` allows also allowed by `outer`? (each inner pattern is matched by an outer one) */
function narrower(inner: string[] | undefined, outer: string[] | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  return inner.every((p) => outer.some((o) => o === p || patternRegExp(o).test(p)));
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
  return em.transactional(async (tem) => {
    await tem.nativeUpdate(MachineToken, { organization: orgId, kind: 'cli', memberChatUserId: member.chatUserId, revokedAt: null }, { revokedAt: new Date() }, { filters: false });
    return createMachineToken(tem, orgId, {
      name: member.name, kind: 'cli', scopes: [CLI_SCOPE], limits: {}, expiresDays: CLI_TOKEN_DAYS,
      createdBy: `member:${member.chatUserId}`, memberChatUserId: member.chatUserId,
    });
  });
}

export type MachineTokenCheck =
  | { ok: true; token: MachineTokenEntity }
  | { ok: false; why: 'unknown' | 'revoked' | 'expired' };

/** Look a presented token up by its hash (across orgs: the token names its org). Touches last_used_at at most once a minute. */
export async function verifyMachineToken(em: EntityManager, presented: string): Promise<MachineTokenCheck> {
  if (!presented.startsWith(MACHINE_TOKEN_PREFIX)) return { ok: false, why: 'unknown' };
  const token = await em.findOne(MachineToken, { tokenHash: sha256(presented) }, { filters: false });
  if (!token) return { ok: false, why: 'unknown' };
  if (token.revokedAt) return { ok: false, why: 'revoked' };
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return { ok: false, why: 'expired' };
  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > LAST_USED_EVERY_MS) {
    await em.nativeUpdate(MachineToken, { id: token.id }, { lastUsedAt: new Date() }, { filters: false });
  }
  return { ok: true, token };
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
