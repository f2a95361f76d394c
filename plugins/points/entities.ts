// The points ledger (table points_entries): signed rows; a member's balance is the sum of their rows in the org.
// Members are rows of the core `users` table, referenced by id (user_id); what each org knows of them is its row of
// points_members.
import { defineOrgEntity, p } from '@quad/core';

export const ENTRY_SOURCES = ['award', 'checkin', 'message', 'order', 'refund'] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];

export const PointsEntry = defineOrgEntity({
  name: 'PointsEntry',
  tableName: 'points_entries',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    userId: p.integer(),
    amount: p.integer(),
    source: p.string().$type<EntrySource>(),
    reason: p.string().default(''),
    eventName: p.string().nullable(),
    awardedBy: p.string(),
    messageId: p.string().nullable(),
    ref: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/**
 * What an org knows of a member (table points_members, one row per org and member): the student id it recorded and
 * whether it knows them by email or through Discord. The core `users` row is shared by every org; member views show
 * its email, chat user id and username only as far as this row allows (member-view.ts).
 */
export const PointsMember = defineOrgEntity({
  name: 'PointsMember',
  tableName: 'points_members',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    studentId: p.string().nullable(),
    knownByEmail: p.boolean().default(false),
    knownByDiscord: p.boolean().default(false),
    firstSeenAt: p.datetime().onCreate(() => new Date()),
    /** When the member last joined the org's Discord server (GUILD_MEMBER_ADD's joined_at); null when no join was seen. */
    discordJoinedAt: p.datetime().nullable(),
  },
});
