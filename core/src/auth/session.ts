// The session cookie: signed with SECRET_KEY (@fastify/cookie), carrying the sign-in state and, for members,
// the chat_user_id. It lives in the browser, so any API process can read it. A bad or expired one is refused.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'quad_session';
/** How long a member stays signed in. */
export const SESSION_SECONDS = 14 * 24 * 3600;
/** How long a sign-in may take between the redirect to Discord and the callback. */
export const LOGIN_STATE_SECONDS = 10 * 60;

export interface SessionData {
  /** OAuth state of a sign-in in progress, its flow and where to send the browser afterwards. */
  state?: string;
  stateExpires?: number;
  flow?: 'officer' | 'member';
  client?: 'dashboard' | 'app';
  next?: string;
  /** Set by the member chat sign-in. */
  chat_user_id?: string;
  username?: string;
  /** Expiry of the whole session (ms since epoch). */
  expires: number;
}

export type SessionRead = { status: 'none' } | { status: 'bad' } | { status: 'ok'; data: SessionData };

export function readSession(request: FastifyRequest): SessionRead {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return { status: 'none' };
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return { status: 'bad' };
  try {
    const data = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as SessionData;
    if (typeof data.expires !== 'number' || data.expires <= Date.now()) return { status: 'bad' };
    return { status: 'ok', data };
  } catch {
    return { status: 'bad' };
  }
}

export function writeSession(reply: FastifyReply, data: Omit<SessionData, 'expires'> & { expires?: number }, secure: boolean) {
  const expires = data.expires ?? Date.now() + SESSION_SECONDS * 1000;
  reply.setCookie(SESSION_COOKIE, Buffer.from(JSON.stringify({ ...data, expires })).toString('base64url'), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: Math.max(0, Math.floor((expires - Date.now()) / 1000)),
  });
}

export function clearSession(reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
