// Order status moves and the officer's order changes. Allowed moves only go forward along
// pending → processing → shipped → delivered (skipping a step is allowed: an item handed over at a meeting goes
// straight to delivered), and any state before delivered may move to cancelled. Delivered and cancelled are final.
// Cancelling gives the points back (a positive row) and puts the stock back; deleting does neither. Rows are reached
// through the org-bound handle (README "Org isolation").
import { conflict, notFound, sql, type EntityManager, type OrgDb } from '@quad/core';
import type { PointsLedger } from './points-ledger.js';
import { Order, OrderItem, ORDER_STATUSES, type OrderStatus } from './entities.js';
import { withRetry } from './checkout.js';

const RANK: Record<OrderStatus, number> = { pending: 0, processing: 1, shipped: 2, delivered: 3, cancelled: -1 };

/** The statuses an order may move to from `from` (not counting staying where it is). */
export function allowedMoves(from: OrderStatus): OrderStatus[] {
  if (from === 'delivered' || from === 'cancelled') return [];
  return ORDER_STATUSES.filter((to) => to === 'cancelled' || RANK[to] > RANK[from]);
}

export async function changeOrder(db: OrgDb, ledger: PointsLedger, input: {
  orderId: number; status?: OrderStatus; message?: string;
  /** Who changed it, for the refund's ledger row. */
  actor: string;
  /** Audit the change in the transaction that makes it (the request's audit helper). */
  audit: (em: EntityManager, action: string, details: Record<string, unknown>) => Promise<void>;
}) {
  const found = await db.em.findOne(Order, { id: input.orderId });
  if (!found) throw notFound(`No order ${input.orderId}`, 'order_not_found');
  const userId = found.userId;
  return withRetry(() => db.transaction(async (tx) => {
    // Same lock as checkout: a refund and a spend of one member never interleave.
    await ledger.lockMember(tx.em, tx.org, userId);
    const row = await tx.one<{ status: OrderStatus; total: number }>`
      select status, total from orders where ${tx.inOrg()} and id = ${input.orderId} for update`;
    if (!row) throw notFound(`No order ${input.orderId}`, 'order_not_found');
    const from = row.status;
    const to = input.status ?? from;
    if (to !== from && !allowedMoves(from).includes(to)) {
      throw conflict(`An order that is ${from} cannot move to ${to}`, 'order_status_move', { from, to, allowed: allowedMoves(from) });
    }
    let refunded = 0;
    if (to === 'cancelled' && from !== 'cancelled') {
      if (row.total > 0) {
        await ledger.addEntry(tx.em, { orgId: tx.org, userId, amount: row.total, source: 'refund', reason: `Order #${input.orderId} cancelled`, awardedBy: input.actor, ref: `order:${input.orderId}` });
        refunded = row.total;
      }
      const items = await tx.em.find(OrderItem, { orderId: input.orderId, productId: { $ne: null } }, { orderBy: { productId: 'asc' } });
      for (const item of items) {
        await tx.run`update products set stock = stock + ${item.quantity}::int, updated_at = now() where ${tx.inOrg()} and id = ${item.productId}`;
      }
    }
    const sets = [sql`updated_at = now()`];
    if (to !== from) sets.push(sql`status = ${to}`);
    if (input.message !== undefined) sets.push(sql`message = ${input.message}`);
    await tx.run`update orders set ${sql.join(sets)} where ${tx.inOrg()} and id = ${input.orderId}`;
    await input.audit(tx.em, 'store.order_update', { order_id: input.orderId, from, to, message: input.message !== undefined, refunded });
    return { from, to, refunded };
  }));
}
