// Schemas and views of the store's records (they become the OpenAPI document).
import { Type, User, pageWindow, pagingQuery, type EntityManager } from '@quad/core';
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

/** Orders (newest first) with their items, and for officers who placed them. */
export async function loadOrders(em: EntityManager, where: { userId?: number; status?: OrderStatus; id?: number }, opts: { page: number; per_page: number; withMember: boolean }) {
  const [orders, total] = await em.findAndCount(Order, where, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageWindow(opts) });
  const ids = orders.map((o) => o.id);
  const items = ids.length ? await em.find(OrderItem, { orderId: { $in: ids } }, { orderBy: { id: 'asc' } }) : [];
  const members = new Map<number, MemberInfo>();
  if (opts.withMember && orders.length) {
    const userIds = [...new Set(orders.map((o) => o.userId))];
    const users = await em.find(User, { id: { $in: userIds } });
    for (const u of users) members.set(u.id, { email: u.email ?? null, username: u.username ?? null, chat_user_id: u.chatUserId ?? null });
  }
  return {
    orders: orders.map((o) => orderView(o, items.filter((i) => i.orderId === o.id), opts.withMember ? members.get(o.userId) ?? { email: null, username: null, chat_user_id: null } : undefined)),
    total,
  };
}
