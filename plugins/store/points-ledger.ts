// The points module's ledger as the store uses it: the service `points.ledger`. The store declares the interface
// it expects here instead of importing @quad/plugin-points (plugins never import each other); the core hands it the
// points module's implementation (`app.quad.service(pointsLedger)`), the registry checks at boot that a loaded
// module provides these methods, and test/plugin-api/services.test.ts checks at compile time that the points
// implementation fits this interface.
import { defineService, type EntityManager } from '@quad/core';

/** A person (a row of the core `users` table, shared by every org). Never shown as is: see `membersOf`. */
export interface Member { id: number; chatUserId: string | null; username: string | null; email: string | null }

/** A member as one org knows them: identifiers the org did not learn itself are null. */
export interface MemberView { user_id: number; email: string | null; username: string | null; chat_user_id: string | null }

export interface LedgerEntry {
  id: number; amount: number; source: string; reason: string; event_name: string | null; created_at: string;
}

export interface PointsLedger {
  /** Emails are stored trimmed and lower-case. */
  normalizeEmail(email: string): string;
  memberByEmail(em: EntityManager, email: string): Promise<Member | null>;
  memberByChatUserId(em: EntityManager, chatUserId: string): Promise<Member | null>;
  /** The org learns of a member by email (a storefront order): the person, created when new; in the caller's transaction. */
  joinByEmail(em: EntityManager, orgId: number, email: string): Promise<Member>;
  /** The org learns of a member through Discord (an order with a Discord session); in the caller's transaction. */
  joinByChatUserId(em: EntityManager, orgId: number, chatUserId: string, opts?: { username?: string | null }): Promise<Member>;
  /** Members as the org knows them; users the org has no record of are left out. */
  membersOf(em: EntityManager, orgId: number, userIds: readonly number[]): Promise<MemberView[]>;
  /** Serialize a member's spends in an org and read their balance under the lock; first thing inside the transaction that writes. */
  lockMember(em: EntityManager, orgId: number, userId: number): Promise<number>;
  balanceOf(em: EntityManager, orgId: number, userId: number): Promise<number>;
  /** One ledger row in the caller's transaction: the spend of an order (negative) or its refund. */
  addEntry(em: EntityManager, entry: {
    orgId: number; userId: number; amount: number; source: 'order' | 'refund'; reason: string; awardedBy: string; ref: string;
  }): Promise<unknown>;
  /** The member's rows in the org, newest first. */
  entriesOf(em: EntityManager, orgId: number, userId: number, page: { limit: number }): Promise<{ entries: LedgerEntry[]; total: number }>;
}

export const pointsLedger = defineService<PointsLedger>({
  id: 'points.ledger',
  methods: [
    'normalizeEmail', 'memberByEmail', 'memberByChatUserId', 'joinByEmail', 'joinByChatUserId', 'membersOf',
    'lockMember', 'balanceOf', 'addEntry', 'entriesOf',
  ],
});
