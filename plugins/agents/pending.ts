// Pending actions (spec "Agent routes", "Agent data"): an agent holds an action that waits for the member's yes or
// no; the claim answers it once. The claim is one conditional UPDATE (held, unexpired, this member's), so of two
// simultaneous claims exactly one gets the row and the other a 404, whatever the timing.
import { conflict, notFound, type EntityManager } from '@quad/core';
import { iso, type Owner } from './conversations.js';

export const DEFAULT_TTL_SECONDS = 600;

interface PendingRow { uuid: string; member_id: string; action: string; payload_hash: string; expires_at: Date; answered_at: Date | null; approved: boolean | null }

const view = (row: PendingRow) => ({ id: row.uuid, action: row.action, payload_hash: row.payload_hash, expires_at: iso(row.expires_at) });

/**
 * Hold an action: 201 when new; 200 when the same member holds the same action and payload under the id (a retry);
 * 409 when the id holds something else.
 */
export async function holdAction(em: EntityManager, owner: Owner, uuid: string, input: { action: string; payload_hash: string; ttl_seconds?: number }) {
  const ttl = input.ttl_seconds ?? DEFAULT_TTL_SECONDS;
  const [made]: PendingRow[] = await em.execute(
    `insert into agents_pending (organization_id, uuid, member_id, action, payload_hash, expires_at)
     values (?, ?, ?, ?, ?, now() + make_interval(secs => ?)) on conflict (organization_id, uuid) do nothing
     returning uuid, member_id, action, payload_hash, expires_at, answered_at, approved`,
    [owner.orgId, uuid, owner.member, input.action, input.payload_hash, ttl]);
  if (made) return { pending: view(made), created: true };
  const [row]: PendingRow[] = await em.execute(
    'select uuid, member_id, action, payload_hash, expires_at, answered_at, approved from agents_pending where organization_id = ? and uuid = ?',
    [owner.orgId, uuid]);
  if (row.member_id !== owner.member || row.action !== input.action || row.payload_hash !== input.payload_hash) {
    throw conflict(`Pending action ${uuid} exists with another member, action or payload: use a new id`, 'pending_mismatch');
  }
  return { pending: view(row), created: false };
}

/** Answer a held action once; 404 when unknown, expired, answered or another member's (one answer for all four). */
export async function claimAction(em: EntityManager, owner: Owner, uuid: string, approved: boolean) {
  const [row]: PendingRow[] = await em.execute(
    `update agents_pending set answered_at = now(), approved = ?
     where organization_id = ? and uuid = ? and member_id = ? and answered_at is null and expires_at > now()
     returning uuid, member_id, action, payload_hash, expires_at, answered_at, approved`,
    [approved, owner.orgId, uuid, owner.member]);
  if (!row) throw notFound(`No pending action ${uuid} to claim: unknown, expired, answered or another member's`, 'pending_not_found');
  return { ...view(row), approved: row.approved! };
}
