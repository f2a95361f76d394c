// The public storefront's members, signed in with an identity-provider token: checkout, their wallet and orders
// (their own email only; officers' platform tokens are refused).
import { ErrorBody, OrgParams, Type, forbidden, type Caller, type RoutesPlugin } from '@quad/core';
import { ByEmail, CheckoutBody, CheckoutOut, OrdersOut, WalletOut, ledgerOf, placeOrder, wallet } from '../route-kit.js';
import { Paging, loadOrders } from '../views.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

interface IdpCaller extends Caller { email?: string }

export default (async (app) => {
  const ledger = ledgerOf(app.quad);

  /** The storefront member's email; platform tokens (officers) are refused: these routes are the member's own. */
  const storefrontEmail = (caller: Caller | null): string => {
    const c = caller as IdpCaller | null;
    if (c?.kind !== 'idp' || !c.email) throw forbidden('This route needs a storefront member\'s identity-provider token', 'storefront_token_required');
    return ledger.normalizeEmail(c.email);
  };
  const ownEmail = (caller: Caller | null, email: string): string => {
    const mine = storefrontEmail(caller);
    if (ledger.normalizeEmail(email) !== mine) throw forbidden('You may only read your own wallet and orders', 'not_your_email');
    return mine;
  };

  app.post('/api/storefront/:org/checkout', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'Storefront checkout with the member\'s points (identity-provider token)', params: OrgParams, body: CheckoutBody,
      response: { 201: CheckoutOut, ...Errors, 409: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const email = storefrontEmail(request.caller);
    return reply.code(201).send(await placeOrder(app.quad, request, { email }, 'storefront'));
  });

  app.get('/api/storefront/:org/wallet/:email', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'The storefront member\'s balance and latest points rows (own email only)', params: ByEmail,
      response: { 200: Type.Object({ email: Type.String(), ...WalletOut.properties }), ...Errors, 503: ErrorBody },
    },
  }, async (request) => {
    const email = ownEmail(request.caller, request.params.email);
    const member = await ledger.memberByEmail(request.em, email);
    return { email, ...(await wallet(ledger, request.em, request.org!.id, member)) };
  });

  app.get('/api/storefront/:org/orders/:email', {
    config: { auth: 'dual' },
    schema: {
      tags: ['store'], summary: 'The storefront member\'s orders, newest first (own email only)', params: ByEmail, querystring: Type.Object(Paging),
      response: { 200: Type.Object({ email: Type.String(), ...OrdersOut.properties }), ...Errors, 503: ErrorBody },
    },
  }, async (request) => {
    const email = ownEmail(request.caller, request.params.email);
    const member = await ledger.memberByEmail(request.em, email);
    const { page, per_page } = request.query;
    if (!member) return { email, orders: [], page, per_page, total: 0 };
    const { orders, total } = await loadOrders(request.db, { userId: member.id }, { page, per_page });
    return { email, orders, page, per_page, total };
  });
}) satisfies RoutesPlugin;
