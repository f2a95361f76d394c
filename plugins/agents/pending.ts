// Pending actions (spec "Agent routes", "Agent data"): an agent holds an action that waits for the member's yes or
// no; the claim answers it once. The claim is one conditional UPDATE (held, unexpired, this member's), so of two
// simultaneous claims exactly one gets the row and the other a 404, whatever the timing. The action is any JSON value
// (the seed's contract), kept in a `json` column, which stores the text as given: the claim returns the object with its
// keys in the order they came (jsonb would sort them).
import { badRequest, conflict, notFound, sql, type OrgDb } from '@quad/core';
import { iso } from './conversations.js';
import { MAX_ACTION_BYTES } from './schemas.js';

export const DEFAULT_TTL_SECONDS = 600;

interface PendingRow { uuid: string; member_id: string; action: unknown; payload_hash: string; expires_at: Date; answered_at: Date | null; approved: boolean | null }

const COLUMNS = sql`uuid, member_id, action, payload_hash, expires_at, answered_at, approved`;

const view = (row: PendingRow) => ({ id: row.uuid, action: row.action, payload_hash: row.payload_hash, expires_at: iso(row.expires_at) });

/**
 * The action's JSON text, or a 400 naming `field` when it is over MAX_ACTION_BYTES (16 KB) of UTF-8. Measured on the
 * text that is stored, so the bound holds whatever the client's spacing was.
 */
export function actionJson(action: unknown, field: string): string {
  const text = JSON.stringify(action);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_ACTION_BYTES) {
    throw badRequest(`${field}: ${bytes} bytes of JSON, more than ${MAX_ACTION_BYTES} (16 KB)`, 'action_too_large', { field });
  }
  return text;
}

/**
 * Hold an action: 201 when new; 200 when the same member holds the same action and payload under the id (a retry);
 * 409 when the id holds something else.
 */
export async function holdAction(db: OrgDb, member: string, uuid: string, input: { action: unknown; payload_hash: string; ttl_seconds?: number }, field = 'body.action') {
  const ttl = input.ttl_seconds ?? DEFAULT_TTL_SECONDS;
  const action = actionJson(input.action, field);
  const made = await db.one<PendingRow>`
    insert into agents_pending (organization_id, uuid, member_id, action, payload_hash, expires_at)
    values (${db.org}, ${uuid}, ${member}, ${action}::json, ${input.payload_hash}, now() + make_interval(secs => ${ttl}::int))
    on conflict (organization_id, uuid) do nothing returning ${COLUMNS}`;
  if (made) return { pending: view(made), created: true };
  // The same action is the same JSON value (jsonb equality: key order and spacing aside).
  const row = (await db.one<PendingRow & { same_action: boolean }>`
    select ${COLUMNS}, action::jsonb = ${action}::jsonb as same_action from agents_pending where ${db.inOrg()} and uuid = ${uuid}`)!;
  if (row.member_id !== member || !row.same_action || row.payload_hash !== input.payload_hash) {
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
