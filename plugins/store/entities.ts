// Store tables (spec "Store records"): products, orders, order_items. Org-owned; members are core `users` rows.
import { defineEntity, orgFilter, orgOwned, p } from '@quad/core';

export const ORDER_STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type OrderChannel = 'storefront' | 'member';

export const Product = defineEntity({
  name: 'StoreProduct',
  tableName: 'products',
  filters: orgFilter,
  properties: {
    id: p.integer().primary().autoincrement(),
    ...orgOwned,
    name: p.string(),
    price: p.integer(),
    stock: p.integer(),
    category: p.string().default(''),
    imageUrl: p.string().nullable(),
    description: p.text().default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const Order = defineEntity({
  name: 'StoreOrder',
  tableName: 'orders',
  filters: orgFilter,
  properties: {
    id: p.integer().primary().autoincrement(),
    ...orgOwned,
    userId: p.integer(),
    total: p.integer(),
    status: p.string().$type<OrderStatus>().default('pending'),
    message: p.text().default(''),
    channel: p.string().$type<OrderChannel>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const OrderItem = defineEntity({
  name: 'StoreOrderItem',
  tableName: 'order_items',
  filters: orgFilter,
  properties: {
    id: p.integer().primary().autoincrement(),
    ...orgOwned,
    orderId: p.integer(),
    productId: p.integer().nullable(),
    name: p.string(),
    price: p.integer(),
    quantity: p.integer(),
  },
});
