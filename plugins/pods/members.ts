// Members of the org's Discord server, as the officers' pod routes show them (spec "Officer pod routes": GET
// /members, /members/roles, /members?ids=, and the names in a pod's member list). Discord's member objects become
// { id, name, username, avatar, roles }; Discord's refusals become this module's answers; names for a set of chat
// user ids are read with as few Discord calls as the bot's permissions allow.
import {
  DiscordRequestError, HttpError, badRequest, displayName, type CoreServices, type OrgDb, type OrgSnapshot,
} from '@quad/core';
import type { PodRow } from './pods.js';

type Discord = CoreServices['discord'];
type DiscordMember = NonNullable<Awaited<ReturnType<Discord['member']>>>;

export interface MemberView { id: string; name: string; username: string; avatar: string | null; roles: string[] }
export interface RoleView { id: string; name: string; color: number }

/** Discord's member search answers at most this many (its maximum); a search with q filters and counts within them. */
const SEARCH_MAX = 1000;
/** Names in one answer (spec "Limits": names in members lists; ids lookup). */
export const NAMES_MAX = 50;
/** Connections shown in a pod's member list (spec "Limits": recent certificates). */
export const RECENT_MAX = 100;
/** Member reads in flight at once when names are read one by one: each read's time budget starts when it is sent. */
const ONE_BY_ONE_AT_ONCE = 5;

function memberView(m: DiscordMember): MemberView {
  return { id: m.user.id, name: displayName(m), username: m.user.username, avatar: m.user.avatar, roles: m.roles };
}

/** The org's Discord server, or 400 `no_server`. */
export function serverOf(org: OrgSnapshot): string {
  if (!org.discordGuildId) throw badRequest('This org is not bound to a Discord server', 'no_server');
  return org.discordGuildId;
}

/**
 * Discord's refusal as this module's answer, never with Discord's own text. A 403 to a member-list read is the bot's
 * missing member-list permission (the Server Members intent; Discord says the same when the bot is not in the
 * server): 424 `member_list_forbidden` saying where to turn it on. Any other refusal: 424 `discord_refused`. 424, not
 * 503: retrying will not help until someone changes a setting. Discord not answering (DiscordUnavailable) is left to
 * the core's 503 `bot_unavailable`.
 */
function discordRefusal(err: unknown, memberList: boolean): unknown {
  if (!(err instanceof DiscordRequestError)) return err;
  if (memberList && err.status === 403) {
    return new HttpError(424, 'Discord refused to list the server\'s members: the bot needs the Server Members intent (Discord Developer Portal → '
      + 'the application → Bot → Privileged Gateway Intents) and must be in the org\'s server', 'member_list_forbidden', { discord_status: 403 });
  }
  return new HttpError(424, 'Discord refused to read the org\'s server (is the bot still in it?)', 'discord_refused', { discord_status: err.status });
}

async function askDiscord<T>(call: () => Promise<T>, memberList = false): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw discordRefusal(err, memberList);
  }
}

/** Snowflake order (numeric, as digit strings): the tie-break that keeps equal names or positions in one order. */
const byId = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
const byName = (a: MemberView, b: MemberView) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || byId(a.id, b.id);

/**
 * Members whose username or nickname starts with `q` (Discord's member search, up to its 1000), or without `q` the
 * whole member list; `role` keeps the holders of one role (the @everyone role, whose id is the server's, keeps all).
 * Bots are left out; sorted by name; `total` counts every match before `limit`.
 */
export async function findMembers(discord: Discord, guildId: string, opts: { q?: string; role?: string; limit: number }) {
  const found = await askDiscord(() => (opts.q ? discord.searchMembers(guildId, opts.q, SEARCH_MAX) : discord.listMembers(guildId)), true);
  const holds = (m: DiscordMember) => opts.role === undefined || opts.role === guildId || m.roles.includes(opts.role);
  const kept = found.filter((m) => !m.user.bot && holds(m)).map(memberView).sort(byName);
  return { members: kept.slice(0, opts.limit), total: kept.length };
}

/**
 * The members among `ids`. Discord has no read by many ids: a few ids are read one by one (a handful of calls at
 * once); more take the member list (one call per 1000 members, whatever the number of ids), or one by one when the
 * bot may not read the list.
 */
async function membersByIds(discord: Discord, guildId: string, ids: readonly string[]): Promise<Map<string, DiscordMember>> {
  const wanted = new Set(ids);
  if (wanted.size > ONE_BY_ONE_AT_ONCE) {
    try {
      return new Map((await discord.listMembers(guildId)).filter((m) => wanted.has(m.user.id)).map((m) => [m.user.id, m]));
    } catch (err) {
      if (!(err instanceof DiscordRequestError && err.status === 403)) throw err;
    }
  }
  const found = new Map<string, DiscordMember>();
  const distinct = [...wanted];
  for (let i = 0; i < distinct.length; i += ONE_BY_ONE_AT_ONCE) {
    const batch = await Promise.all(distinct.slice(i, i + ONE_BY_ONE_AT_ONCE).map((id) => discord.member(guildId, id)));
    for (const m of batch) if (m) found.set(m.user.id, m);
  }
  return found;
}

/**
 * The ids lookup: the members among `ids` (at most NAMES_MAX, checked by the route) in the order asked, bots included
 * since the caller named them, and the ids that are not members of the server. Discord not answering is 503.
 */
export async function lookupMembers(discord: Discord, guildId: string, ids: readonly string[]) {
  const found = await askDiscord(() => membersByIds(discord, guildId, ids), true);
  const distinct = [...new Set(ids)];
  const members = distinct.flatMap((id) => (found.has(id) ? [memberView(found.get(id)!)] : []));
  return { members, total: members.length, unknown: distinct.filter((id) => !found.has(id)) };
}

/** The server's roles, highest first (Discord's position), without @everyone (id = the server's) and bot-managed roles. */
export async function serverRoles(discord: Discord, guildId: string): Promise<RoleView[]> {
  const roles = await askDiscord(() => discord.roles(guildId));
  return roles
    .filter((r) => r.id !== guildId && !r.managed)
    .sort((a, b) => b.position - a.position || byId(a.id, b.id))
    .map(({ id, name, color }) => ({ id, name, color }));
}

/**
 * Display names of the first NAMES_MAX distinct ids; the others, and everyone when the org has no server or Discord
 * fails (passed to `onError`), have none: a list of names is never worth a failed answer.
 */
export async function namesOf(discord: Discord, guildId: string | null | undefined, ids: readonly string[], onError: (err: unknown) => void): Promise<Map<string, string>> {
  const named = [...new Set(ids)].slice(0, NAMES_MAX);
  if (!guildId || !named.length) return new Map();
  try {
    const found = await membersByIds(discord, guildId, named);
    return new Map([...found].map(([id, m]) => [id, displayName(m)]));
  } catch (err) {
    onError(err);
    return new Map();
  }
}

interface ConnectionRow { chat_user_id: string; username: string; is_admin: boolean; created_at: Date | string }

/** The pod's last RECENT_MAX connections (compute_connections: one row per certificate), newest first. */
async function recentConnections(db: OrgDb, podId: string): Promise<ConnectionRow[]> {
  return db.sql<ConnectionRow>`
    select chat_user_id, username, is_admin, created_at from compute_connections
    where ${db.inOrg()} and pod_id = ${podId} order by created_at desc, id desc limit ${RECENT_MAX}`;
}

/**
 * A pod's members: who may use it (is_public, allowed users) and who connected lately, with display names for at
 * most NAMES_MAX of them (allowed users first); a name Discord could not give is null.
 */
export async function podMembers(db: OrgDb, discord: Discord, org: OrgSnapshot, pod: PodRow, onNamesError: (err: unknown) => void) {
  const recent = await recentConnections(db, pod.pod_id);
  const names = await namesOf(discord, org.discordGuildId, [...pod.allowed_users, ...recent.map((r) => r.chat_user_id)], onNamesError);
  const nameOf = (id: string) => names.get(id) ?? null;
  return {
    access: { is_public: pod.is_public, allowed_users: pod.allowed_users.map((id) => ({ chat_user_id: id, name: nameOf(id) })) },
    recent: recent.map((r) => ({
      chat_user_id: r.chat_user_id, name: nameOf(r.chat_user_id), username: r.username, is_admin: r.is_admin, created_at: new Date(r.created_at).toISOString(),
    })),
  };
}
