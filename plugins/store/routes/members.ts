// The store for members signed in with Discord (the session cookie): the store with their balance, their points,
// their orders, and checkout. Reading writes nothing (a member with no users row yet has no points and no orders);
// an order records the member inside the checkout's transaction.
import { ErrorBody, OrgParams, Type, type Caller, type RoutesPlugin } from '@quad/core';
import { CheckoutBody, CheckoutOut, OrdersOut, StoreOut, WalletOut, ledgerOf, placeOrder, storePage, wallet, type RequestLike } from '../route-kit.js';
import type { Member } from '../points-ledger.js';
import { Paging, loadOrders } from '../views.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

interface SessionCaller extends Caller { chatUserId?: string; username?: string | null }

export default (async (app) => {
  const ledger = ledgerOf(app.quad);
  const session = (request: RequestLike) => request.caller as SessionCaller & { chatUserId: string };
  const sessionMember = (request: RequestLike): Promise<Member | null> => ledger.memberByChatUserId(request.em, session(request).chatUserId);

  app.get('/api/storefront/:org/members/store', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'The store for a signed-in member: products in stock and the member\'s balance', params: OrgParams,
      response: { 200: Type.Object({ ...StoreOut.properties, balance: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    const member = await sessionMember(request);
    return { ...(await storePage(request)), balance: member ? await ledger.balanceOf(request.em, request.org!.id, member.id) : 0 };
  });

  app.get('/api/storefront/:org/members/points', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'The member\'s balance and latest points rows', params: OrgParams,
      response: { 200: Type.Object({ chat_user_id: Type.String(), ...WalletOut.properties }), ...Errors },
    },
  }, async (request) => {
    const member = await sessionMember(request);
    return { chat_user_id: session(request).chatUserId, ...(await wallet(ledger, request.em, request.org!.id, member)) };
  });

  app.get('/api/storefront/:org/members/orders', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'The member\'s orders, newest first', params: OrgParams, querystring: Type.Object(Paging),
      response: { 200: OrdersOut, ...Errors },
    },
  }, async (request) => {
    const member = await sessionMember(request);
    const { page, per_page } = request.query;
    if (!member) return { orders: [], page, per_page, total: 0 };
    const { orders, total } = await loadOrders(request.db, { userId: member.id }, { page, per_page });
    return { orders, page, per_page, total };
  });

  app.post('/api/storefront/:org/members/orders', {
    config: { auth: 'member' },
    schema: {
      tags: ['store'], summary: 'Place an order (checkout) with the member\'s points', params: OrgParams, body: CheckoutBody,
      response: { 201: CheckoutOut, ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const { chatUserId, username } = session(request);
    return reply.code(201).send(await placeOrder(app.quad, request, { chatUserId, username: username ?? null }, 'member'));
  });
}) satisfies RoutesPlugin;
