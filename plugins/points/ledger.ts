// The ledger: members (core `users` rows), the per-member lock, balances, rows. Everything takes the caller's
// EntityManager, so it joins the caller's transaction. Other modules (the store) use it as the service
// `points.ledger` (`pointsLedger` below), never by importing this package.
import { defineService, type EntityManager } from '@quad/core';
import { PointsEntry, type EntrySource } from './entities.js';

/** A member as the points module sees them: a row of the core `users` table. */
export interface Member {
  id: number;
  chatUserId: string | null;
  username: string | null;
  email: string | null;
  studentId: string | null;
}

interface UserRow { id: number; chat_user_id: string | null; username: string | null; email: string | null; student_id: string | null }
const toMember = (r: UserRow): Member => ({ id: r.id, chatUserId: r.chat_user_id, username: r.username, email: r.email, studentId: r.student_id });
const USER_COLUMNS = 'id, chat_user_id, username, email, student_id';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The member with this email (stored lower-case), or null. */
export async function memberByEmail(em: EntityManager, email: string): Promise<Member | null> {
  const [row] = await em.execute<UserRow[]>(`select ${USER_COLUMNS} from users where email = ?`, [normalizeEmail(email)]);
  return row ? toMember(row) : null;
}

/** The member with this chat user id, or null. */
export async function memberByChatUserId(em: EntityManager, chatUserId: string): Promise<Member | null> {
  const [row] = await em.execute<UserRow[]>(`select ${USER_COLUMNS} from users where chat_user_id = ?`, [chatUserId]);
  return row ? toMember(row) : null;
}

/** The member with this email, created when there is none (concurrent callers get the same row). */
export async function ensureMemberByEmail(em: EntityManager, email: string, extra: { studentId?: string | null } = {}): Promise<Member> {
  const address = normalizeEmail(email);
  await em.execute('insert into users (email, student_id) values (?, ?) on conflict (email) do nothing', [address, extra.studentId ?? null]);
  const member = (await memberByEmail(em, address))!;
  if (extra.studentId && !member.studentId) {
    await em.execute('update users set student_id = ? where id = ? and student_id is null', [extra.studentId, member.id]);
    member.studentId = extra.studentId;
  }
  return member;
}

/** The member with this chat user id, created when there is none; a known username is kept up to date. */
export async function ensureMemberByChatUserId(em: EntityManager, chatUserId: string, username?: string | null): Promise<Member> {
  await em.execute(
    `insert into users (chat_user_id, username) values (?, ?) on conflict (chat_user_id) do
       update set username = coalesce(excluded.username, users.username) where users.username is distinct from coalesce(excluded.username, users.username)`,
    [chatUserId, username ?? null],
  );
  return (await memberByChatUserId(em, chatUserId))!;
}

/**
 * Serialize a member's spends and cooldown checks in an org: a transaction-scoped advisory lock, released at
 * commit or rollback. Call it first thing inside the transaction that reads the balance and writes rows.
 */
export async function lockMember(em: EntityManager, orgId: number, userId: number): Promise<void> {
  if (!em.isInTransaction()) throw new Error('lockMember needs a transaction (em.transactional)');
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`points.member:${orgId}:${userId}`]);
}

/** A member's balance in the org: the sum of their rows. */
export async function balanceOf(em: EntityManager, orgId: number, userId: number): Promise<number> {
  const [row] = await em.execute<{ balance: string }[]>(
    'select coalesce(sum(amount), 0) as balance from points_entries where organization_id = ? and user_id = ?', [orgId, userId]);
  return Number(row!.balance);
}

export interface NewEntry {
  orgId: number;
  userId: number;
  /** Signed and not zero. */
  amount: number;
  source: EntrySource;
  reason?: string;
  eventName?: string | null;
  /** `officer:<chat id>`, `member:<chat id>`, `idp:<user id>` or `system`. */
  awardedBy: string;
  messageId?: string | null;
  ref?: string | null;
  createdAt?: Date;
}

/** Write one ledger row in the caller's transaction. */
export async function addEntry(em: EntityManager, entry: NewEntry) {
  if (!Number.isInteger(entry.amount) || entry.amount === 0) throw new Error(`a points row needs a non-zero integer amount, got ${entry.amount}`);
  const row = em.create(PointsEntry, {
    organization: entry.orgId,
    userId: entry.userId,
    amount: entry.amount,
    source: entry.source,
    reason: entry.reason ?? '',
    eventName: entry.eventName ?? null,
    awardedBy: entry.awardedBy,
    messageId: entry.messageId ?? null,
    ref: entry.ref ?? null,
    createdAt: entry.createdAt ?? new Date(),
  });
  await em.flush();
  return row;
}

/** A member's rows in the org, newest first, and how many there are. */
export async function entriesOf(em: EntityManager, orgId: number, userId: number, page: { limit: number; offset?: number }): Promise<{ entries: EntryView[]; total: number }> {
  const [rows, total] = await em.findAndCount(PointsEntry, { organization: orgId, userId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset ?? 0 });
  return { entries: rows.map(entryView), total };
}

/** Does the member have at least one row in the org? (a member of another org is nobody here) */
export async function hasEntries(em: EntityManager, orgId: number, userId: number): Promise<boolean> {
  const [row] = await em.execute('select 1 from points_entries where organization_id = ? and user_id = ? limit 1', [orgId, userId]);
  return row !== undefined;
}

export interface EntryView {
  id: number; user_id: number; amount: number; source: EntrySource; reason: string; event_name: string | null;
  awarded_by: string; ref: string | null; created_at: string;
}

export function entryView(e: { id: number; userId: number; amount: number; source: EntrySource; reason: string; eventName?: string | null; awardedBy: string; ref?: string | null; createdAt: Date }): EntryView {
  return {
    id: e.id, user_id: e.userId, amount: e.amount, source: e.source, reason: e.reason, event_name: e.eventName ?? null,
    awarded_by: e.awardedBy, ref: e.ref ?? null, created_at: e.createdAt.toISOString(),
  };
}

/** The service `points.ledger`: what other modules may do with the ledger. */
export const ledger = {
  normalizeEmail, memberByEmail, memberByChatUserId, ensureMemberByEmail, ensureMemberByChatUserId,
  lockMember, balanceOf, addEntry, entriesOf, hasEntries,
};
export type PointsLedger = typeof ledger;

export const pointsLedger = defineService<PointsLedger>({
  id: 'points.ledger',
  description: 'Members, the per-member lock, balances and ledger rows, in the caller\'s transaction',
  methods: Object.keys(ledger) as (keyof PointsLedger)[],
});
