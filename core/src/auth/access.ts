// Access checks: is a chat user an officer (or member) of an org's Discord server? Answers come from Discord with
// the bot credential and are cached 60 s per chat user id and org. Decisions that would deny are only logged while
// ACCESS_ENFORCE is false, and refused (403, or 503 when the bot is unavailable or not in the org's server) when it
// is true.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import { DiscordRequestError, DiscordUnavailable, type DiscordClient } from '../adapters/discord/index.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import { HttpError } from '../http/errors.js';
import type { WouldDenyTally } from './would-deny.js';

export type AccessReason =
  | 'not_org_officer' | 'not_officer' | 'not_superadmin' | 'no_discord_id' | 'no_platform_credential'
  | 'bot_unavailable' | 'bot_not_in_server' | 'oauth_state_mismatch' | 'member_login_unverified' | 'not_member' | 'member_details_hidden';

/**
 * Refused in report mode too: the spec's report mode lets an officer of another org through the officer checks it
 * names, but a member of another org's server never reaches an org's member routes (README "Org isolation").
 */
const ALWAYS_ENFORCED: ReadonlySet<AccessReason> = new Set(['not_member']);

/** What kind of credential the caller presented, as the access log line names it. */
export type CredentialKind = 'access_token' | 'app_token' | 'machine_token' | 'idp_token' | 'session' | 'none';

const CACHE_MS = 60_000;
const CACHE_MAX = 10_000;

export class AccessControl {
  /** Past the cap the least recently used answer goes first. */
  private readonly cache = new LRUCache<string, boolean>({ max: CACHE_MAX, ttl: CACHE_MS });

  constructor(
    private readonly discord: DiscordClient,
    private readonly options: { superadmins: readonly string[]; enforce: boolean; log: FastifyBaseLogger; tally?: WouldDenyTally },
  ) {}

  get enforcing(): boolean {
    return this.options.enforce;
  }

  isSuperadmin(chatUserId: string | null | undefined): boolean {
    return !!chatUserId && this.options.superadmins.includes(chatUserId);
  }

  /**
   * Holds the org's officer role on its server. Answered at once from the cache (no promise), else a promise of
   * Discord's answer; throws (or rejects with) DiscordUnavailable when Discord cannot say.
   */
  isOfficer(org: OrgSnapshot, chatUserId: string): boolean | Promise<boolean> {
    if (!org.discordGuildId || !org.officerRoleId) return false;
    const roleId = org.officerRoleId;
    return this.cached(`officer:${org.id}:${roleId}:${chatUserId}`, async () => {
      const member = await this.discord.member(org.discordGuildId!, chatUserId);
      return !!member && member.roles.includes(roleId);
    });
  }

  /** Is a member of the org's server; like isOfficer, synchronous when cached. */
  isMember(org: OrgSnapshot, chatUserId: string): boolean | Promise<boolean> {
    if (!org.discordGuildId) return false;
    return this.cached(`member:${org.id}:${chatUserId}`, async () => !!(await this.discord.member(org.discordGuildId!, chatUserId)));
  }

  /** The orgs among `orgs` where the user is an officer (sign-in). Throws DiscordUnavailable. */
  async officerOrgs(orgs: OrgSnapshot[], chatUserId: string): Promise<OrgSnapshot[]> {
    const found: OrgSnapshot[] = [];
    const queue = [...orgs];
    // A few at a time: Discord rate-limits bursts per bot.
    await Promise.all(Array.from({ length: Math.min(4, queue.length) }, async () => {
      for (let org = queue.shift(); org; org = queue.shift()) {
        if (await this.isOfficer(org, chatUserId)) found.push(org);
      }
    }));
    return found;
  }

  private cached(key: string, load: () => Promise<boolean>): boolean | Promise<boolean> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    return load().then((value) => {
      this.cache.set(key, value);
      return value;
    });
  }

  /**
   * A decision that would deny: logged exactly as
   * `access decision=would_deny reason=<reason> route=<route> org=<org> credential=<credential>`;
   * in enforce mode logged as decision=deny and refused.
   */
  deny(request: FastifyRequest, reason: AccessReason, credential: CredentialKind, options: { always?: boolean } = {}): void {
    const enforce = this.options.enforce || options.always || ALWAYS_ENFORCED.has(reason);
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const org = request.org?.prefix ?? '-';
    this.options.log.warn(`access decision=${enforce ? 'deny' : 'would_deny'} reason=${reason} route=${route} org=${org} credential=${credential}`);
    if (!enforce) {
      this.options.tally?.add();
      return;
    }
    if (reason === 'bot_unavailable' || reason === 'bot_not_in_server') throw new HttpError(503, messages[reason], reason);
    throw new HttpError(403, messages[reason], reason);
  }

  /**
   * member_details_hidden: a public member list drops emails and student ids for callers who are not officers of
   * the org. Logged like any decision (would_deny, or deny when enforcing) but never refused.
   */
  hideMemberDetails(request: FastifyRequest, credential: CredentialKind): void {
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const org = request.org?.prefix ?? '-';
    this.options.log.info(`access decision=${this.options.enforce ? 'deny' : 'would_deny'} reason=member_details_hidden route=${route} org=${org} credential=${credential}`);
  }

  /**
   * Run an access check; Discord being unavailable becomes the bot_unavailable decision, and Discord not knowing
   * the org's server (the bot was removed from it, or the org names a wrong one) bot_not_in_server: nobody can be
   * checked there. Synchronous when the answer is cached.
   */
  check(request: FastifyRequest, credential: CredentialKind, reason: AccessReason, allowed: () => boolean | Promise<boolean>): void | Promise<void> {
    const unavailable = (err: unknown) => {
      if (err instanceof DiscordRequestError && err.status === 404 && err.code === RESTJSONErrorCodes.UnknownGuild) {
        return this.deny(request, 'bot_not_in_server', credential);
      }
      if (!(err instanceof DiscordUnavailable)) throw err;
      this.deny(request, 'bot_unavailable', credential);
    };
    const decide = (ok: boolean) => {
      if (!ok) this.deny(request, reason, credential);
    };
    let answer: boolean | Promise<boolean>;
    try {
      answer = allowed();
    } catch (err) {
      return unavailable(err);
    }
    if (typeof answer === 'boolean') return decide(answer);
    return answer.then(decide, unavailable);
  }
}

const messages: Record<AccessReason, string> = {
  not_org_officer: 'You are not an officer of this org',
  not_officer: 'You are not an officer of any org',
  not_superadmin: 'Superadmin only',
  no_discord_id: 'This credential has no Discord identity',
  no_platform_credential: 'This route needs a platform token',
  bot_unavailable: 'Discord is unavailable; try again shortly',
  bot_not_in_server: 'The bot is not in this org\'s Discord server: an officer must add it (or fix the org\'s server id)',
  oauth_state_mismatch: 'Sign-in state does not match; start the sign-in again',
  member_login_unverified: 'The identity-provider token does not match this email',
  not_member: 'You are not a member of this org\'s server',
  member_details_hidden: 'Member details are hidden',
};
