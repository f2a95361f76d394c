// Conversations, their messages and summaries (spec "Agent routes"). Every function takes the org and the member of
// the request and reads only their rows; the writes run in the caller's transaction, so a turn commit can put
// several of them in one. Message seqs are gap-free per conversation: a POST takes the next seqs by moving the
// conversation's `last_seq` under its row lock, so concurrent posts queue on that row and never share a seq.
import { badRequest, conflict, notFound, type EntityManager } from '@quad/core';

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

const COLUMNS = 'id, uuid, member_id, channel_id, visibility, last_seq, ended_at, created_at, updated_at';

export interface Owner { orgId: number; member: string }

/**
 * Create the conversation, or confirm that the id is this member's in this channel with this visibility: 201 when
 * made, 200 when confirmed, 409 when the id is another member's, channel's or visibility's.
 */
export async function putConversation(em: EntityManager, owner: Owner, uuid: string, input: { channel_id: string; visibility: Visibility }) {
  const [made]: ConversationRow[] = await em.execute(
    `insert into agents_conversations (organization_id, uuid, member_id, channel_id, visibility) values (?, ?, ?, ?, ?)
     on conflict (organization_id, uuid) do nothing returning ${COLUMNS}`,
    [owner.orgId, uuid, owner.member, input.channel_id, input.visibility]);
  if (made) return { conversation: conversationView(made), created: true };
  const [row]: ConversationRow[] = await em.execute(`select ${COLUMNS} from agents_conversations where organization_id = ? and uuid = ?`, [owner.orgId, uuid]);
  const differs = [
    row.member_id !== owner.member && 'another member',
    row.channel_id !== input.channel_id && 'another channel',
    row.visibility !== input.visibility && `visibility ${row.visibility}`,
  ].filter(Boolean);
  if (differs.length) throw conflict(`Conversation ${uuid} exists with ${differs.join(', ')}: use a new id`, 'conversation_mismatch');
  return { conversation: conversationView(row), created: false };
}

/** The member's conversation, or null (unknown, or another member's: the same answer, so ids reveal nothing). */
export async function findConversation(em: EntityManager, owner: Owner, uuid: string, lock = false): Promise<ConversationRow | null> {
  const [row]: ConversationRow[] = await em.execute(
    `select ${COLUMNS} from agents_conversations where organization_id = ? and uuid = ? and member_id = ?${lock ? ' for update' : ''}`,
    [owner.orgId, uuid, owner.member]);
  return row ?? null;
}

const notTheirs = (uuid: string) => notFound(`No conversation ${uuid} of this member`, 'conversation_not_found');

/** Append messages (in the caller's transaction); their seqs, in order. 404 unknown, 409 ended. */
export async function appendMessages(em: EntityManager, owner: Owner, uuid: string, messages: { role: string; content: string }[]): Promise<number[]> {
  const [row]: { id: string; last_seq: number; ended: boolean }[] = await em.execute(
    `update agents_conversations set last_seq = last_seq + ?, updated_at = now()
     where organization_id = ? and uuid = ? and member_id = ? returning id, last_seq, ended_at is not null as ended`,
    [messages.length, owner.orgId, uuid, owner.member]);
  if (!row) throw notTheirs(uuid);
  if (row.ended) throw conflict(`Conversation ${uuid} has ended: start a new one`, 'conversation_ended');
  const first = row.last_seq - messages.length + 1;
  await em.execute(
    `insert into agents_messages (conversation_id, seq, role, content)
     select ?, r.seq, r.role, r.content from json_to_recordset(?::json) as r(seq integer, role text, content text)`,
    [row.id, JSON.stringify(messages.map(({ role, content }, i) => ({ seq: first + i, role, content })))]);
  return messages.map((_, i) => first + i);
}

/** Store a summary of the messages up to `covers` (at most the newest seq). */
export async function addSummary(em: EntityManager, owner: Owner, uuid: string, input: { content: string; covers: number }) {
  const row = await findConversation(em, owner, uuid, true);
  if (!row) throw notTheirs(uuid);
  if (input.covers > row.last_seq) {
    throw badRequest(`body.covers: ${input.covers} is past the newest message (seq ${row.last_seq})`, 'covers_past_end', { field: 'body.covers' });
  }
  const [summary]: { content: string; covers: number; created_at: Date }[] = await em.execute(
    'insert into agents_summaries (conversation_id, content, covers) values (?, ?, ?) returning content, covers, created_at',
    [row.id, input.content, input.covers]);
  await em.execute('update agents_conversations set updated_at = now() where id = ?', [row.id]);
  return { content: summary.content, covers: summary.covers, created_at: iso(summary.created_at) };
}

export interface History {
  summary: { content: string; covers: number; created_at: string } | null;
  messages: { seq: number; role: string; content: string; created_at: string }[];
}

/** The newest summary, then the newest `limit` messages after what it covers, oldest first. */
export async function readHistory(em: EntityManager, conversationId: string, limit: number): Promise<History> {
  const [summary]: { content: string; covers: number; created_at: Date }[] = await em.execute(
    'select content, covers, created_at from agents_summaries where conversation_id = ? order by id desc limit 1', [conversationId]);
  const messages: { seq: number; role: string; content: string; created_at: Date }[] = limit === 0 ? [] : await em.execute(
    `select * from (select seq, role, content, created_at from agents_messages where conversation_id = ? and seq > ?
     order by seq desc limit ?) m order by seq`, [conversationId, summary?.covers ?? 0, limit]);
  return {
    summary: summary ? { content: summary.content, covers: summary.covers, created_at: iso(summary.created_at) } : null,
    messages: messages.map((m) => ({ seq: m.seq, role: m.role, content: m.content, created_at: iso(m.created_at) })),
  };
}

export async function history(em: EntityManager, owner: Owner, uuid: string, limit: number): Promise<History> {
  const row = await findConversation(em, owner, uuid);
  if (!row) throw notTheirs(uuid);
  return readHistory(em, row.id, limit);
}

/** The member's open conversation of a channel with the latest update (optionally of one visibility), or null. */
export async function latestOpen(em: EntityManager, owner: Owner, channel: string, visibility?: Visibility): Promise<ConversationView | null> {
  const [row]: ConversationRow[] = await em.execute(
    `select ${COLUMNS} from agents_conversations where organization_id = ? and member_id = ? and channel_id = ? and ended_at is null
     ${visibility ? 'and visibility = ?' : ''} order by updated_at desc, id desc limit 1`,
    visibility ? [owner.orgId, owner.member, channel, visibility] : [owner.orgId, owner.member, channel]);
  return row ? conversationView(row) : null;
}

/** End the member's open conversations of a channel; how many. */
export async function endChannel(em: EntityManager, owner: Owner, channel: string): Promise<number> {
  const rows = await em.execute(
    `update agents_conversations set ended_at = now(), updated_at = now()
     where organization_id = ? and member_id = ? and channel_id = ? and ended_at is null returning id`, [owner.orgId, owner.member, channel]);
  return rows.length;
}

/** The member's conversations, the latest update first (up to `limit`). */
export async function listConversations(em: EntityManager, owner: Owner, limit: number): Promise<ConversationView[]> {
  const rows: ConversationRow[] = await em.execute(
    `select ${COLUMNS} from agents_conversations where organization_id = ? and member_id = ? order by updated_at desc, id desc limit ?`,
    [owner.orgId, owner.member, limit]);
  return rows.map(conversationView);
}

/** Delete one of the member's conversations with its messages and summaries; 404 when it is not theirs. */
export async function deleteConversation(em: EntityManager, owner: Owner, uuid: string): Promise<void> {
  const rows = await em.execute('delete from agents_conversations where organization_id = ? and member_id = ? and uuid = ? returning id', [owner.orgId, owner.member, uuid]);
  if (!rows.length) throw notTheirs(uuid);
}
