// What an org's officers see of a member, in SQL: the core `users` row (shared by every org) filtered through the
// org's points_members row (alias `m`, joined on the org and the user; alias `u` for users). The email shows only
// when the org knows the member by it, the Discord id and username only when the org knows them through Discord,
// and the student id is the one the org recorded. A member with no points_members row shows none of them.
// Fragments for the org-bound handle (`sql`), spliced into the statements of ledger.ts and queries.ts.
import { sql } from '@quad/core';

export const SEEN = {
  email: sql`case when m.known_by_email then u.email end`,
  chatUserId: sql`case when m.known_by_discord then u.chat_user_id end`,
  username: sql`case when m.known_by_discord then u.username end`,
  studentId: sql`m.student_id`,
} as const;

/** The member columns of a view: user_id, chat_user_id, username, email, student_id. */
export const SEEN_COLUMNS = sql`u.id as user_id, ${SEEN.chatUserId} as chat_user_id, ${SEEN.username} as username,
  ${SEEN.email} as email, ${SEEN.studentId} as student_id`;

/** Join the org's points_members row of `<alias>.user_id`; the org is `<alias>.organization_id`. */
export const joinSeen = (alias: string) => {
  const a = sql.identifier(alias);
  return sql`join users u on u.id = ${a}.user_id
   left join points_members m on m.organization_id = ${a}.organization_id and m.user_id = ${a}.user_id`;
};

/** A member as one org sees them. */
export interface MemberView {
  user_id: number; chat_user_id: string | null; username: string | null; email: string | null; student_id: string | null;
}
