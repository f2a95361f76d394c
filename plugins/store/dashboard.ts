// The store's part of the officer dashboard: catalog and order counts, and orders and points spent per UTC day.
import { bucketByDay, type DashboardDecl } from '@quad/core';

export const storeDashboard: DashboardDecl = {
  async overview({ db }) {
    const p = await db.one<{ products: string; in_stock: string; out_of_stock: string }>`
      select count(*) as products, count(*) filter (where stock > 0) as in_stock, count(*) filter (where stock = 0) as out_of_stock
        from products where ${db.inOrg()}`;
    // Order counts from the maintained per-member counters (store_member_orders), not every order.
    const o = await db.one<{ orders: string; open: string; pending: string; spent: string }>`
      select coalesce(sum(orders), 0) as orders,
             coalesce(sum(orders) filter (where status in ('pending', 'processing', 'shipped')), 0) as open,
             coalesce(sum(orders) filter (where status = 'pending'), 0) as pending,
             coalesce(sum(points) filter (where status <> 'cancelled'), 0) as spent
        from store_member_orders where ${db.inOrg()}`;
    return {
      products: Number(p!.products), products_in_stock: Number(p!.in_stock), products_out_of_stock: Number(p!.out_of_stock),
      orders: Number(o!.orders), open_orders: Number(o!.open), pending_orders: Number(o!.pending), points_spent: Number(o!.spent),
    };
  },
  async trends({ db }, { since, days }) {
    // The core's dayIndexSql (written for em.execute's `?`), with `since` as the handle's bound value.
    const from = since.toISOString();
    const rows = await db.sql<{ day: number; orders: string; spent: string }>`
      select floor(extract(epoch from (created_at - ${from}::timestamptz)) / 86400)::int as day, count(*) as orders,
             coalesce(sum(total) filter (where status <> 'cancelled'), 0) as spent
        from orders
       where ${db.inOrg()} and created_at >= ${from}::timestamptz and created_at < ${from}::timestamptz + make_interval(days => ${days}::int)
       group by 1`;
    const { orders, spent } = bucketByDay(rows, days, ['orders', 'spent']);
    return [
      { key: 'store.orders', title: 'Orders', values: orders },
      { key: 'store.points_spent', title: 'Points spent in the store', values: spent },
    ];
  },
};
