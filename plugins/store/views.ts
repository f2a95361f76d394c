// Schemas and views of the store's records (they become the OpenAPI document).
import { Type, pageWindow, pagingQuery, sql, type OrgDb } from '@quad/core';
import type { PointsLedger } from './points-ledger.js';
import { Order, OrderItem, ORDER_STATUSES, type OrderChannel, type OrderStatus } from './entities.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Status = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));
/** Paging of the order lists: 100 rows by default, at most 500. */
export const Paging = pagingQuery({ default: 100, maximum: 500 });

export const ProductOut = Type.Object({
  id: Type.Integer(), name: Type.String(), price: Type.Integer(), stock: Type.Integer(), category: Type.String(),
  image_url: Nullable(Type.String()), description: Type.String(),
  created_at: Type.String({ format: 'date-time' }), updated_at: Type.String({ format: 'date-time' }),
});

export const OrderItemOut = Type.Object({ product_id: Nullable(Type.Integer()), name: Type.String(), price: Type.Integer(), quantity: Type.Integer() });
export const OrderOut = Type.Object({
  id: Type.Integer(), user_id: Type.Integer(), status: Status, total: Type.Integer(), message: Type.String(),
  channel: Type.Union([Type.Literal('storefront'), Type.Literal('member')]), items: Type.Array(OrderItemOut),
  member: Type.Optional(Type.Object({ email: Nullable(Type.String()), username: Nullable(Type.String()), chat_user_id: Nullable(Type.String()) })),
  created_at: Type.String({ format: 'date-time' }), updated_at: Type.String({ format: 'date-time' }),
});

export interface ProductLike {
  id: number; name: string; price: number; stock: number; category: string; imageUrl?: string | null; description: string; createdAt: Date; updatedAt: Date;
}

export const productView = (p: ProductLike) => ({
  id: p.id, name: p.name, price: p.price, stock: p.stock, category: p.category, image_url: p.imageUrl ?? null,
  description: p.description, created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString(),
});

interface OrderLike { id: number; userId: number; status: OrderStatus; total: number; message: string; channel: OrderChannel; createdAt: Date; updatedAt: Date }
interface ItemLike { orderId: number; productId?: number | null; name: string; price: number; quantity: number }
interface MemberInfo { email: string | null; username: string | null; chat_user_id: string | null }

export function orderView(o: OrderLike, items: ItemLike[], member?: MemberInfo) {
  return {
    id: o.id, user_id: o.userId, status: o.status, total: o.total, message: o.message, channel: o.channel,
    items: items.map((i) => ({ product_id: i.productId ?? null, name: i.name, price: i.price, quantity: i.quantity })),
    ...(member && { member }),
    created_at: o.createdAt.toISOString(), updated_at: o.updatedAt.toISOString(),
  };
}

const NOBODY: MemberInfo = { email: null, username: null, chat_user_id: null };

/**
 * Orders (newest first) with their items, and, for officers (`members`: the points ledger), who placed them as the
 * org knows them (an identifier the org never learned is null, whatever another org knows).
 */
export async function loadOrders(
  db: OrgDb, where: { userId?: number; status?: OrderStatus; id?: number },
  opts: { page: number; per_page: number; members?: PointsLedger },
) {
  const { em } = db;
  const orders = await em.find(Order, where, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageWindow(opts) });
  const total = await countOrders(db, where, opts.members !== undefined);
  const ids = orders.map((o) => o.id);
  const items = ids.length ? await em.find(OrderItem, { orderId: { $in: ids } }, { orderBy: { id: 'asc' } }) : [];
  const members = new Map<number, MemberInfo>();
  if (opts.members && orders.length) {
    const seen = await opts.members.membersOf(em, db.org, orders.map((o) => o.userId));
    for (const m of seen) members.set(m.user_id, { email: m.email, username: m.username, chat_user_id: m.chat_user_id });
  }
  return {
    orders: orders.map((o) => orderView(o, items.filter((i) => i.orderId === o.id), opts.members ? members.get(o.userId) ?? NOBODY : undefined)),
    total,
  };
}

/**
 * How many orders match: for the officers' list (the org's orders, by status or all) the sum of the maintained
 * counters (store_member_orders, one row per member and status) instead of counting every order the org has had;
 * a member's own orders or one order are counted as before.
 */
async function countOrders(db: OrgDb, where: { userId?: number; status?: OrderStatus; id?: number }, officers: boolean): Promise<number> {
  if (!officers || where.userId !== undefined || where.id !== undefined) return db.em.count(Order, where);
  const row = await db.one<{ n: string }>`
    select coalesce(sum(orders), 0) as n from store_member_orders where ${db.inOrg()}${where.status ? sql` and status = ${where.status}` : sql``}`;
  return Number(row!.n);
}
