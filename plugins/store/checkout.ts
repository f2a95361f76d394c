// Checkout: the spec's steps in order, in ONE transaction, serialized per member. The buyer's member row (and the
// org's record of them) is written first inside it, then the member lock (the points ledger's lockMember) is
// taken, so two orders of one member never read the same balance; products are locked in id order and stock is
// lowered only where it suffices, so stock never goes below zero. Any failure rolls the whole transaction back: no
// order, no points row, no stock change, no new member. The store's rows are reached through the org-bound handle
// (README "Org isolation"); the ledger's methods get the transaction's EntityManager, bound to the same org.
import { HttpError, conflict, badRequest, type CoreServices, type OrgDb } from '@quad/core';
import type { Member, PointsLedger } from './points-ledger.js';
import type { OrderChannel, OrderStatus } from './entities.js';

export interface CheckoutItem { product_id: number; quantity: number; price: number }
/** Who orders: a storefront member by email, or a member with a Discord session by chat user id. */
export type Buyer = { email: string } | { chatUserId: string; username?: string | null };

export interface CheckoutInput {
  buyer: Buyer;
  items: CheckoutItem[];
  /** The total the client computed; compared with the catalog, never used. */
  total: number;
  channel: OrderChannel;
  /** Who placed it, for the ledger row: `member:<chat id>` or `idp:<user id>`. */
  actor: string;
}

interface LockedProduct { id: number; name: string; price: number; stock: number }

/** Deadlocks and serialization failures are retried (e.g. two events pruning the same notifications). */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 4;

export async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 20));
    }
  }
}

/** The buyer as the order's notification names them: the identifier they ordered with. */
const buyerName = (b: Buyer) => 'email' in b ? b.email : b.username ?? b.chatUserId;

export async function checkout(db: OrgDb, services: Pick<CoreServices, 'emit'>, ledger: PointsLedger, input: CheckoutInput) {
  const { buyer } = input;
  const seen = new Set<number>();
  for (const item of input.items) {
    if (seen.has(item.product_id)) throw badRequest(`Product ${item.product_id} is listed twice; send one line with its quantity`, 'duplicate_item');
    seen.add(item.product_id);
  }
  const ids = [...seen].sort((a, b) => a - b);

  return withRetry(() => db.transaction(async (tx) => {
    const orgId = tx.org;
    const member: Member = 'email' in buyer
      ? await ledger.joinByEmail(tx.em, orgId, buyer.email)
      : await ledger.joinByChatUserId(tx.em, orgId, buyer.chatUserId, { username: buyer.username });
    // The member's lock, and their balance read under it (a maintained row, not a sum over their history).
    const balance = await ledger.lockMember(tx.em, orgId, member.id);
    const products = await tx.sql<LockedProduct>`
      select id, name, price, stock from products where ${tx.inOrg()} and id = any(${ids}::int[]) order by id for update`;
    const byId = new Map(products.map((p) => [p.id, p]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length) throw new HttpError(404, `No product ${missing.join(', ')} in this store`, 'product_not_found', { product_ids: missing });
    const catalogTotal = input.items.reduce((sum, i) => sum + byId.get(i.product_id)!.price * i.quantity, 0);

    // 1. Balance against the catalog total.
    if (balance < catalogTotal) {
      throw badRequest(`This order costs ${catalogTotal} points; the balance is ${balance}`, 'insufficient_points', { balance, total: catalogTotal });
    }
    // 2. Stock, lowered only where enough is left (rows are locked above, in id order).
    for (const id of ids) {
      const item = input.items.find((i) => i.product_id === id)!;
      const product = byId.get(id)!;
      const updated = await tx.run`
        update products set stock = stock - ${item.quantity}::int, updated_at = now()
        where ${tx.inOrg()} and id = ${id} and stock >= ${item.quantity}::int`;
      if (!updated) {
        throw conflict(`Only ${product.stock} of "${product.name}" left`, 'out_of_stock', { product_id: id, available: product.stock, requested: item.quantity });
      }
    }
    // 3. Prices: the client's must equal the catalog's; the catalog's are the ones charged.
    const mismatched = input.items.filter((i) => i.price !== byId.get(i.product_id)!.price)
      .map((i) => ({ product_id: i.product_id, price: i.price, catalog_price: byId.get(i.product_id)!.price }));
    if (mismatched.length || input.total !== catalogTotal) {
      throw conflict('Prices changed since the cart was filled; reload the store', 'checkout_price_mismatch', {
        items: mismatched, total: input.total, catalog_total: catalogTotal,
      });
    }
    // 4. The order and its items (name and price kept as charged), in one statement.
    const { order, items } = await insertOrder(tx, {
      userId: member.id, total: catalogTotal, channel: input.channel,
      items: input.items.map((i) => ({ productId: i.product_id, name: byId.get(i.product_id)!.name, price: byId.get(i.product_id)!.price, quantity: i.quantity })),
    });
    // 5. order.created (a notification for the officers).
    await services.emit(tx.em, {
      orgId, kind: 'order.created', title: `New order #${order.id} from ${buyerName(buyer)}`,
      message: items.map((i) => `${i.quantity} × ${i.name}`).join(', ') + ` — ${catalogTotal} points`,
      data: { order_id: order.id, user_id: member.id, total: catalogTotal, channel: input.channel, items: items.map((i) => ({ product_id: i.productId, name: i.name, price: i.price, quantity: i.quantity })) },
    });
    // 6. The negative points row (a free order spends nothing and writes no row).
    if (catalogTotal > 0) {
      await ledger.addEntry(tx.em, { orgId, userId: member.id, amount: -catalogTotal, source: 'order', reason: `Order #${order.id}`, awardedBy: input.actor, ref: `order:${order.id}` });
    }
    return { order, items, member, pointsDeducted: catalogTotal, balance: balance - catalogTotal };
  }));
}

export interface PlacedOrder { id: number; userId: number; status: OrderStatus; total: number; message: string; channel: OrderChannel; createdAt: Date; updatedAt: Date }
export interface PlacedItem { orderId: number; productId: number; name: string; price: number; quantity: number }

/** Insert an order and its items in one round trip (a data-modifying CTE), in the caller's transaction. */
async function insertOrder(tx: OrgDb, o: {
  userId: number; total: number; channel: OrderChannel; items: Omit<PlacedItem, 'orderId'>[];
}): Promise<{ order: PlacedOrder; items: PlacedItem[] }> {
  const row = await tx.one<{ id: number; created_at: Date; updated_at: Date }>`
    with o as (
      insert into orders (organization_id, user_id, total, channel, status, message) values (${tx.org}, ${o.userId}, ${o.total}, ${o.channel}, 'pending', '')
      returning id, created_at, updated_at),
    i as (
      insert into order_items (organization_id, order_id, product_id, name, price, quantity)
      select ${tx.org}::int, o.id, x.product_id, x.name, x.price, x.quantity
        from o, unnest(${o.items.map((i) => i.productId)}::int[], ${o.items.map((i) => i.name)}::text[],
                       ${o.items.map((i) => i.price)}::int[], ${o.items.map((i) => i.quantity)}::int[]) with ordinality as x(product_id, name, price, quantity, n)
       order by x.n)
    select id, created_at, updated_at from o`;
  const id = Number(row!.id);
  return {
    order: { id, userId: o.userId, status: 'pending', total: o.total, message: '', channel: o.channel, createdAt: new Date(row!.created_at), updatedAt: new Date(row!.updated_at) },
    items: o.items.map((i) => ({ ...i, orderId: id })),
  };
}

