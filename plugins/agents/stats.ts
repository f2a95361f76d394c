// What the org's agents keep, in numbers, for the officers' Agents page (routes/stats.ts): aggregates only, never a
// member's id or text. One statement; each part starts with the org on an index led by organization_id, so no other
// org's rows are read. A conversation's messages are its last_seq (seqs are gap-free from 1 and messages are only
// deleted with their conversation), so the messages table is not read at all.
import type { OrgDb } from '@quad/core';

export interface AgentsStats {
  /** Members with anything kept: a conversation, a memory, a profile node or a pending action. */
  members: number;
  conversations: number;
  messages: number;
  /** Unexpired memories (expired ones wait for agents.prune), and how many of them are sensitive. */
  memories: number;
  sensitive_memories: number;
  profile_relations: number;
  /** Pending actions still waiting for the member's answer (unanswered, unexpired). */
  pending_actions: number;
}

export async function orgStats(db: OrgDb): Promise<AgentsStats> {
  const row = await db.one<Record<keyof AgentsStats, string>>`
    select
      (select count(*) from (
          select member_id from agents_conversations where ${db.inOrg()}
          union select member_id from agents_memories where ${db.inOrg()}
          union select member_id from agents_profile_nodes where ${db.inOrg()}
          union select member_id from agents_pending where ${db.inOrg()}) kept) as members,
      c.conversations, c.messages, m.memories, m.sensitive_memories,
      (select count(*) from agents_profile_edges where ${db.inOrg()}) as profile_relations,
      (select count(*) from agents_pending where ${db.inOrg()} and answered_at is null and expires_at > now()) as pending_actions
    from (select count(*) as conversations, coalesce(sum(last_seq), 0) as messages
            from agents_conversations where ${db.inOrg()}) c,
         (select count(*) as memories, count(*) filter (where sensitivity = 'sensitive') as sensitive_memories
            from agents_memories where ${db.inOrg()} and (expires_at is null or expires_at > now())) m`;
  // count() and sum() are bigint, which pg hands over as strings.
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)])) as unknown as AgentsStats;
}
