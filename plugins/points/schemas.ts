// TypeBox schemas shared by the points routes (they become the OpenAPI document).
import { OrgRef, Type, pagingQuery } from '@quad/core';
import { ENTRY_SOURCES } from './entities.js';

/** Paging of the points lists: 100 rows by default, at most 500. */
export const Paging = pagingQuery({ default: 100, maximum: 500 });
export const UserParams = Type.Object({ org: OrgRef, user_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const Email = Type.String({ format: 'email', maxLength: 320 });
export const ChatUserId = Type.String({ pattern: '^[0-9]{15,21}$', description: 'Discord user id' });
export const EventName = Type.String({ minLength: 1, maxLength: 200 });

export const EntryOut = Type.Object({
  id: Type.Integer(), user_id: Type.Integer(), amount: Type.Integer(),
  source: Type.Union(ENTRY_SOURCES.map((s) => Type.Literal(s))),
  reason: Type.String(), event_name: Type.Union([Type.String(), Type.Null()]), awarded_by: Type.String(),
  ref: Type.Union([Type.String(), Type.Null()]), created_at: Type.String({ format: 'date-time' }),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const MemberRef = Type.Object({
  user_id: Type.Integer(), chat_user_id: Nullable(Type.String()), username: Nullable(Type.String()),
  email: Nullable(Type.String()), student_id: Nullable(Type.String()),
});

export const MemberOut = Type.Object({
  user_id: Type.Integer(), chat_user_id: Nullable(Type.String()), username: Nullable(Type.String()),
  email: Nullable(Type.String()), student_id: Nullable(Type.String()),
  balance: Type.Integer(), earned: Type.Integer(), spent: Type.Integer(),
  last_activity_at: Nullable(Type.String({ format: 'date-time' })),
});

/** member_details_hidden: what everyone may see of a member. */
export const PublicMemberOut = Type.Object({
  user_id: Type.Integer(), chat_user_id: Nullable(Type.String()), username: Nullable(Type.String()), balance: Type.Integer(),
});

export const LeaderRow = Type.Object({ rank: Type.Integer(), ...MemberOut.properties });
export const PublicLeaderRow = Type.Object({ rank: Type.Integer(), ...PublicMemberOut.properties });
