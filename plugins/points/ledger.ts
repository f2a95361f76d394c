// The ledger: members, the per-member lock, balances, rows. Everything takes the caller's EntityManager (bound to the
// org it names), so it joins the caller's transaction; org rows are reached through that EntityManager's org-bound
// handle (README "Org isolation"). Other modules (the store) use it as the service `points.ledger` (`pointsLedger`
// below), never by importing this package.
//
// A person is a row of the core `users` table, which every org shares; what one org knows of them (its student id
// for them, whether it knows them by email or through Discord) is that org's row of `points_members`. Views of a
// member always go through it (member-view.ts), so no org reads what another org recorded.
import { defineService, orgDbFor, sql, type EntityManager, type OrgDb, type SqlFragment } from '@quad/core';
import { PointsEntry, type EntrySource } from './entities.js';
import { SEEN_COLUMNS, type MemberView } from './member-view.js';

export type { MemberView } from './member-view.js';

/** A person: a row of the core `users` table. Not a view: show a member through `memberOf`/`membersOf`. */
export interface Member {
  id: number;
  chatUserId: string | null;
  username: string | null;
  email: string | null;
}

interface UserRow { id: number; chat_user_id: string | null; username: string | null; email: string | null }
const toMember = (r: UserRow): Member => ({ id: r.id, chatUserId: r.chat_user_id, username: r.username, email: r.email });
const USER_COLUMNS = 'id, chat_user_id, username, email';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();


/** The person with this email (stored lower-case), or null. */
export async function memberByEmail(em: EntityManager, email: string): Promise<Member | null> {
  const [row] = await em.execute<UserRow[]>(`select ${USER_COLUMNS} from users where email = ?`, [normalizeEmail(email)]);
  return row ? toMember(row) : null;
}

/** The person with this chat user id, or null. */
export async function memberByChatUserId(em: EntityManager, chatUserId: string): Promise<Member | null> {
  const [row] = await em.execute<UserRow[]>(`select ${USER_COLUMNS} from users where chat_user_id = ?`, [chatUserId]);
  return row ? toMember(row) : null;
}

/** The person with this email, created when there is none (concurrent callers get the same row). */
export async function ensureMemberByEmail(em: EntityManager, email: string): Promise<Member> {
  const address = normalizeEmail(email);
  await em.execute('insert into users (email) values (?) on conflict (email) do nothing', [address]);
  return (await memberByEmail(em, address))!;
}

/** The person with this chat user id, created when there is none; a known username is kept up to date. */
export async function ensureMemberByChatUserId(em: EntityManager, chatUserId: string, username?: string | null): Promise<Member> {
  await em.execute(
    `insert into users (chat_user_id, username) values (?, ?) on conflict (chat_user_id) do
       update set username = coalesce(excluded.username, users.username) where users.username is distinct from coalesce(excluded.username, users.username)`,
    [chatUserId, username ?? null],
  );
  return (await memberByChatUserId(em, chatUserId))!;
}

/** How an org came to know a member: by their email, or by their Discord id. */
export type KnownBy = 'email' | 'discord';

/**
 * Record in the org's points_members row that it knows the member (`by`), with the student id it recorded (a
 * student id already recorded stays). The row is updated, and so locked, only when this adds something.
 */
export async function noteMember(db: OrgDb, userId: number, by: KnownBy, studentId?: string | null): Promise<void> {
  const byEmail = by === 'email';
  const inserted = await db.run`
    insert into points_members (organization_id, user_id, student_id, known_by_email, known_by_discord)
    values (${db.org}, ${userId}, ${studentId ?? null}, ${byEmail}, ${!byEmail})
    on conflict (organization_id, user_id) do nothing`;
  if (inserted) return;
  const flag = sql.identifier(byEmail ? 'known_by_email' : 'known_by_discord');
  const sets = [sql`${flag} = true`];
  const news = [sql`not ${flag}`];
  if (studentId) { sets.push(sql`student_id = coalesce(student_id, ${studentId})`); news.push(sql`student_id is null`); }
  await db.run`update points_members set ${sql.join(sets)} where ${db.inOrg()} and user_id = ${userId} and (${sql.join(news, sql` or `)})`;
}

const needsTransaction = (em: EntityManager, what: string) => {
  if (!em.isInTransaction()) throw new Error(`${what} needs a transaction (em.transactional): it writes users and points_members together`);
};

/**
 * The org learns of a member by email (an award, a check-in row, a storefront order): the person, created when
 * new, and the org's record of them. Inside the caller's transaction, so a refused request leaves neither.
 */
export async function joinByEmail(em: EntityManager, orgId: number, email: string, opts: { studentId?: string | null } = {}): Promise<Member> {
  needsTransaction(em, 'joinByEmail');
  const db = orgDbFor(em, orgId);
  const address = normalizeEmail(email);
  const known = await knownMember(db, sql`u.email = ${address}`);
  if (known?.known_by_email && (!opts.studentId || known.student_id)) return toMember(known);
  const member = await ensureMemberByEmail(em, address);
  await noteMember(db, member.id, 'email', opts.studentId);
  return member;
}

interface KnownRow extends UserRow { known_by_email: boolean | null; known_by_discord: boolean | null; student_id: string | null }

/**
 * The person and what the org already knows of them, in one statement: a member the org already knows the same
 * way (and with nothing new to record) needs no write, so the join costs this one read.
 */
async function knownMember(db: OrgDb, person: SqlFragment): Promise<KnownRow | null> {
  return db.one<KnownRow>`
    select u.id, u.chat_user_id, u.username, u.email, m.known_by_email, m.known_by_discord, m.student_id
      from users u left join points_members m on ${db.inOrg('m')} and m.user_id = u.id where ${person}`;
}

/**
 * The org learns of a member by their Discord id (an award, a check-in row, a message or join on its server, an
 * order with a Discord session). Inside the caller's transaction.
 */
export async function joinByChatUserId(em: EntityManager, orgId: number, chatUserId: string, opts: { username?: string | null; studentId?: string | null } = {}): Promise<Member> {
  needsTransaction(em, 'joinByChatUserId');
  const db = orgDbFor(em, orgId);
  const known = await knownMember(db, sql`u.chat_user_id = ${chatUserId}`);
  if (known?.known_by_discord && (!opts.username || known.username === opts.username) && (!opts.studentId || known.student_id)) return toMember(known);
  const member = await ensureMemberByChatUserId(em, chatUserId, opts.username);
  await noteMember(db, member.id, 'discord', opts.studentId);
  return member;
}

/** Members as the org sees them (see member-view.ts); a user the org has no record of is left out. */
export async function membersOf(em: EntityManager, orgId: number, userIds: readonly number[]): Promise<MemberView[]> {
  const ids = [...new Set(userIds)];
  if (!ids.length) return [];
  const db = orgDbFor(em, orgId);
  return db.sql<MemberView>`
    select ${SEEN_COLUMNS} from points_members m join users u on u.id = m.user_id
     where ${db.inOrg('m')} and m.user_id = any(${ids}::int[]) order by u.id`;
}

/** One member as the org sees them, or null when the org has no record of them. */
export async function memberOf(em: EntityManager, orgId: number, userId: number): Promise<MemberView | null> {
  return (await membersOf(em, orgId, [userId]))[0] ?? null;
}

/**
 * Serialize a member's spends and cooldown checks in an org, and read their balance under the lock: the member's
 * points_balances row (created at 0 when they have none) is locked until commit or rollback. Every ledger write
 * updates that row too (migration 0004), so a balance read here cannot change before the transaction ends. Call it
 * first thing inside the transaction that reads the balance and writes rows.
 */
export async function lockMember(em: EntityManager, orgId: number, userId: number): Promise<number> {
  if (!em.isInTransaction()) throw new Error('lockMember needs a transaction (em.transactional)');
  const db = orgDbFor(em, orgId);
  const row = await db.one<{ balance: string }>`
    insert into points_balances (organization_id, user_id, balance) values (${db.org}, ${userId}, 0)
    on conflict (organization_id, user_id) do update set balance = points_balances.balance returning balance`;
  return Number(row!.balance);
}

/** A member's balance in the org: the sum of their rows, as maintained in points_balances (one row read). */
export async function balanceOf(em: EntityManager, orgId: number, userId: number): Promise<number> {
  const db = orgDbFor(em, orgId);
  const row = await db.one<{ balance: string }>`select balance from points_balances where ${db.inOrg()} and user_id = ${userId}`;
  return Number(row?.balance ?? 0);
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
  const db = orgDbFor(em, orgId);
  return (await db.one`select 1 from points_entries where ${db.inOrg()} and user_id = ${userId} limit 1`) !== null;
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
  normalizeEmail, memberByEmail, memberByChatUserId, joinByEmail, joinByChatUserId, memberOf, membersOf,
  lockMember, balanceOf, addEntry, entriesOf, hasEntries,
};
export type PointsLedger = typeof ledger;

export const pointsLedger = defineService<PointsLedger>({
  id: 'points.ledger',
  description: 'Members as each org knows them, the per-member lock, balances and ledger rows, in the caller\'s transaction',
  methods: Object.keys(ledger) as (keyof PointsLedger)[],
});
