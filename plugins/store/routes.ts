// Routes of the store module, all under /api/storefront/<org> (spec "Store routes"): the catalog for everyone,
// catalog and order management for officers, the store and orders for members with a Discord session, and
// checkout, wallet and orders for storefront members with an identity-provider token.
import { Type, badRequest, forbidden, notFound, type Caller, type EntityManager, type OrgSnapshot, type RoutesPlugin } from '@quad/core';
import {
  PointsEntry, balanceOf, ensureMemberByChatUserId, ensureMemberByEmail, entryView, memberByEmail, normalizeEmail, type Member,
} from '@quad/plugin-points';
import { Product, Order, type OrderChannel } from './entities.js';
import { checkout } from './checkout.js';
import { changeOrder } from './orders.js';
import { ErrorBody, OrderOut, OrgParams, Paging, ProductOut, Status, loadOrders, orderView, productView } from './views.js';

const secured = [{ bearer: [] }];
const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const ById = Type.Object({ org: OrgParams.properties.org, id: Type.Integer({ minimum: 1 }) });
const ByEmail = Type.Object({ org: OrgParams.properties.org, email: Type.String({ minLength: 3, maxLength: 320 }) });

const ImageUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });
const ProductFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  price: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'points' }),
  category: Type.String({ maxLength: 100 }),
  image_url: Type.Union([ImageUrl, Type.Null()]),
  description: Type.String({ maxLength: 5000 }),
};

const CheckoutBody = Type.Object({
  items: Type.Array(Type.Object({
    product_id: Type.Integer({ minimum: 1 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
    price: Type.Integer({ minimum: 0, description: 'the price the client showed; a mismatch with the catalog is 409 checkout_price_mismatch' }),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
  total: Type.Integer({ minimum: 0, description: 'the total the client showed; compared with the catalog, never charged' }),
}, { additionalProperties: false });
const CheckoutOut = Type.Object({ order: OrderOut, points_deducted: Type.Integer(), balance: Type.Integer() });
const CheckoutErrors = { ...Errors, 409: ErrorBody };

const WalletOut = Type.Object({
  balance: Type.Integer(),
  entries: Type.Array(Type.Object({
    id: Type.Integer(), amount: Type.Integer(), source: Type.String(), reason: Type.String(),
    event_name: Type.Union([Type.String(), Type.Null()]), created_at: Type.String({ format: 'date-time' }),
  })),
});
const RECENT_ENTRIES = 50;

interface RequestLike { em: EntityManager; org: OrgSnapshot | null; caller: Caller | null }

interface StoreCaller extends Caller { kind: string; email?: string; chatUserId?: string; username?: string | null; userId?: string }

export const storeRoutes: RoutesPlugin = async (app) => {
  // --- the catalog (everyone) ---

  const CatalogQuery = Type.Object({
    category: Type.Optional(Type.String({ maxLength: 100 })),
    in_stock: Type.Boolean({ default: false, description: 'only products with stock left' }),
  });

  app.get('/api/storefront/:org/products', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'The catalog', params: OrgParams, querystring: CatalogQuery, response: { 200: Type.Object({ products: Type.Array(ProductOut) }), 400: ErrorBody, 404: ErrorBody } },
  }, async (request) => {
    const { category, in_stock } = request.query;
    const products = await request.em.find(Product, { ...(category !== undefined && { category }), ...(in_stock && { stock: { $gt: 0 } }) }, { orderBy: { category: 'asc', name: 'asc', id: 'asc' } });
    return { products: products.map(productView) };
  });

  app.get('/api/storefront/:org/products/:id', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'One product', params: ById, response: { 200: ProductOut, 400: ErrorBody, 404: ErrorBody } },
  }, async (request) => {
    const product = await request.em.findOne(Product, { id: request.params.id });
    if (!product) throw notFound(`No product ${request.params.id}`, 'product_not_found');
    return productView(product);
  });

  const StoreOut = Type.Object({
    org: Type.Object({ prefix: Type.String(), name: Type.String() }),
    categories: Type.Array(Type.String()),
    products: Type.Array(ProductOut),
  });
  const storePage = async (request: RequestLike) => {
    const products = await request.em.find(Product, { stock: { $gt: 0 } }, { orderBy: { category: 'asc', name: 'asc', id: 'asc' } });
    return {
      org: { prefix: request.org!.prefix, name: request.org!.name },
      categories: [...new Set(products.map((p) => p.category).filter(Boolean))],
      products: products.map(productView),
    };
  };

  app.get('/api/storefront/:org/store', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'The store page: products in stock and their categories', params: OrgParams, response: { 200: StoreOut, 404: ErrorBody } },
  }, async (request) => storePage(request));

  // --- the catalog (officers) ---

  app.post('/api/storefront/:org/products', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Add a product (stock 1 or more)', security: secured, params: OrgParams,
      body: Type.Object({
        name: ProductFields.name, price: ProductFields.price,
        stock: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'a new product needs stock of 1 or more' }),
        category: Type.Optional(ProductFields.category), image_url: Type.Optional(ProductFields.image_url), description: Type.Optional(ProductFields.description),
      }, { additionalProperties: false }),
      response: { 201: ProductOut, ...Errors },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const b = request.body;
    const name = b.name.trim();
    if (!name) throw badRequest('body.name: must not be blank', 'blank_name');
    const product = await request.em.transactional(async (em) => {
      const row = em.create(Product, {
        organization: org.id, name, price: b.price, stock: b.stock, category: b.category?.trim() ?? '',
        imageUrl: b.image_url ?? null, description: b.description ?? '',
      });
      await em.flush();
      await app.quad.audit(em, { orgId: org.id, actor: request.caller!.actor, action: 'store.product_create', details: { product_id: row.id, name, price: b.price, stock: b.stock } });
      return row;
    });
    return reply.code(201).send(productView(product));
  });

  app.put('/api/storefront/:org/products/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Change a product (fields left out stay; image_url null removes it)', security: secured, params: ById,
      body: Type.Object({
        name: Type.Optional(ProductFields.name), price: Type.Optional(ProductFields.price),
        stock: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
        category: Type.Optional(ProductFields.category), image_url: Type.Optional(ProductFields.image_url), description: Type.Optional(ProductFields.description),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: ProductOut, ...Errors },
    },
  }, async (request) => {
    const org = request.org!;
    const b = request.body;
    if (b.name !== undefined && !b.name.trim()) throw badRequest('body.name: must not be blank', 'blank_name');
    return request.em.transactional(async (em) => {
      const product = await em.findOne(Product, { id: request.params.id });
      if (!product) throw notFound(`No product ${request.params.id}`, 'product_not_found');
      if (b.name !== undefined) product.name = b.name.trim();
      if (b.price !== undefined) product.price = b.price;
      if (b.stock !== undefined) product.stock = b.stock;
      if (b.category !== undefined) product.category = b.category.trim();
      if (b.image_url !== undefined) product.imageUrl = b.image_url;
      if (b.description !== undefined) product.description = b.description;
      await em.flush();
      await app.quad.audit(em, { orgId: org.id, actor: request.caller!.actor, action: 'store.product_update', details: { product_id: product.id, fields: Object.keys(b) } });
      return productView(product);
    });
  });

  app.delete('/api/storefront/:org/products/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Delete a product (orders keep its name and price)', security: secured, params: ById,
      response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    const org = request.org!;
    await request.em.transactional(async (em) => {
      const n = await em.nativeDelete(Product, { id: request.params.id });
      if (!n) throw notFound(`No product ${request.params.id}`, 'product_not_found');
      await app.quad.audit(em, { orgId: org.id, actor: request.caller!.actor, action: 'store.product_delete', details: { product_id: request.params.id } });
    });
    return { deleted: request.params.id };
  });

  // --- orders (officers) ---

  const OrdersOut = Type.Object({ orders: Type.Array(OrderOut), page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() });

  app.get('/api/storefront/:org/orders', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Orders of the org, newest first', security: secured, params: OrgParams,
      querystring: Type.Object({ status: Type.Optional(Status), ...Paging }),
      response: { 200: OrdersOut, ...Errors },
    },
  }, async (request) => {
    const { status, page, per_page } = request.query;
    const { orders, total } = await loadOrders(request.em, { ...(status && { status }) }, { page, perPage: per_page, withMember: true });
    return { orders, page, per_page, total };
  });

  // GET /orders/<id> (officers) and GET /orders/<email> (storefront members) share a path: a numeric segment is an id.
  app.get('/api/storefront/:org/orders/:id(^\\d+$)', {
    config: { auth: 'officer' },
    schema: { tags: ['store'], summary: 'One order', security: secured, params: ById, response: { 200: OrderOut, ...Errors } },
  }, async (request) => {
    const { orders } = await loadOrders(request.em, { id: request.params.id }, { page: 1, perPage: 1, withMember: true });
    if (!orders[0]) throw notFound(`No order ${request.params.id}`, 'order_not_found');
    return orders[0];
  });

  app.put('/api/storefront/:org/orders/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'],
      summary: 'Move an order (pending → processing → shipped → delivered, forward only; cancelled from any state before delivered, which gives the points back) and/or set the message to the member',
      security: secured, params: ById,
      body: Type.Object({ status: Type.Optional(Status), message: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Type.Object({ order: OrderOut, from: Status, refunded: Type.Integer() }), ...Errors, 409: ErrorBody },
    },
  }, async (request) => {
    const org = request.org!;
    const { status, message } = request.body;
    const moved = await changeOrder(request.em, app.quad, { orgId: org.id, orderId: request.params.id, status, message: message?.trim(), actor: request.caller!.actor });
    request.em.clear();
    const { orders } = await loadOrders(request.em, { id: request.params.id }, { page: 1, perPage: 1, withMember: true });
    return { order: orders[0]!, from: moved.from, refunded: moved.refunded };
  });

  app.delete('/api/storefront/:org/orders/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Delete an order (its points are not given back, its stock not put back)', security: secured, params: ById,
      response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    const org = request.org!;
    await request.em.transactional(async (em) => {
      const order = await em.findOne(Order, { id: request.params.id });
      if (!order) throw notFound(`No order ${request.params.id}`, 'order_not_found');
      await em.nativeDelete(Order, { id: order.id }); // items go with it (on delete cascade)
      await app.quad.audit(em, { orgId: org.id, actor: request.caller!.actor, action: 'store.order_delete', details: { order_id: order.id, user_id: order.userId, total: order.total, status: order.status } });
    });
    return { deleted: request.params.id };
  });

  // --- members with a Discord session ---

  const sessionMember = (request: RequestLike): Promise<Member> => {
    const c = request.caller as StoreCaller;
    return ensureMemberByChatUserId(request.em, c.chatUserId!, c.username ?? null);
  };
  const wallet = async (em: EntityManager, orgId: number, member: Member | null) => {
    if (!member) return { balance: 0, entries: [] };
    const entries = await em.find(PointsEntry, { userId: member.id }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: RECENT_ENTRIES });
    return {
      balance: await balanceOf(em, orgId, member.id),
      entries: entries.map(entryView).map(({ id, amount, source, reason, event_name, created_at }) => ({ id, amount, source, reason, event_name, created_at })),
    };
  };

  app.get('/api/storefront/:org/members/store', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'The store for a signed-in member: products in stock and the member\'s balance', params: OrgParams,
      response: { 200: Type.Object({ ...StoreOut.properties, balance: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    const member = await sessionMember(request);
    return { ...(await storePage(request)), balance: await balanceOf(request.em, request.org!.id, member.id) };
  });

  app.get('/api/storefront/:org/members/points', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'The member\'s balance and latest points rows', params: OrgParams,
      response: { 200: Type.Object({ chat_user_id: Type.String(), ...WalletOut.properties }), ...Errors },
    },
  }, async (request) => {
    const member = await sessionMember(request);
    return { chat_user_id: member.chatUserId!, ...(await wallet(request.em, request.org!.id, member)) };
  });

  const MemberOrdersOut = Type.Object({ orders: Type.Array(OrderOut), page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() });

  app.get('/api/storefront/:org/members/orders', {
    config: { auth: 'member' },
    schema: { tags: ['store'], summary: 'The member\'s orders, newest first', params: OrgParams, querystring: Type.Object(Paging), response: { 200: MemberOrdersOut, ...Errors } },
  }, async (request) => {
    const member = await sessionMember(request);
    const { page, per_page } = request.query;
    const { orders, total } = await loadOrders(request.em, { userId: member.id }, { page, perPage: per_page, withMember: false });
    return { orders, page, per_page, total };
  });

  const placeOrder = async (request: RequestLike & { body: { items: { product_id: number; quantity: number; price: number }[]; total: number } }, member: Member, channel: OrderChannel, actor: string) => {
    const result = await checkout(request.em, app.quad, { orgId: request.org!.id, member, items: request.body.items, total: request.body.total, channel, actor });
    return { order: orderView(result.order, result.items), points_deducted: result.pointsDeducted, balance: result.balance };
  };

  app.post('/api/storefront/:org/members/orders', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'Place an order (checkout) with the member\'s points', params: OrgParams, body: CheckoutBody,
      response: { 201: CheckoutOut, ...CheckoutErrors },
    },
  }, async (request, reply) => {
    const member = await sessionMember(request);
    return reply.code(201).send(await placeOrder(request, member, 'member', request.caller!.actor));
  });

  // --- storefront members (identity-provider token) ---

  /** The storefront member's email; platform tokens (officers) are refused: these routes are the member's own. */
  const storefrontEmail = (caller: Caller | null): string => {
    const c = caller as StoreCaller | null;
    if (c?.kind !== 'idp' || !c.email) throw forbidden('This route needs a storefront member\'s identity-provider token', 'storefront_token_required');
    return normalizeEmail(c.email);
  };
  const ownEmail = (caller: Caller | null, email: string): string => {
    const mine = storefrontEmail(caller);
    if (normalizeEmail(email) !== mine) throw forbidden('You may only read your own wallet and orders', 'not_your_email');
    return mine;
  };

  app.post('/api/storefront/:org/checkout', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'Storefront checkout with the member\'s points (identity-provider token)', security: secured, params: OrgParams, body: CheckoutBody,
      response: { 201: CheckoutOut, ...CheckoutErrors, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const email = storefrontEmail(request.caller);
    const member = await ensureMemberByEmail(request.em, email);
    return reply.code(201).send(await placeOrder(request, member, 'storefront', request.caller!.actor));
  });

  app.get('/api/storefront/:org/wallet/:email', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'The storefront member\'s balance and latest points rows (own email only)', security: secured, params: ByEmail,
      response: { 200: Type.Object({ email: Type.String(), ...WalletOut.properties }), ...Errors, 503: ErrorBody },
    },
  }, async (request) => {
    const email = ownEmail(request.caller, request.params.email);
    const member = await memberByEmail(request.em, email);
    return { email, ...(await wallet(request.em, request.org!.id, member)) };
  });

  app.get('/api/storefront/:org/orders/:email', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'The storefront member\'s orders, newest first (own email only)', security: secured, params: ByEmail, querystring: Type.Object(Paging),
      response: { 200: Type.Object({ email: Type.String(), ...MemberOrdersOut.properties }), ...Errors, 503: ErrorBody },
    },
  }, async (request) => {
    const email = ownEmail(request.caller, request.params.email);
    const member = await memberByEmail(request.em, email);
    const { page, per_page } = request.query;
    if (!member) return { email, orders: [], page, per_page, total: 0 };
    const { orders, total } = await loadOrders(request.em, { userId: member.id }, { page, perPage: per_page, withMember: false });
    return { email, orders, page, per_page, total };
  });
};
