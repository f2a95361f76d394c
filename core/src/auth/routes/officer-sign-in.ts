// Officer sign-in (spec: "Sign-in and tokens", "Officer sign-in"): Discord OAuth, a one-time code for the client,
// then a token pair. Codes, refresh tokens and revocations live in PostgreSQL, so any API process can serve any step.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Organization } from '../../entities/organization.js';
import { badRequest, unauthorized, unavailable } from '../../http/errors.js';
import { revokeJwt } from '../revocations.js';
import { writeSession } from '../session.js';
import { ACCESS_TOKEN_SECONDS, ISSUER, REFRESH_TOKEN_SECONDS, SIGN_IN_CODE_SECONDS, randomSecret, sha256 } from '../secrets.js';
import { ErrorBody } from '../../http/schemas.js';
import { dashboardUrl } from '../../http/web.js';
import { beginDiscordSignIn, checkSignInState, discordUserOfCode, rememberDiscordUser, secureCookies } from './shared.js';

const TokenPair = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'seconds the access token lives' }),
});

/** Sign an access token (30 minutes; claims username and chat_user_id). */
export function signAccessToken(app: FastifyInstance, user: { chatUserId: string; username: string }): string {
  return app.jwt.sign(
    { username: user.username, chat_user_id: user.chatUserId, type: 'access', jti: randomUUID() },
    { sub: user.chatUserId, iss: ISSUER, expiresIn: ACCESS_TOKEN_SECONDS },
  );
}

/**
 * Where the browser goes after the callback: the dashboard (DASHBOARD_URL, or the one this service serves) or the
 * older officer app (CLIENT_URL).
 */
function clientBase(app: FastifyInstance, client: string | undefined): string {
  const base = client === 'dashboard' ? dashboardUrl(app.quad.settings) : app.quad.settings.CLIENT_URL;
  if (!base) throw unavailable(`${client === 'dashboard' ? 'DASHBOARD_URL' : 'CLIENT_URL'} is not configured`, 'not_configured');
  return base.replace(/(?<!\/)\/+$/, '');
}

export const officerSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { settings } = app.quad;
  const auth = app.auth;

  app.get('/api/auth/login', {
    config: { auth: 'public' },
    schema: {
      tags: ['auth'], summary: 'Start officer sign-in: redirect to Discord',
      querystring: Type.Object({ client: Type.Optional(Type.Union([Type.Literal('dashboard'), Type.Literal('app')])) }),
      response: { 503: ErrorBody },
    },
  }, async (request, reply) => beginDiscordSignIn(app, request, reply, 'officer', { client: request.query.client ?? 'app' }));

  app.get('/api/auth/callback', {
    config: { auth: 'public' },
    schema: {
      tags: ['auth'], summary: 'Discord redirects here; redirects the browser to the client with a one-time code',
      querystring: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }),
      response: { 400: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const session = checkSignInState(app, request, 'officer', request.query.state);
    const base = clientBase(app, session?.client);
    if (!settings.BOT_TOKEN) throw unavailable('BOT_TOKEN is not configured: officer roles cannot be read', 'bot_unavailable');
    if (!request.query.code) return reply.redirect(`${base}/auth/?error=${encodeURIComponent(request.query.error ?? 'Sign-in cancelled')}`);

    const user = await discordUserOfCode(app, request.query.code, settings.REDIRECT_URI!);
    const orgs = await request.em.find(Organization, { discordGuildId: { $ne: null }, officerRoleId: { $ne: null } });
    const officerOf = await auth.access.officerOrgs(orgs, user.id);
    // Forget the state either way: it is single use.
    writeSession(reply, { ...session, state: undefined, stateExpires: undefined, flow: undefined }, secureCookies(app));
    if (officerOf.length === 0 && !auth.access.isSuperadmin(user.id)) {
      request.log.info(`sign-in refused: chat user ${user.id} is an officer of no org`);
      return reply.redirect(`${base}/auth/?error=${encodeURIComponent('Unauthorized Access')}`);
    }
    const code = randomSecret(32);
    await request.em.transactional(async (em) => {
      await em.execute(
        'insert into sign_in_codes (code_hash, chat_user_id, username, expires_at) values (?, ?, ?, now() + make_interval(secs => ?))',
        [sha256(code), user.id, user.username, SIGN_IN_CODE_SECONDS],
      );
      await rememberDiscordUser(em, user);
    });
    return reply.redirect(`${base}/auth/?code=${encodeURIComponent(code)}`);
  });

  app.post('/api/auth/exchange', {
    config: { auth: 'public' },
    schema: {
      tags: ['auth'], summary: 'Trade a one-time sign-in code (60 s, single use) for a token pair',
      body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: TokenPair, 400: ErrorBody },
    },
  }, async (request) => {
    // One statement takes the code: of two concurrent exchanges exactly one gets the row.
    const [row] = await request.em.execute(
      'delete from sign_in_codes where code_hash = ? and expires_at > now() returning chat_user_id, username',
      [sha256(request.body.code)],
    );
    if (!row) throw badRequest('The sign-in code is invalid, used or expired; sign in again', 'invalid_code');
    return issuePair(app, request, { chatUserId: row.chat_user_id, username: row.username });
  });

  app.post('/api/auth/refresh', {
    config: { auth: 'public' },
    schema: {
      tags: ['auth'], summary: 'A new access token for a valid refresh token',
      body: Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: Type.Object({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer() }), 401: ErrorBody },
    },
  }, async (request) => {
    const [row] = await request.em.execute(
      'select chat_user_id, username from refresh_tokens where token_hash = ? and expires_at > now()',
      [sha256(request.body.refresh_token)],
    );
    if (!row) throw unauthorized('Refresh token invalid or expired; sign in again', 'invalid_refresh_token');
    return { access_token: signAccessToken(app, { chatUserId: row.chat_user_id, username: row.username }), token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_SECONDS };
  });

  const revokeSchema = {
    tags: ['auth'],
    summary: 'Delete the refresh token and revoke the access token (from the body or the Authorization header)',
    // A client may send no body at all and only its Authorization header.
    body: Type.Union([Type.Object({ refresh_token: Type.Optional(Type.String({ maxLength: 200 })), access_token: Type.Optional(Type.String({ maxLength: 4096 })) }), Type.Null()]),
    response: { 200: Type.Object({ refresh_token_deleted: Type.Boolean(), access_token_revoked: Type.Boolean() }), 400: ErrorBody },
  };
  const revoke = async (request: FastifyRequest<{ Body: { refresh_token?: string; access_token?: string } | null }>) => {
    const header = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const access = request.body?.access_token ?? (header?.startsWith('plat_') ? undefined : header);
    const refresh = request.body?.refresh_token;
    if (!access && !refresh) throw badRequest('Send refresh_token and/or the access token', 'nothing_to_revoke');
    const claims = access ? verifyIgnoringExpiry(app, access) : null;
    const refreshDeleted = await request.em.transactional(async (em) => {
      if (claims) await revokeJwt((sql, params) => em.execute(sql, params as never[]), claims.jti, new Date(claims.exp * 1000));
      return !!refresh && (await em.execute('delete from refresh_tokens where token_hash = ? returning 1', [sha256(refresh)])).length > 0;
    });
    // Other processes hear of it through NOTIFY; this one knows at once.
    if (claims) auth.revocations.remember(claims.jti, claims.exp * 1000);
    return { refresh_token_deleted: refreshDeleted, access_token_revoked: !!claims };
  };
  app.post('/api/auth/revoke', { config: { auth: 'public' }, schema: revokeSchema }, revoke);
  app.post('/api/auth/logout', { config: { auth: 'public' }, schema: { ...revokeSchema, summary: 'Sign out: same as revoke' } }, revoke);
};

/** Our own JWT's id and expiry, for revoking it: the signature must be ours, an expired one may still be revoked. */
export function verifyIgnoringExpiry(app: FastifyInstance, token: string): { jti: string; exp: number } | null {
  try {
    const claims = app.jwt.verify<{ jti?: string; exp?: number; iss?: string }>(token, { ignoreExpiration: true } as never);
    return claims.iss === ISSUER && claims.jti && claims.exp ? { jti: claims.jti, exp: claims.exp } : null;
  } catch {
    return null;
  }
}

async function issuePair(app: FastifyInstance, request: FastifyRequest, user: { chatUserId: string; username: string }) {
  const refresh = randomSecret(32);
  await request.em.execute(
    'insert into refresh_tokens (token_hash, chat_user_id, username, expires_at) values (?, ?, ?, now() + make_interval(secs => ?))',
    [sha256(refresh), user.chatUserId, user.username, REFRESH_TOKEN_SECONDS],
  );
  return { access_token: signAccessToken(app, user), refresh_token: refresh, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_SECONDS };
}

