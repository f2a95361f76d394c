// Schemas and views of the store's records (they become the OpenAPI document).
import { Type, type EntityManager } from '@quad/core';
import { Order, OrderItem, ORDER_STATUSES, type OrderChannel, type OrderStatus } from './entities.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const OrgParams = Type.Object({ org: Type.String({ description: 'org prefix or id' }) });
export const ErrorBody = Type.Object({ error: Type.String(), reason: Type.Optional(Type.String()) }, { additionalProperties: true });
export const Status = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));
export const Paging = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
};

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

/** Orders (newest first) with their items, and for officers who placed them. */
export async function loadOrders(em: EntityManager, where: { userId?: number; status?: OrderStatus; id?: number }, opts: { page: number; perPage: number; withMember: boolean }) {
  const [orders, total] = await em.findAndCount(Order, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: opts.perPage, offset: (opts.page - 1) * opts.perPage });
  const ids = orders.map((o) => o.id);
  const items = ids.length ? await em.find(OrderItem, { orderId: { $in: ids } }, { orderBy: { id: 'asc' } }) : [];
  const members = new Map<number, MemberInfo>();
  if (opts.withMember && orders.length) {
    const userIds = [...new Set(orders.map((o) => o.userId))];
    const rows = await em.execute<{ id: number; email: string | null; username: string | null; chat_user_id: string | null }[]>(
      `select id, email, username, chat_user_id from users where id in (${userIds.map(() => '?').join(', ')})`, userIds);
    for (const r of rows) members.set(r.id, { email: r.email, username: r.username, chat_user_id: r.chat_user_id });
  }
  return {
    orders: orders.map((o) => orderView(o, items.filter((i) => i.orderId === o.id), opts.withMember ? members.get(o.userId) ?? { email: null, username: null, chat_user_id: null } : undefined)),
    total,
  };
}
