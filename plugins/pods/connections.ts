// Certificates given out (spec "Records": compute_connections): one row per certificate, the map the connected route
// reads usernames back to members with. Rows older than 90 days of the org are deleted at each new row, in the same
// transaction, so the table of an org stays bounded by its last 90 days.
import type { OrgDb } from '@quad/core';

export const CONNECTION_RETENTION_DAYS = 90;

export interface ConnectionInput { podId: string; chatUserId: string; username: string; isAdmin: boolean }

export async function recordConnection(db: OrgDb, row: ConnectionInput): Promise<void> {
  await db.run`delete from compute_connections where ${db.inOrg()} and created_at < now() - make_interval(days => ${CONNECTION_RETENTION_DAYS})`;
  await db.run`
    insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin)
    values (${db.org}, ${row.podId}, ${row.chatUserId}, ${row.username}, ${row.isAdmin})`;
}
