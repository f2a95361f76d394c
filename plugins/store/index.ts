// @quad/plugin-store: the store module (spec "Store records", "Store routes", checkout). Officers keep a catalog
// priced in points and manage orders; members order with a Discord session or, on the public storefront, with an
// identity-provider token. Needs the points module: checkout spends points through its ledger functions.
import { defineModule } from '@quad/core';
import { Order, OrderItem, Product } from './entities.js';
import { storeRoutes } from './routes.js';
import { storeDashboard } from './dashboard.js';

export { Product, Order, OrderItem, ORDER_STATUSES, type OrderStatus } from './entities.js';
export { checkout, type CheckoutInput, type CheckoutItem } from './checkout.js';
export { allowedMoves, changeOrder } from './orders.js';

export default defineModule({
  name: 'store',
  title: 'Store',
  description: 'A store where members spend their points: products, orders and a storefront for members.',
  category: 'Engagement',
  needs: [{ key: 'points', label: 'Points', kind: 'module' }],
  entities: [Product, Order, OrderItem],
  migrations: new URL('./migrations/', import.meta.url),
  routes: storeRoutes,
  events: ['order.created'],
  dashboard: storeDashboard,
});
