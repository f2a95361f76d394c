// The session cookie: encrypted and authenticated (@fastify/secure-session, libsodium's secretbox) with a key derived
// from SECRET_KEY, carrying the sign-in state and, for members, the chat_user_id. It lives in the browser, so any
// API process can read it, and nobody can read what is inside. A bad or expired one is refused.
import { hkdfSync } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecureSessionPluginOptions } from '@fastify/secure-session';

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

declare module '@fastify/secure-session' {
  interface SessionData {
    quad: import('./session.js').SessionData;
  }
}

/**
 * The secure-session plugin's options: the cookie's name and flags, and a 32-byte key derived from SECRET_KEY
 * (HKDF-SHA256, so the secret itself never keys two things). A new SECRET_KEY ends every session.
 */
export function sessionPluginOptions(secretKey: string): SecureSessionPluginOptions {
  return {
    cookieName: SESSION_COOKIE,
    key: Buffer.from(hkdfSync('sha256', secretKey, '', 'quad session cookie v1', 32)),
    // The library refuses a cookie older than this; our own `expires` inside it is the finer check.
    expiry: SESSION_SECONDS,
    cookie: { httpOnly: true, sameSite: 'lax', path: '/' },
  };
}

export type SessionRead = { status: 'none' } | { status: 'bad' } | { status: 'ok'; data: SessionData };

export function readSession(request: FastifyRequest): SessionRead {
  const data = request.session.get('quad');
  // secure-session answers an empty session for a cookie it cannot decrypt (forged, tampered, another key, expired).
  if (!data) return request.cookies[SESSION_COOKIE] ? { status: 'bad' } : { status: 'none' };
  if (typeof data.expires !== 'number' || data.expires <= Date.now()) return { status: 'bad' };
  return { status: 'ok', data };
}

export function writeSession(reply: FastifyReply, data: Omit<SessionData, 'expires'> & { expires?: number }, secure: boolean) {
  const expires = data.expires ?? Date.now() + SESSION_SECONDS * 1000;
  const { session } = reply.request;
  session.set('quad', { ...data, expires });
  session.options({ secure, maxAge: Math.max(0, Math.floor((expires - Date.now()) / 1000)) });
}

export function clearSession(reply: FastifyReply) {
  reply.request.session.delete();
}
