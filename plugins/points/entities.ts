// The points ledger (table points_entries): signed rows; a member's balance is the sum of their rows in the org.
// Members are rows of the core `users` table, referenced by id (user_id).
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
