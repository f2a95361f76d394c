// Read models of the points module: members with their balances, the leaderboard, events. Aggregates over the
// ledger joined to the core users table, through the org-bound handle (README "Org isolation"). Member details are
// the org's own (member-view.ts): what another org recorded of a person never shows, nor matches a search.
import { sql, type OrgDb, type SqlFragment } from '@quad/core';
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

const SUMMARY = sql`${SEEN_COLUMNS},
  sum(e.amount) as balance,
  sum(e.amount) filter (where e.amount > 0) as earned,
  -sum(e.amount) filter (where e.amount < 0) as spent,
  max(e.created_at) as last_activity_at`;

export type MemberSort = 'name' | 'balance' | 'recent';
/** The ledger rows of an org, each with its member's users row (u) and the org's record of them (m). */
const FROM = sql`points_entries e ${joinSeen('e')}`;
const GROUP = sql`group by u.id, m.id`;

const ORDER: Record<MemberSort, SqlFragment> = {
  name: sql`lower(coalesce(${SEEN.username}, ${SEEN.email}, ${SEEN.chatUserId})) asc, u.id asc`,
  balance: sql`balance desc, u.id asc`,
  recent: sql`last_activity_at desc, u.id asc`,
};

/** The search condition: part of the username or email, or the whole chat user id or student id, as the org knows them. */
function matching(q: string | undefined): SqlFragment {
  if (!q) return sql``;
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`and (${SEEN.username} ilike ${like} or ${SEEN.email} ilike ${like} or ${SEEN.chatUserId} = ${q} or ${SEEN.studentId} = ${q})`;
}

/** Members with at least one row in the org, with balances; `q` matches the username, email, chat user id or student id the org knows. */
export async function listMembers(db: OrgDb, opts: { q?: string; sort: MemberSort; page: number; perPage: number }) {
  const filter = matching(opts.q);
  const rows = await db.sql<SummaryRow>`
    select ${SUMMARY}, count(*) over () as total
      from ${FROM}
     where ${db.inOrg('e')} ${filter}
     ${GROUP} order by ${ORDER[opts.sort]} limit ${opts.perPage} offset ${(opts.page - 1) * opts.perPage}`;
  let total = rows.length ? Number(rows[0]!.total) : 0;
  if (!rows.length && opts.page > 1) {
    const c = await db.one<{ n: string }>`select count(distinct e.user_id) as n from ${FROM} where ${db.inOrg('e')} ${filter}`;
    total = Number(c!.n);
  }
  return { members: rows.map(summary), total };
}

/** The top members by balance (ties share a rank); members at zero or below are left out. */
export async function leaderboard(db: OrgDb, limit: number) {
  const rows = await db.sql<SummaryRow>`
    select * from (
      select ${SUMMARY}, rank() over (order by sum(e.amount) desc) as rank
        from ${FROM}
       where ${db.inOrg('e')}
       ${GROUP}) ranked
     where balance > 0 order by rank, user_id limit ${limit}`;
  return rows.map((r) => ({ rank: Number(r.rank), ...summary(r) }));
}

/**
 * A member of the org with their balance, or null when they have no row in this org: a user known only to other
 * orgs is nobody here (their email, student id and Discord id are not this org's to read).
 */
export async function memberSummary(db: OrgDb, userId: number): Promise<MemberSummary | null> {
  const row = await db.one<SummaryRow>`select ${SUMMARY} from ${FROM} where ${db.inOrg('e')} and e.user_id = ${userId} ${GROUP}`;
  return row ? summary(row) : null;
}

export interface EventSummary { name: string; entries: number; members: number; points: number; first_at: string; last_at: string }

/** Rows with an event name, grouped by it, most recent first. */
export async function listEvents(db: OrgDb): Promise<EventSummary[]> {
  const rows = await db.sql<{ name: string; entries: string; members: string; points: string; first_at: Date; last_at: Date }>`
    select event_name as name, count(*) as entries, count(distinct user_id) as members, sum(amount) as points,
           min(created_at) as first_at, max(created_at) as last_at
      from points_entries where ${db.inOrg()} and event_name is not null
     group by event_name order by max(created_at) desc, event_name`;
  return rows.map((r) => ({
    name: r.name, entries: Number(r.entries), members: Number(r.members), points: Number(r.points),
    first_at: new Date(r.first_at).toISOString(), last_at: new Date(r.last_at).toISOString(),
  }));
}
