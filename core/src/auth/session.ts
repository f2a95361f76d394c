// The session cookie: encrypted and authenticated (@fastify/secure-session, libsodium's secretbox) with a key derived
// from SECRET_KEY, carrying the sign-in state and, for members, the chat_user_id. It lives in the browser, so any
// API process can read it, and nobody can read what is inside. A bad or expired one is refused.
import { hkdfSync } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureSession, { type SecureSessionPluginOptions } from '@fastify/secure-session';

export const SESSION_COOKIE = 'quad_session';
/** How long a member stays signed in. */
export const SESSION_SECONDS = 14 * 24 * 3600;
/** How long a sign-in may take between the redirect to Discord and the callback. */
export const LOGIN_STATE_SECONDS = 10 * 60;

export interface SessionData {
  /** OAuth state of a sign-in in progress, its flow and where to send the browser afterwards. */
  state?: string;
  stateExpires?: number;
  flow?: 'officer' | 'member' | 'module';
  /** A module's own sign-in flow (members.begin): what the module asked to get back at the callback. */
  context?: string;
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
    cookie: COOKIE_OPTIONS,
  };
}

const COOKIE_OPTIONS = { httpOnly: true, sameSite: 'lax', path: '/' } as const;

/** What the secure-session plugin decorates its instance with: its cipher, and the cookie header's parser. */
interface SessionCodec {
  decodeSecureSession(cookie: string | undefined): { get(key: 'quad'): SessionData | undefined } | null;
  encodeSecureSession(session: unknown): string;
  createSecureSession(data: Record<string, unknown>): unknown;
  parseCookie(header: string): Record<string, string | undefined>;
  serializeCookie(name: string, value: string, options: Record<string, unknown>): string;
}

const READ = Symbol('quad.session');
type WithRead = FastifyRequest & { [READ]?: SessionRead };

export type SessionRead = { status: 'none' } | { status: 'bad' } | { status: 'ok'; data: SessionData };

/**
 * Session cookies, read and written only by the routes that use them. The secure-session plugin (libsodium's
 * secretbox) is registered in a scope of its own that holds no route, so its hooks (a cookie parse and a session
 * object on every request, a check on every answer) run nowhere; its cipher is used from here.
 */
export class Sessions {
  private constructor(private readonly codec: SessionCodec) {}

  static async register(app: FastifyInstance, secretKey: string): Promise<Sessions> {
    let codec: SessionCodec | undefined;
    await app.register(async (scope) => {
      await scope.register(secureSession, sessionPluginOptions(secretKey));
      codec = scope as unknown as SessionCodec;
    });
    return new Sessions(codec!);
  }

  /** The request's session: none, bad (forged, tampered, another key, expired) or ok. Decrypted once a request. */
  read(request: FastifyRequest): SessionRead {
    const memo = request as WithRead;
    return (memo[READ] ??= this.decode(request.headers.cookie));
  }

  private decode(header: string | undefined): SessionRead {
    const cookie = header ? this.codec.parseCookie(header)[SESSION_COOKIE] : undefined;
    if (cookie === undefined) return { status: 'none' };
    const data = this.codec.decodeSecureSession(cookie)?.get('quad');
    if (!data || typeof data.expires !== 'number' || data.expires <= Date.now()) return { status: 'bad' };
    return { status: 'ok', data };
  }

  write(reply: FastifyReply, data: Omit<SessionData, 'expires'> & { expires?: number }, secure: boolean) {
    // One clock reading for both, so a new session's cookie lives exactly SESSION_SECONDS.
    const now = Date.now();
    const expires = data.expires ?? now + SESSION_SECONDS * 1000;
    const maxAge = Math.max(0, Math.floor((expires - now) / 1000));
    const value = this.codec.encodeSecureSession(this.codec.createSecureSession({ quad: { ...data, expires } }));
    this.setCookie(reply, value, { ...COOKIE_OPTIONS, secure, maxAge });
  }

  private setCookie(reply: FastifyReply, value: string, options: Record<string, unknown>) {
    const cookie = this.codec.serializeCookie(SESSION_COOKIE, value, options);
    const earlier = reply.getHeader('set-cookie');
    const others = earlier === undefined ? [] : ([] as (string | number)[]).concat(earlier as string).map(String).filter((c) => !c.startsWith(`${SESSION_COOKIE}=`));
    reply.header('set-cookie', others.length ? [...others, cookie] : cookie);
  }
}

export function readSession(request: FastifyRequest): SessionRead {
  return request.server.sessions.read(request);
}

export function writeSession(reply: FastifyReply, data: Omit<SessionData, 'expires'> & { expires?: number }, secure: boolean) {
  reply.server.sessions.write(reply, data, secure);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The session cookie's reader and writer (auth/session.ts). */
    sessions: Sessions;
  }
}
