// Helpers shared by the sign-in routes (their schemas come from http/schemas.ts, like every route's).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DiscordRequestError, type DiscordUser } from '../../adapters/discord/index.js';
import { badRequest, unavailable } from '../../http/errors.js';
import { User } from '../entities.js';
import type { AuthServices } from '../index.js';
import { randomSecret } from '../secrets.js';
import { LOGIN_STATE_SECONDS, readSession, writeSession, type SessionData } from '../session.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sign-in services of the core (adapters, access checks, key pair). */
    auth: AuthServices;
  }
}

/** Session cookies are Secure wherever the service is served over https. */
export function secureCookies(app: FastifyInstance): boolean {
  return app.quad.settings.NODE_ENV === 'production';
}

/** The session of the request when it is valid, else undefined. */
export function currentSession(request: FastifyRequest): SessionData | undefined {
  const read = readSession(request);
  return read.status === 'ok' ? read.data : undefined;
}

/** Start a Discord sign-in: a fresh state in the session, then the redirect to Discord's authorize page. */
export function beginDiscordSignIn(
  app: FastifyInstance, request: FastifyRequest, reply: FastifyReply,
  flow: NonNullable<SessionData['flow']>, extra: Pick<SessionData, 'client' | 'next' | 'context'>, scope?: string,
  /** A module flow's own callback (registered with the Discord app); the core's flows derive theirs from REDIRECT_URI. */
  moduleRedirectUri?: string,
) {
  const { CLIENT_ID, REDIRECT_URI } = app.quad.settings;
  if (!CLIENT_ID || !(REDIRECT_URI || moduleRedirectUri)) throw unavailable('Discord sign-in is not configured (CLIENT_ID, REDIRECT_URI)', 'not_configured');
  const state = randomSecret(24);
  writeSession(reply, { ...currentSession(request), ...extra, state, flow, stateExpires: Date.now() + LOGIN_STATE_SECONDS * 1000 }, secureCookies(app));
  const redirectUri = moduleRedirectUri ?? (flow === 'officer' ? REDIRECT_URI! : memberRedirectUri(REDIRECT_URI!));
  return reply.redirect(app.auth.discord.authorizeRedirect({ redirectUri, state, scope }));
}

/**
 * The session of a Discord callback, after checking its state. A mismatch is the access decision
 * oauth_state_mismatch (logged, and refused when ACCESS_ENFORCE is true).
 */
export function checkSignInState(app: FastifyInstance, request: FastifyRequest, flow: NonNullable<SessionData['flow']>, state: string | undefined): SessionData | undefined {
  const session = currentSession(request);
  const ok = !!state && session?.flow === flow && session.state === state && (session.stateExpires ?? 0) > Date.now();
  if (!ok) app.auth.access.deny(request, 'oauth_state_mismatch', 'session');
  return session;
}

/** The member callback: REDIRECT_URI's origin with /api/accounts/chat/callback. */
export function memberRedirectUri(redirectUri: string): string {
  return new URL('/api/accounts/chat/callback', redirectUri).toString();
}

/**
 * The Discord user a callback's code signs in. A code Discord refuses is 400 invalid_oauth_code; Discord not
 * answering is DiscordUnavailable, the error handler's 503 bot_unavailable.
 */
export async function discordUserOfCode(app: FastifyInstance, code: string, redirectUri: string): Promise<DiscordUser> {
  try {
    const tokens = await app.auth.discord.exchangeCode(code, redirectUri);
    return await app.auth.discord.currentUser(tokens.access_token);
  } catch (err) {
    if (err instanceof DiscordRequestError) throw badRequest('Discord refused the sign-in code; start again', 'invalid_oauth_code');
    throw err;
  }
}

/** Keep the user row of a Discord sign-in (its username follows Discord's). */
export async function rememberDiscordUser(em: EntityManager, user: Pick<DiscordUser, 'id' | 'username'>): Promise<void> {
  await em.upsert(User, { chatUserId: user.id, username: user.username }, { onConflictFields: ['chatUserId'], onConflictMergeFields: ['username'] });
}
