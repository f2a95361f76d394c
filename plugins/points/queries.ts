// Read models of the points module: members with their balances, the leaderboard, events. Raw SQL (aggregates
// over the ledger joined to the core users table), so every query names the org explicitly. Member details are the
// org's own (member-view.ts): what another org recorded of a person never shows, nor matches a search.
import type { EntityManager } from '@quad/core';
import { SEEN, SEEN_COLUMNS, joinSeen } from './member-view.js';

export interface MemberSummary {
  user_id: number; chat_user_id: string | null; username: string | null; email: string | null; student_id: string | null;
  balance: number; earned: number; spent: number; last_activity_at: string | null;
}

interface SummaryRow {
  user_id: number; chat_user_id: string | null; username: string | null; email: string | null; student_id: string | null;
  balance: string; earned: string | null; spent: string | null; last_activity_at: Date | null; total?: string; rank?: string;
}

const summary = (r: SummaryRow): MemberSummary => ({
  user_id: r.user_id, chat_user_id: r.chat_user_id, username: r.username, email: r.email, student_id: r.student_id,
  balance: Number(r.balance), earned: Number(r.earned ?? 0), spent: Number(r.spent ?? 0),
  last_activity_at: r.last_activity_at ? new Date(r.last_activity_at).toISOString() : null,
});

const SUMMARY = `${SEEN_COLUMNS},
  sum(e.amount) as balance,
  sum(e.amount) filter (where e.amount > 0) as earned,
  -sum(e.amount) filter (where e.amount < 0) as spent,
  max(e.created_at) as last_activity_at`;

export type MemberSort = 'name' | 'balance' | 'recent';
/** The ledger rows of an org, each with its member's users row (u) and the org's record of them (m). */
const FROM = `points_entries e ${joinSeen('e')}`;
const GROUP = 'group by u.id, m.id';

const ORDER: Record<MemberSort, string> = {
  name: `lower(coalesce(${SEEN.username}, ${SEEN.email}, ${SEEN.chatUserId})) asc, u.id asc`,
  balance: 'balance desc, u.id asc',
  recent: 'last_activity_at desc, u.id asc',
};

/** Members with at least one row in the org, with balances; `q` matches the username, email, chat user id or student id the org knows. */
export async function listMembers(em: EntityManager, orgId: number, opts: { q?: string; sort: MemberSort; page: number; perPage: number }) {
  const params: unknown[] = [orgId];
  let filter = '';
  if (opts.q) {
    const like = `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    filter = `and (${SEEN.username} ilike ? or ${SEEN.email} ilike ? or ${SEEN.chatUserId} = ? or ${SEEN.studentId} = ?)`;
    params.push(like, like, opts.q, opts.q);
  }
  params.push(opts.perPage, (opts.page - 1) * opts.perPage);
  const rows = await em.execute<SummaryRow[]>(
    `select ${SUMMARY}, count(*) over () as total
       from ${FROM}
      where e.organization_id = ? ${filter}
      ${GROUP} order by ${ORDER[opts.sort]} limit ? offset ?`, params as never[]);
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && opts.page > 1) {
    const [c] = await em.execute<{ n: string }[]>(
      `select count(distinct e.user_id) as n from ${FROM} where e.organization_id = ? ${filter}`,
      params.slice(0, -2) as never[]);
    total = Number(c!.n);
  }
  return { members: rows.map(summary), total };
}

/** The top members by balance (ties share a rank); members at zero or below are left out. */
export async function leaderboard(em: EntityManager, orgId: number, limit: number) {
  const rows = await em.execute<SummaryRow[]>(
    `select * from (
       select ${SUMMARY}, rank() over (order by sum(e.amount) desc) as rank
         from ${FROM}
        where e.organization_id = ?
        ${GROUP}) ranked
      where balance > 0 order by rank, user_id limit ?`, [orgId, limit]);
  return rows.map((r) => ({ rank: Number(r.rank), ...summary(r) }));
}

/**
 * A member of the org with their balance, or null when they have no row in this org: a user known only to other
 * orgs is nobody here (their email, student id and Discord id are not this org's to read).
 */
export async function memberSummary(em: EntityManager, orgId: number, userId: number): Promise<MemberSummary | null> {
  const [row] = await em.execute<SummaryRow[]>(
    `select ${SUMMARY} from ${FROM} where e.organization_id = ? and e.user_id = ? ${GROUP}`, [orgId, userId]);
  return row ? summary(row) : null;
}

export interface EventSummary { name: string; entries: number; members: number; points: number; first_at: string; last_at: string }

/** Rows with an event name, grouped by it, most recent first. */
export async function listEvents(em: EntityManager, orgId: number): Promise<EventSummary[]> {
  const rows = await em.execute<{ name: string; entries: string; members: string; points: string; first_at: Date; last_at: Date }[]>(
    `select event_name as name, count(*) as entries, count(distinct user_id) as members, sum(amount) as points,
            min(created_at) as first_at, max(created_at) as last_at
       from points_entries where organization_id = ? and event_name is not null
      group by event_name order by max(created_at) desc, event_name`, [orgId]);
  return rows.map((r) => ({
    name: r.name, entries: Number(r.entries), members: Number(r.members), points: Number(r.points),
    first_at: new Date(r.first_at).toISOString(), last_at: new Date(r.last_at).toISOString(),
  }));
}
