// Certificates given out (spec "Records": compute_connections): one row per certificate, the map the connected route
// reads usernames back to members with. Rows older than 90 days of the org are deleted at each new row, in the same
// transaction, so the table of an org stays bounded by its last 90 days.
import type { EntityManager } from '@quad/core';

export const CONNECTION_RETENTION_DAYS = 90;

export interface ConnectionInput { podId: string; chatUserId: string; username: string; isAdmin: boolean }

export async function recordConnection(em: EntityManager, orgId: number, row: ConnectionInput): Promise<void> {
  await em.execute(`delete from compute_connections where organization_id = ? and created_at < now() - make_interval(days => ?)`, [orgId, CONNECTION_RETENTION_DAYS]);
  await em.execute('insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin) values (?, ?, ?, ?, ?)',
    [orgId, row.podId, row.chatUserId, row.username, row.isAdmin]);
}
