// Store tables (spec "Store records"): products, orders, order_items. Org-owned; members are core `users` rows.
import { defineOrgEntity, p } from '@quad/core';

export const ORDER_STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type OrderChannel = 'storefront' | 'member';

export const Product = defineOrgEntity({
  name: 'StoreProduct',
  tableName: 'products',
  properties: {
    id: p.integer().primary().autoincrement(),
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

export const Order = defineOrgEntity({
  name: 'StoreOrder',
  tableName: 'orders',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    total: p.integer(),
    status: p.string().$type<OrderStatus>().default('pending'),
    message: p.text().default(''),
    channel: p.string().$type<OrderChannel>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const OrderItem = defineOrgEntity({
  name: 'StoreOrderItem',
  tableName: 'order_items',
  properties: {
    id: p.integer().primary().autoincrement(),
    orderId: p.integer(),
    productId: p.integer().nullable(),
    name: p.string(),
    price: p.integer(),
    quantity: p.integer(),
  },
});
