// @quad/plugin-store: the store module (spec "Store records", "Store routes", checkout). Officers keep a catalog
// priced in points and manage orders; members order with a Discord session or, on the public storefront, with an
// identity-provider token. Needs the points module: checkout spends points through its ledger, the service
// `points.ledger` (declared in points-ledger.ts; the store never imports the points package).
import { defineModule } from '@quad/core';
import { Order, OrderItem, Product } from './entities.js';
import { pointsLedger } from './points-ledger.js';
import { storeDashboard } from './dashboard.js';

export { Product, Order, OrderItem, ORDER_STATUSES, type OrderStatus } from './entities.js';
export { checkout, type Buyer, type CheckoutInput, type CheckoutItem } from './checkout.js';
export { allowedMoves, changeOrder } from './orders.js';

export default defineModule({
  name: 'store',
  title: 'Store',
  description: 'A store where members spend their points: products, orders and a storefront for members.',
  category: 'Engagement',
  coreVersion: '^0.1.0',
  needs: [{ key: 'points', label: 'Points', kind: 'module' }],
  consumes: [pointsLedger],
  tables: { products: 'org', orders: 'org', order_items: 'org', store_member_orders: 'org' },
  entities: [Product, Order, OrderItem],
  migrations: new URL('./migrations/', import.meta.url),
  // One file per route group (catalog, orders, members, storefront), mounted by the core with @fastify/autoload.
  routes: new URL('./routes/', import.meta.url),
  events: ['order.created'],
  // Names the spec pins outside the store's namespace.
  claims: { events: ['order.created'] },
  dashboard: storeDashboard,
  // The Store page (products, orders) and Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'store', title: 'Store', icon: 'bag', component: 'StorePage' }],
    overviewCard: 'StoreCard',
  },
});
