// What the store's route files share (routes/*.ts, mounted by the core with @fastify/autoload): parameter and body
// schemas, the store page, the member's wallet and placing an order.
import { OrgRef, Type, pageOf, type Caller, type CoreServices, type EntityManager, type OrgDb, type OrgSnapshot } from '@quad/core';
import { Product, type OrderChannel } from './entities.js';
import { checkout, type Buyer } from './checkout.js';
import { pointsLedger, type Member, type PointsLedger } from './points-ledger.js';
import { OrderOut, orderView, productView, ProductOut } from './views.js';

export const ById = Type.Object({ org: OrgRef, id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const ByEmail = Type.Object({ org: OrgRef, email: Type.String({ minLength: 3, maxLength: 320 }) });

export const CheckoutBody = Type.Object({
  items: Type.Array(Type.Object({
    product_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
    price: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'the price the client showed; a mismatch with the catalog is 409 checkout_price_mismatch' }),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
  total: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'the total the client showed; compared with the catalog, never charged' }),
}, { additionalProperties: false });
export const CheckoutOut = Type.Object({ order: OrderOut, points_deducted: Type.Integer(), balance: Type.Integer() });

export const WalletOut = Type.Object({
  balance: Type.Integer(),
  entries: Type.Array(Type.Object({
    id: Type.Integer(), amount: Type.Integer(), source: Type.String(), reason: Type.String(),
    event_name: Type.Union([Type.String(), Type.Null()]), created_at: Type.String({ format: 'date-time' }),
  })),
});
const RECENT_ENTRIES = 50;

export const StoreOut = Type.Object({
  org: Type.Object({ prefix: Type.String(), name: Type.String() }),
  categories: Type.Array(Type.String()),
  products: Type.Array(ProductOut),
});
export const OrdersOut = pageOf('orders', OrderOut);

export interface RequestLike { em: EntityManager; db: OrgDb; org: OrgSnapshot | null; caller: Caller | null }

/** The points ledger (service `points.ledger`), from the core. */
export const ledgerOf = (services: CoreServices): PointsLedger => services.service(pointsLedger);

/** The store page: products in stock and their categories. */
export async function storePage(request: RequestLike) {
  const products = await request.em.find(Product, { stock: { $gt: 0 } }, { orderBy: { category: 'asc', name: 'asc', id: 'asc' } });
  return {
    org: { prefix: request.org!.prefix, name: request.org!.name },
    categories: [...new Set(products.map((p) => p.category).filter(Boolean))],
    products: products.map(productView),
  };
}

/** The member's balance and latest rows (an unknown member has none). */
export async function wallet(ledger: PointsLedger, em: EntityManager, orgId: number, member: Member | null) {
  if (!member) return { balance: 0, entries: [] };
  const { entries } = await ledger.entriesOf(em, orgId, member.id, { limit: RECENT_ENTRIES });
  return {
    balance: await ledger.balanceOf(em, orgId, member.id),
    entries: entries.map(({ id, amount, source, reason, event_name, created_at }) => ({ id, amount, source, reason, event_name, created_at })),
  };
}

/** Checkout for a buyer through a channel; the answer of both order routes. */
export async function placeOrder(
  services: CoreServices, request: RequestLike & { body: { items: { product_id: number; quantity: number; price: number }[]; total: number } },
  buyer: Buyer, channel: OrderChannel,
) {
  const result = await checkout(request.db, services, ledgerOf(services), {
    buyer, items: request.body.items, total: request.body.total, channel, actor: request.caller!.actor,
  });
  return { order: orderView(result.order, result.items), points_deducted: result.pointsDeducted, balance: result.balance };
}
