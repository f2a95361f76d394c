// A turn (spec "Turn routes"): what an agent reads before answering a member (context) and what it writes after
// (commit). Both first ask Discord whether the member is in the org's server: 403 when not, 503 when the org has no
// server bound, the bot is not set up or Discord does not answer. The commit is one transaction: the conversation is
// created or confirmed, then messages, summary, memories, facts and pending actions are written; one invalid part
// (a 409, a 404, a bad covers) rolls back everything. Facts' new nodes are embedded before it opens.
import { DiscordUnavailable, HttpError, badRequest, displayName, forbidden, type CoreServices, type OrgDb, type OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { addSummary, appendMessages, findConversation, putConversation, readHistory, type History, type Visibility } from './conversations.js';
import { addMemories, checkSealable, listMemories, type Kind, type MemoryInput, type MemoryView } from './memories.js';
import { actionJson, holdAction } from './pending.js';
import { prepareFacts, readProfile, similar, writeFacts, type FactInput, type NodeRef, type Relation } from './profile.js';

export interface TurnMember { chat_user_id: string; display_name: string; role_ids: string[]; officer: boolean }

const unavailable = (why: string) => new HttpError(503, `Membership cannot be checked: ${why}`, 'chat_platform_unavailable');

/** The member as the org's Discord server knows them; 403 when they are not in it, 503 when it cannot be asked. */
export async function serverMember(services: CoreServices, org: OrgSnapshot, chatUserId: string): Promise<TurnMember> {
  if (!org.discordGuildId) throw unavailable('the org has no Discord server bound');
  let member;
  try {
    member = await services.discord.member(org.discordGuildId, chatUserId);
  } catch (err) {
    if (err instanceof DiscordUnavailable) throw unavailable(err.message);
    throw err;
  }
  if (!member) throw forbidden('The member is not in the org\'s Discord server', 'not_a_member');
  return {
    chat_user_id: chatUserId, display_name: displayName(member), role_ids: member.roles,
    officer: !!org.officerRoleId && member.roles.includes(org.officerRoleId),
  };
}

export interface ContextInput {
  conversation_id: string; visibility: Visibility;
  message_limit?: number; memory_kinds?: Kind[]; memory_limit?: number; profile_limit?: number; profile_query?: string;
}

export interface TurnContext {
  member: TurnMember;
  conversation: { id: string; owned: boolean };
  summary: History['summary'];
  messages: History['messages'];
  memories: MemoryView[];
  profile: { nodes: NodeRef[]; relations: Relation[]; similar: { kind: string; label: string; distance: number }[] | null };
}

export const TURN_DEFAULTS = { message_limit: 50, memory_limit: 20, profile_limit: 100 };

export async function turnContext(db: OrgDb, services: CoreServices, org: OrgSnapshot, chatUserId: string, input: ContextInput, log: FastifyBaseLogger): Promise<TurnContext> {
  const member = await serverMember(services, org, chatUserId);
  const row = await findConversation(db, chatUserId, input.conversation_id);
  const owned = row !== null && row.visibility === input.visibility;
  const messageLimit = input.message_limit ?? TURN_DEFAULTS.message_limit;
  const history: History = owned && messageLimit > 0 ? await readHistory(db, row!.id, messageLimit) : { summary: null, messages: [] };
  const memories = await listMemories(db, services, chatUserId, { kinds: input.memory_kinds, limit: input.memory_limit ?? TURN_DEFAULTS.memory_limit }, log);
  const profile = await readProfile(db, chatUserId, input.profile_limit ?? TURN_DEFAULTS.profile_limit);
  let nearest: TurnContext['profile']['similar'] = null;
  if (input.profile_query && (input.profile_limit ?? TURN_DEFAULTS.profile_limit) > 0) {
    // Without an embedder (or when it fails) a turn still gets its context, without similar nodes.
    nearest = await similar(db, services, chatUserId, input.profile_query, 10).catch((err: unknown) => {
      log.warn({ reason: (err as { reason?: string }).reason }, 'agents: turn context without similar profile nodes');
      return null;
    });
  }
  return { member, conversation: { id: input.conversation_id, owned }, summary: history.summary, messages: history.messages, memories, profile: { ...profile, similar: nearest } };
}

export interface CommitInput {
  conversation_id: string; channel_id: string; visibility: Visibility;
  messages?: { role: string; content: string }[];
  summary?: { content: string; covers?: number };
  memories?: MemoryInput[];
  facts?: FactInput[];
  pending?: { id: string; action: unknown; payload_hash: string; ttl_seconds?: number }[];
}

const PARTS = ['messages', 'summary', 'memories', 'facts', 'pending'] as const;

const pendingField = (i: number) => `body.pending.${i}.action`;

export async function turnCommit(db: OrgDb, services: CoreServices, org: OrgSnapshot, chatUserId: string, input: CommitInput) {
  // The actions' size is part of the body's shape: refused (400) before Discord is asked.
  input.pending?.forEach((p, i) => actionJson(p.action, pendingField(i)));
  await serverMember(services, org, chatUserId);
  if (!PARTS.some((part) => input[part] !== undefined)) {
    throw badRequest(`body: give one or more of ${PARTS.join(', ')}`, 'nothing_to_commit', { field: 'body' });
  }
  checkSealable(services, input.memories ?? []);
  // Embedded before the commit's transaction opens: its row locks are never held while the embeddings service answers.
  const prepared = await prepareFacts(db, services, chatUserId, input.facts ?? []);
  return db.transaction(async (tx) => {
    const { conversation } = await putConversation(tx, chatUserId, input.conversation_id, { channel_id: input.channel_id, visibility: input.visibility });
    const seqs = input.messages?.length ? await appendMessages(tx, chatUserId, input.conversation_id, input.messages) : [];
    let summarySeq: number | null = null;
    if (input.summary) {
      // Without covers, the summary covers every message so far (this turn's included).
      const covers = input.summary.covers ?? seqs.at(-1) ?? conversation.last_seq;
      summarySeq = (await addSummary(tx, chatUserId, input.conversation_id, { content: input.summary.content, covers })).covers;
    }
    const memories = input.memories?.length ? await addMemories(tx, services, chatUserId, input.memories) : [];
    const facts = await writeFacts(tx, chatUserId, prepared, services.extensions.vector === true);
    const pending = [];
    for (const [i, p] of (input.pending ?? []).entries()) pending.push((await holdAction(tx, chatUserId, p.id, p, pendingField(i))).pending);
    return { seqs, summary_seq: summarySeq, memory_ids: memories.map((m) => m.id), facts, pending };
  });
}
