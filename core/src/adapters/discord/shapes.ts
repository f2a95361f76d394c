// Discord's answers checked at run time: its objects carry many more fields; these keep only what Quad uses and
// treat a wrong shape as Discord misbehaving (unavailable) rather than letting undefined leak into callers.
import { DiscordUnavailable } from './errors.js';
import type { Json } from './policy.js';
import type { DiscordGuild, DiscordMember, DiscordRole, DiscordTokens, DiscordUser } from './types.js';

function bad(what: string): never {
  throw new DiscordUnavailable(`Discord sent an unexpected ${what}`);
}
export function record(v: unknown, what: string): Json {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : bad(what);
}
export function list(v: unknown, what: string): unknown[] {
  return Array.isArray(v) ? v : bad(`${what} list`);
}
export function str(o: Json, key: string): string {
  const v = o[key];
  return typeof v === 'string' ? v : bad(`value for ${key}`);
}
function num(o: Json, key: string): number {
  const v = o[key];
  return typeof v === 'number' ? v : bad(`value for ${key}`);
}
function strOrNull(o: Json, key: string): string | null {
  const v = o[key];
  return typeof v === 'string' ? v : v === null || v === undefined ? null : bad(`value for ${key}`);
}

export function toUser(v: unknown): DiscordUser {
  const o = record(v, 'user');
  const user: DiscordUser = { id: str(o, 'id'), username: str(o, 'username'), global_name: strOrNull(o, 'global_name'), avatar: strOrNull(o, 'avatar') };
  // Discord sends `bot` only on bot accounts; kept only then, so a person's user object stays as it was.
  if (o.bot === true) user.bot = true;
  return user;
}
export function toMember(v: unknown): DiscordMember {
  const o = record(v, 'member');
  const roles = list(o.roles, 'role id').map((r) => (typeof r === 'string' ? r : bad('role id')));
  return { user: toUser(o.user), nick: strOrNull(o, 'nick'), roles, joined_at: strOrNull(o, 'joined_at') ?? '' };
}
export function toRole(v: unknown): DiscordRole {
  const o = record(v, 'role');
  return { id: str(o, 'id'), name: str(o, 'name'), color: num(o, 'color'), position: num(o, 'position'), managed: o.managed === true };
}
export function toGuild(v: unknown): DiscordGuild {
  const o = record(v, 'guild');
  return { id: str(o, 'id'), name: str(o, 'name'), icon: strOrNull(o, 'icon') };
}
export function toTokens(v: unknown): DiscordTokens {
  const o = record(v, 'POST /oauth2/token');
  return {
    access_token: str(o, 'access_token'), token_type: str(o, 'token_type'), expires_in: num(o, 'expires_in'),
    refresh_token: str(o, 'refresh_token'), scope: str(o, 'scope'),
  };
}

// Ids end up in URL paths next to the bot token; refusing non-digits keeps '..' or '/' from rerouting a call.
export function snowflake(id: string, name: string): string {
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) throw new TypeError(`${name} must be a Discord id (digits)`);
  return id;
}

export function clampInt(n: number, min: number, max: number): number {
  const i = Math.trunc(Number.isFinite(n) ? n : min);
  return Math.min(max, Math.max(min, i));
}
