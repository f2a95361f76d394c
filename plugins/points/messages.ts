// Points per message and new members: the logic the Discord gateway connection calls for every MESSAGE_CREATE and
// GUILD_MEMBER_ADD. The org bound to the message's server gives `pointsPerMessage` at most once per
// `pointsCooldownSeconds` per member. Safe under concurrency (the member lock) and idempotent per message id (a
// unique index): a redelivered or replayed message never pays twice. A join records the member and raises the event
// points.member_joined (a notification, and outbound webhooks that selected it), once per join.
//
// The gateway hears every org's servers. Which org a message belongs to is read from `organizations` (a table of no
// org); the org's own rows are then reached through a handle bound to that org (README "Org isolation").
import { Organization, type CoreServices, type DaemonContext } from '@quad/core';
import { addEntry, joinByChatUserId, lockMember } from './ledger.js';

type MikroORM = DaemonContext['orm'];

export interface MessageSeen {
  guildId: string;
  chatUserId: string;
  username?: string | null;
  messageId: string;
  /** When the message was sent (default now); the cooldown is measured between message times. */
  at?: Date;
}

export type MessageAward =
  | { awarded: true; orgId: number; userId: number; amount: number; entryId: number }
  | { awarded: false; why: 'no_org' | 'module_off' | 'no_points' | 'cooldown' | 'duplicate' };

const DISCORD_EPOCH = 1_420_070_400_000n;

/** The time a Discord snowflake was made. */
export function snowflakeTime(id: string): Date | null {
  if (!/^\d{1,20}$/.test(id)) return null;
  return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH));
}

/**
 * The award input for a MESSAGE_CREATE payload (`d`), or null for messages that never earn points: direct
 * messages (no guild), bots, system users and webhooks.
 */
export function messageFromGateway(d: unknown): MessageSeen | null {
  if (!d || typeof d !== 'object') return null;
  const m = d as { id?: unknown; guild_id?: unknown; webhook_id?: unknown; timestamp?: unknown; author?: { id?: unknown; username?: unknown; bot?: unknown; system?: unknown } };
  if (typeof m.id !== 'string' || typeof m.guild_id !== 'string' || m.webhook_id) return null;
  const author = m.author;
  if (!author || typeof author.id !== 'string' || author.bot === true || author.system === true) return null;
  const at = typeof m.timestamp === 'string' && !Number.isNaN(Date.parse(m.timestamp)) ? new Date(m.timestamp) : snowflakeTime(m.id) ?? undefined;
  return { guildId: m.guild_id, chatUserId: author.id, username: typeof author.username === 'string' ? author.username : null, messageId: m.id, at };
}

export interface MemberJoin {
  guildId: string;
  chatUserId: string;
  username: string | null;
  /** The name Discord shows: the server nickname, else the global name, else the username (EXTERNAL.md). */
  displayName?: string | null;
  /** When they joined (GUILD_MEMBER_ADD's `joined_at`); a repeat of the same join is announced once. Default: now. */
  joinedAt?: Date | null;
  /** They were a member before and left (the member flag DID_REJOIN). */
  rejoined?: boolean;
}

/** Guild member flag DID_REJOIN (Discord's "Guild Member Flags"). */
const DID_REJOIN = 1 << 0;
const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** The member from a GUILD_MEMBER_ADD payload (`d`: a guild member with `guild_id`), or null for bots and malformed payloads. */
export function memberFromGateway(d: unknown): Required<MemberJoin> | null {
  if (!d || typeof d !== 'object') return null;
  const m = d as { guild_id?: unknown; nick?: unknown; joined_at?: unknown; flags?: unknown; user?: { id?: unknown; username?: unknown; global_name?: unknown; bot?: unknown } };
  if (typeof m.guild_id !== 'string' || !m.user || typeof m.user.id !== 'string' || m.user.bot === true) return null;
  const username = str(m.user.username);
  const joinedAt = typeof m.joined_at === 'string' && !Number.isNaN(Date.parse(m.joined_at)) ? new Date(m.joined_at) : null;
  return {
    guildId: m.guild_id, chatUserId: m.user.id, username, displayName: str(m.nick) ?? str(m.user.global_name) ?? username,
    joinedAt, rejoined: typeof m.flags === 'number' && (m.flags & DID_REJOIN) !== 0,
  };
}

const UNIQUE_VIOLATION = '23505';

/** What the gateway's work needs of the core: the modules' switches, a handle bound to an org and the events. */
export type GatewayServices = Pick<CoreServices, 'registry' | 'orgDb' | 'emit'>;

/** The event a member's join raises (declared in the manifest's `events`). */
export const MEMBER_JOINED_EVENT = 'points.member_joined';

export type MemberJoined =
  | { recorded: true; orgId: number; userId: number; announced: true; eventId: number }
  /** A repeat of a join already announced (Discord may send GUILD_MEMBER_ADD again for a member). */
  | { recorded: true; orgId: number; userId: number; announced: false }
  | { recorded: false; why: 'no_org' | 'module_off' };

/** The org bound to a Discord server, or null (organizations is a table of no org: an unbound fork reads it). */
function orgOfServer(orm: MikroORM, guildId: string) {
  return orm.em.fork().findOne(Organization, { discordGuildId: guildId });
}

/** Award the org's points for one message, if its cooldown allows. */
export async function awardForMessage(orm: MikroORM, services: GatewayServices, msg: MessageSeen): Promise<MessageAward> {
  const org = await orgOfServer(orm, msg.guildId);
  if (!org) return { awarded: false, why: 'no_org' };
  if (!services.registry.isEnabled(org.modules, 'points')) return { awarded: false, why: 'module_off' };
  if (org.pointsPerMessage <= 0) return { awarded: false, why: 'no_points' };
  const db = services.orgDb(org.id);
  const at = msg.at ?? new Date();
  try {
    return await db.transaction(async (tx) => {
      // The member wrote on the org's server: the org knows them through Discord (even when the cooldown pays nothing).
      const member = await joinByChatUserId(tx.em, tx.org, msg.chatUserId, { username: msg.username });
      await lockMember(tx.em, tx.org, member.id);
      const dup = await tx.one`select 1 from points_entries where ${tx.inOrg()} and message_id = ${msg.messageId}`;
      if (dup) return { awarded: false, why: 'duplicate' } as const;
      if (org.pointsCooldownSeconds > 0) {
        const last = await tx.one<{ created_at: Date }>`
          select created_at from points_entries where ${tx.inOrg()} and user_id = ${member.id} and source = 'message'
           order by created_at desc limit 1`;
        if (last && at.getTime() - new Date(last.created_at).getTime() < org.pointsCooldownSeconds * 1000) {
          return { awarded: false, why: 'cooldown' } as const;
        }
      }
      const entry = await addEntry(tx.em, {
        orgId: tx.org, userId: member.id, amount: org.pointsPerMessage, source: 'message', reason: 'Message on Discord',
        awardedBy: 'system', messageId: msg.messageId, createdAt: at,
      });
      return { awarded: true, orgId: tx.org, userId: member.id, amount: entry.amount, entryId: entry.id } as const;
    });
  } catch (err) {
    // The same message seen by two processes at once (the lock serializes a member, the index the message).
    if ((err as { code?: string }).code === UNIQUE_VIOLATION || (err as Error).name === 'UniqueConstraintViolationException') return { awarded: false, why: 'duplicate' };
    throw err;
  }
}

/**
 * A member joined a server bound to an org whose points module is on: record them (a `users` row with their chat
 * user id and username, and the org's record that it knows them through Discord) and raise the event
 * points.member_joined, in one transaction. The event is raised once per join: the member's `discord_joined_at`
 * changes only for a new `joined_at`, under the row's lock, so a repeated GUILD_MEMBER_ADD (or two at once) raises
 * nothing more.
 */
export async function recordMemberJoined(orm: MikroORM, services: GatewayServices, joined: MemberJoin): Promise<MemberJoined> {
  const org = await orgOfServer(orm, joined.guildId);
  if (!org) return { recorded: false, why: 'no_org' };
  if (!services.registry.isEnabled(org.modules, 'points')) return { recorded: false, why: 'module_off' };
  const joinedAt = joined.joinedAt ?? new Date();
  return services.orgDb(org.id).transaction(async (tx): Promise<MemberJoined> => {
    const member = await joinByChatUserId(tx.em, tx.org, joined.chatUserId, { username: joined.username });
    const changed = await tx.run`
      update points_members set discord_joined_at = ${joinedAt.toISOString()}::timestamptz
       where ${tx.inOrg()} and user_id = ${member.id} and discord_joined_at is distinct from ${joinedAt.toISOString()}::timestamptz`;
    if (!changed) return { recorded: true, orgId: tx.org, userId: member.id, announced: false };
    const name = joined.displayName ?? joined.username ?? joined.chatUserId;
    const event = await services.emit(tx.em, {
      orgId: tx.org, kind: MEMBER_JOINED_EVENT,
      title: `${name} joined the Discord server`,
      message: `${joined.username ? `@${joined.username}` : `Discord user ${joined.chatUserId}`}${joined.rejoined ? ' rejoined (was a member before)' : ' is new to the server'}`,
      data: {
        user_id: member.id, chat_user_id: joined.chatUserId, username: joined.username, display_name: name,
        joined_at: joinedAt.toISOString(), rejoined: joined.rejoined ?? false,
      },
    });
    return { recorded: true, orgId: tx.org, userId: member.id, announced: true, eventId: event.id };
  });
}
