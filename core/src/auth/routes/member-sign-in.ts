// Member sign-in (spec: "Member sign-in routes"): Discord sign-in that writes chat_user_id into the session,
// and the storefront's identity-provider sign-in.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, badRequest } from '../../http/errors.js';
import type { IdpCaller } from '../callers.js';
import { User } from '../entities.js';
import { createPolicies, bearerToken } from '../policies.js';
import { writeSession } from '../session.js';
import { ErrorBody, OrgParams } from '../../http/schemas.js';
import { dashboardUrl } from '../../http/web.js';
import { beginDiscordSignIn, checkSignInState, discordUserOfCode, memberRedirectUri, rememberDiscordUser, secureCookies } from './shared.js';

/**
 * Only send browsers back to our own clients: the dashboard, the client (CLIENT_URL) and this service itself (its
 * public address, REDIRECT_URI's origin, where the modules' member pages are served even when DASHBOARD_URL is
 * elsewhere).
 */
function safeNext(app: FastifyInstance, next: string | undefined): string | undefined {
  if (!next) return undefined;
  const { settings } = app.quad;
  const allowed = [dashboardUrl(settings), settings.CLIENT_URL, settings.REDIRECT_URI].filter(Boolean).map((u) => new URL(u!).origin);
  try {
    return allowed.includes(new URL(next).origin) ? next : undefined;
  } catch {
    return undefined;
  }
}

export const memberSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { settings } = app.quad;
  const auth = app.auth;

  app.get('/api/accounts/chat/login', {
    config: { auth: 'public' },
    schema: {
      tags: ['members'], summary: 'Start member sign-in with Discord; `next` must be on the dashboard or client origin',
      querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }),
      response: { 503: ErrorBody },
    },
  }, async (request, reply) => beginDiscordSignIn(app, request, reply, 'member', { next: safeNext(app, request.query.next) }, 'identify'));

  app.get('/api/accounts/chat/callback', {
    config: { auth: 'public' },
    schema: {
      tags: ['members'], summary: 'Discord redirects members here; writes chat_user_id into the session',
      querystring: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()) }),
      response: { 200: Type.Object({ chat_user_id: Type.String(), username: Type.String() }), 400: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const session = checkSignInState(app, request, 'member', request.query.state);
    if (!request.query.code) throw badRequest('Discord sent no code; start the sign-in again', 'invalid_oauth_code');
    const user = await discordUserOfCode(app, request.query.code, memberRedirectUri(settings.REDIRECT_URI!));
    await rememberDiscordUser(request.em, user);
    writeSession(reply, { chat_user_id: user.id, username: user.username }, secureCookies(app));
    if (session?.next) return reply.redirect(session.next);
    return { chat_user_id: user.id, username: user.username };
  });

  const { idpCaller } = createPolicies(auth);
  app.post('/api/points/:org/member_login', {
    config: { auth: 'public' },
    schema: {
      tags: ['members'],
      summary: 'Storefront sign-in: needs an identity-provider token (Authorization: Bearer) whose primary email equals the body\'s',
      // The route is public (an unverified sign-in is refused or, in report mode, logged), but takes a bearer.
      security: [{ idpToken: [] }, {}],
      params: OrgParams,
      body: Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ email: Type.String(), verified: Type.Boolean(), user_id: Type.Integer() }), 400: ErrorBody, 403: ErrorBody, 503: ErrorBody },
    },
  }, async (request) => {
    const email = request.body.email.trim().toLowerCase();
    const verified = await verifiedEmail(request, idpCaller);
    // In report mode (ACCESS_ENFORCE=false) an unverified sign-in is logged and goes through.
    if (verified !== email) auth.access.deny(request, 'member_login_unverified', verified ? 'idp_token' : 'none');
    await request.em.upsert(User, { email }, { onConflictFields: ['email'], onConflictAction: 'ignore' });
    const user = await request.em.findOneOrFail(User, { email });
    return { email, verified: verified === email, user_id: user.id };
  });
};

/** The email of a valid identity-provider token on the request, or null (no token, or one that does not verify). */
async function verifiedEmail(request: FastifyRequest, idpCaller: (token: string) => Promise<IdpCaller>): Promise<string | null> {
  const token = bearerToken(request);
  if (!token) return null;
  try {
    return (await idpCaller(token)).email;
  } catch (err) {
    // A token that does not verify is "unverified"; a provider that cannot answer is the provider's 503 in both
    // ACCESS_ENFORCE modes: an outage is no refusal, and "unverified" would tell the member their sign-in is wrong.
    if (err instanceof HttpError && err.statusCode < 500) return null;
    throw err;
  }
}
