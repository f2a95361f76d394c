// Orders, for the org's officers: list, read, move along their statuses (a cancel refunds) and delete.
import { ErrorBody, OrgParams, Type, notFound, type RoutesPlugin } from '@quad/core';
import { Order } from '../entities.js';
import { changeOrder } from '../orders.js';
import { ById, OrdersOut, ledgerOf } from '../route-kit.js';
import { OrderOut, Paging, Status, loadOrders } from '../views.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export default (async (app) => {
  /** The points ledger: who placed each order, as this org knows them. */
  const ledger = ledgerOf(app.quad);
  app.get('/api/storefront/:org/orders', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Orders of the org, newest first', params: OrgParams,
      querystring: Type.Object({ status: Type.Optional(Status), ...Paging }),
      response: { 200: OrdersOut, ...Errors },
    },
  }, async (request) => {
    const { status, page, per_page } = request.query;
    const { orders, total } = await loadOrders(request.db, { ...(status && { status }) }, { page, per_page, members: ledger });
    return { orders, page, per_page, total };
  });

  // GET /orders/<id> (officers) and GET /orders/<email> (storefront members, storefront.ts) share a path: a numeric
  // segment is an id.
  app.get('/api/storefront/:org/orders/:id(^\\d+$)', {
    config: { auth: 'officer' },
    schema: { tags: ['store'], summary: 'One order', params: ById, response: { 200: OrderOut, ...Errors } },
  }, async (request) => {
    const { orders } = await loadOrders(request.db, { id: request.params.id }, { page: 1, per_page: 1, members: ledger });
    if (!orders[0]) throw notFound(`No order ${request.params.id}`, 'order_not_found');
    return orders[0];
  });

  app.put('/api/storefront/:org/orders/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'],
      summary: 'Move an order (pending → processing → shipped → delivered, forward only; cancelled from any state before delivered, which gives the points back) and/or set the message to the member',
      params: ById,
      body: Type.Object({ status: Type.Optional(Status), message: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Type.Object({ order: OrderOut, from: Status, refunded: Type.Integer() }), ...Errors, 409: ErrorBody },
    },
  }, async (request) => {
    const { status, message } = request.body;
    const moved = await changeOrder(request.db, ledger, {
      orderId: request.params.id, status, message: message?.trim(), actor: request.caller!.actor,
      audit: (em, action, details) => request.audit(em, action, details),
    });
    request.em.clear();
    const { orders } = await loadOrders(request.db, { id: request.params.id }, { page: 1, per_page: 1, members: ledger });
    return { order: orders[0]!, from: moved.from, refunded: moved.refunded };
  });

  app.delete('/api/storefront/:org/orders/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Delete an order (its points are not given back, its stock not put back)', params: ById,
      response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    await request.em.transactional(async (em) => {
      const order = await em.findOne(Order, { id: request.params.id });
      if (!order) throw notFound(`No order ${request.params.id}`, 'order_not_found');
      await em.nativeDelete(Order, { id: order.id }); // items go with it (on delete cascade)
      await request.audit(em, 'store.order_delete', { order_id: order.id, user_id: order.userId, total: order.total, status: order.status });
    });
    return { deleted: request.params.id };
  });
}) satisfies RoutesPlugin;
