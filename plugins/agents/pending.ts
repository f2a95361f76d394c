// Pending actions (spec "Agent routes", "Agent data"): an agent holds an action that waits for the member's yes or
// no; the claim answers it once. The claim is one conditional UPDATE (held, unexpired, this member's), so of two
// simultaneous claims exactly one gets the row and the other a 404, whatever the timing.
import { conflict, notFound, sql, type OrgDb } from '@quad/core';
import { iso } from './conversations.js';

export const DEFAULT_TTL_SECONDS = 600;

interface PendingRow { uuid: string; member_id: string; action: string; payload_hash: string; expires_at: Date; answered_at: Date | null; approved: boolean | null }

const COLUMNS = sql`uuid, member_id, action, payload_hash, expires_at, answered_at, approved`;

const view = (row: PendingRow) => ({ id: row.uuid, action: row.action, payload_hash: row.payload_hash, expires_at: iso(row.expires_at) });

/**
 * Hold an action: 201 when new; 200 when the same member holds the same action and payload under the id (a retry);
 * 409 when the id holds something else.
 */
export async function holdAction(db: OrgDb, member: string, uuid: string, input: { action: string; payload_hash: string; ttl_seconds?: number }) {
  const ttl = input.ttl_seconds ?? DEFAULT_TTL_SECONDS;
  const made = await db.one<PendingRow>`
    insert into agents_pending (organization_id, uuid, member_id, action, payload_hash, expires_at)
    values (${db.org}, ${uuid}, ${member}, ${input.action}, ${input.payload_hash}, now() + make_interval(secs => ${ttl}::int))
    on conflict (organization_id, uuid) do nothing returning ${COLUMNS}`;
  if (made) return { pending: view(made), created: true };
  const row = (await db.one<PendingRow>`select ${COLUMNS} from agents_pending where ${db.inOrg()} and uuid = ${uuid}`)!;
  if (row.member_id !== member || row.action !== input.action || row.payload_hash !== input.payload_hash) {
    throw conflict(`Pending action ${uuid} exists with another member, action or payload: use a new id`, 'pending_mismatch');
  }
  return { pending: view(row), created: false };
}

/** Answer a held action once; 404 when unknown, expired, answered or another member's (one answer for all four). */
export async function claimAction(db: OrgDb, member: string, uuid: string, approved: boolean) {
  const row = await db.one<PendingRow>`
    update agents_pending set answered_at = now(), approved = ${approved}
    where ${db.inOrg()} and uuid = ${uuid} and member_id = ${member} and answered_at is null and expires_at > now()
    returning ${COLUMNS}`;
  if (!row) throw notFound(`No pending action ${uuid} to claim: unknown, expired, answered or another member's`, 'pending_not_found');
  return { ...view(row), approved: row.approved! };
}
