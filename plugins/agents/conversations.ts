// Conversations, their messages and summaries (spec "Agent routes"). Every function takes the org-bound handle of
// the request and the member, and reads only that member's rows of that org; the writes run in the handle's
// transaction, so a turn commit can put several of them in one. Message seqs are gap-free per conversation: a POST
// takes the next seqs by moving the conversation's `last_seq` under its row lock, so concurrent posts queue on that
// row and never share a seq.
import { badRequest, conflict, notFound, sql, type OrgDb } from '@quad/core';

export type Visibility = 'public' | 'private';

export interface ConversationRow {
  id: string; uuid: string; member_id: string; channel_id: string; visibility: Visibility;
  last_seq: number; ended_at: Date | null; created_at: Date; updated_at: Date;
}

export interface ConversationView {
  id: string; member_id: string; channel_id: string; visibility: Visibility;
  last_seq: number; ended_at: string | null; created_at: string; updated_at: string;
}

/** A timestamp column as the API writes it. */
export const iso = (d: Date | string) => new Date(d).toISOString();

export function conversationView(row: ConversationRow): ConversationView {
  return {
    id: row.uuid, member_id: row.member_id, channel_id: row.channel_id, visibility: row.visibility, last_seq: row.last_seq,
    ended_at: row.ended_at ? iso(row.ended_at) : null, created_at: iso(row.created_at), updated_at: iso(row.updated_at),
  };
}

const COLUMNS = sql`id, uuid, member_id, channel_id, visibility, last_seq, ended_at, created_at, updated_at`;

/**
 * Create the conversation, or confirm that the id is this member's in this channel with this visibility: 201 when
 * made, 200 when confirmed, 409 when the id is another member's, channel's or visibility's.
 */
export async function putConversation(db: OrgDb, member: string, uuid: string, input: { channel_id: string; visibility: Visibility }) {
  const made = await db.one<ConversationRow>`
    insert into agents_conversations (organization_id, uuid, member_id, channel_id, visibility)
    values (${db.org}, ${uuid}, ${member}, ${input.channel_id}, ${input.visibility})
    on conflict (organization_id, uuid) do nothing returning ${COLUMNS}`;
  if (made) return { conversation: conversationView(made), created: true };
  const row = (await db.one<ConversationRow>`select ${COLUMNS} from agents_conversations where ${db.inOrg()} and uuid = ${uuid}`)!;
  const differs = [
    row.member_id !== member && 'another member',
    row.channel_id !== input.channel_id && 'another channel',
    row.visibility !== input.visibility && `visibility ${row.visibility}`,
  ].filter(Boolean);
  if (differs.length) throw conflict(`Conversation ${uuid} exists with ${differs.join(', ')}: use a new id`, 'conversation_mismatch');
  return { conversation: conversationView(row), created: false };
}

/** The member's conversation, or null (unknown, or another member's: the same answer, so ids reveal nothing). */
export async function findConversation(db: OrgDb, member: string, uuid: string, lock = false): Promise<ConversationRow | null> {
  return db.one<ConversationRow>`
    select ${COLUMNS} from agents_conversations where ${db.inOrg()} and uuid = ${uuid} and member_id = ${member}${lock ? sql` for update` : sql``}`;
}

const notTheirs = (uuid: string) => notFound(`No conversation ${uuid} of this member`, 'conversation_not_found');

/** Append messages (in the handle's transaction); their seqs, in order. 404 unknown, 409 ended. */
export async function appendMessages(db: OrgDb, member: string, uuid: string, messages: { role: string; content: string }[]): Promise<number[]> {
  const row = await db.one<{ id: string; last_seq: number; ended: boolean }>`
    update agents_conversations set last_seq = last_seq + ${messages.length}::int, updated_at = now()
    where ${db.inOrg()} and uuid = ${uuid} and member_id = ${member} returning id, last_seq, ended_at is not null as ended`;
  if (!row) throw notTheirs(uuid);
  if (row.ended) throw conflict(`Conversation ${uuid} has ended: start a new one`, 'conversation_ended');
  const first = row.last_seq - messages.length + 1;
  const records = JSON.stringify(messages.map(({ role, content }, i) => ({ seq: first + i, role, content })));
  await db.run`
    insert into agents_messages (organization_id, conversation_id, seq, role, content)
    select ${db.org}, ${row.id}, r.seq, r.role, r.content from json_to_recordset(${records}::json) as r(seq integer, role text, content text)`;
  return messages.map((_, i) => first + i);
}

/** Store a summary of the messages up to `covers` (at most the newest seq). */
export async function addSummary(db: OrgDb, member: string, uuid: string, input: { content: string; covers: number }) {
  const row = await findConversation(db, member, uuid, true);
  if (!row) throw notTheirs(uuid);
  if (input.covers > row.last_seq) {
    throw badRequest(`body.covers: ${input.covers} is past the newest message (seq ${row.last_seq})`, 'covers_past_end', { field: 'body.covers' });
  }
  const summary = (await db.one<{ content: string; covers: number; created_at: Date }>`
    insert into agents_summaries (organization_id, conversation_id, content, covers) values (${db.org}, ${row.id}, ${input.content}, ${input.covers})
    returning content, covers, created_at`)!;
  await db.run`update agents_conversations set updated_at = now() where ${db.inOrg()} and id = ${row.id}`;
  return { content: summary.content, covers: summary.covers, created_at: iso(summary.created_at) };
}

export interface History {
  summary: { content: string; covers: number; created_at: string } | null;
  messages: { seq: number; role: string; content: string; created_at: string }[];
}

/** The newest summary, then the newest `limit` messages after what it covers, oldest first. */
export async function readHistory(db: OrgDb, conversationId: string, limit: number): Promise<History> {
  const summary = await db.one<{ content: string; covers: number; created_at: Date }>`
    select content, covers, created_at from agents_summaries where ${db.inOrg()} and conversation_id = ${conversationId} order by id desc limit 1`;
  const messages = limit === 0 ? [] : await db.sql<{ seq: number; role: string; content: string; created_at: Date }>`
    select * from (select seq, role, content, created_at from agents_messages
      where ${db.inOrg()} and conversation_id = ${conversationId} and seq > ${summary?.covers ?? 0}::int
      order by seq desc limit ${limit}::int) m order by seq`;
  return {
    summary: summary ? { content: summary.content, covers: summary.covers, created_at: iso(summary.created_at) } : null,
    messages: messages.map((m) => ({ seq: m.seq, role: m.role, content: m.content, created_at: iso(m.created_at) })),
  };
}

export async function history(db: OrgDb, member: string, uuid: string, limit: number): Promise<History> {
  const row = await findConversation(db, member, uuid);
  if (!row) throw notTheirs(uuid);
  return readHistory(db, row.id, limit);
}

/** The member's open conversation of a channel with the latest update (optionally of one visibility), or null. */
export async function latestOpen(db: OrgDb, member: string, channel: string, visibility?: Visibility): Promise<ConversationView | null> {
  const row = await db.one<ConversationRow>`
    select ${COLUMNS} from agents_conversations where ${db.inOrg()} and member_id = ${member} and channel_id = ${channel} and ended_at is null
    ${visibility ? sql`and visibility = ${visibility}` : sql``} order by updated_at desc, id desc limit 1`;
  return row ? conversationView(row) : null;
}

/** End the member's open conversations of a channel; how many. */
export async function endChannel(db: OrgDb, member: string, channel: string): Promise<number> {
  return db.run`
    update agents_conversations set ended_at = now(), updated_at = now()
    where ${db.inOrg()} and member_id = ${member} and channel_id = ${channel} and ended_at is null`;
}

/** The member's conversations, the latest update first (up to `limit`). */
export async function listConversations(db: OrgDb, member: string, limit: number): Promise<ConversationView[]> {
  const rows = await db.sql<ConversationRow>`
    select ${COLUMNS} from agents_conversations where ${db.inOrg()} and member_id = ${member} order by updated_at desc, id desc limit ${limit}::int`;
  return rows.map(conversationView);
}

/** Delete one of the member's conversations with its messages and summaries; 404 when it is not theirs. */
export async function deleteConversation(db: OrgDb, member: string, uuid: string): Promise<void> {
  const deleted = await db.run`delete from agents_conversations where ${db.inOrg()} and member_id = ${member} and uuid = ${uuid}`;
  if (!deleted) throw notTheirs(uuid);
}
