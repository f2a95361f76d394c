/// <reference path="../env.d.ts" />
// The one request layer of the dashboard and of plugin pages. Every call to the API goes through apiFetch:
// - it sends the officer's access token;
// - a 403 token_expired (the access token is 30 minutes old) refreshes the token ONCE for every request that
//   failed with that token (they wait for the same POST /api/auth/refresh), then each is sent again;
// - a 401 (token missing, invalid or revoked, or the refresh token expired) signs the officer out;
// - any other failure throws an ApiError carrying the API's `{ error, reason }`.
import { getTokens, setTokens } from './session.js';

/** The API's origin: the page's own, unless the dashboard was built for an API elsewhere (VITE_QUAD_API_URL). */
export const API_BASE = (import.meta.env.VITE_QUAD_API_URL ?? '').replace(/(?<!\/)\/+$/, '');

/** An absolute URL for a path of the API (or of the service, such as a plugin's bundle). */
export function apiUrl(path: string): string {
  return `${API_BASE || window.location.origin}${path}`;
}

/** An API answer that is not a success: the status and the API's `{ error, reason }` body. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly reason: string | null, readonly body: Record<string, unknown> | null, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiInit {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON; a FormData as multipart/form-data (uploads). */
  body?: unknown;
  signal?: AbortSignal;
  /** Send no token (sign-in routes). Default: false. */
  anonymous?: boolean;
}

const signOutListeners = new Set<(why: 'expired' | 'signed_out') => void>();

/** Called when the officer is signed out, by a 401 or by signOut() (the shell clears the cache and shows sign-in). */
export function onSignOut(listener: (why: 'expired' | 'signed_out') => void): () => void {
  signOutListeners.add(listener);
  return () => signOutListeners.delete(listener);
}

function signedOut(why: 'expired' | 'signed_out') {
  if (!getTokens()) return;
  setTokens(null);
  for (const listener of signOutListeners) listener(why);
}

/** Sign out: revoke both tokens on the server (best effort), then forget them. */
export async function signOut(): Promise<void> {
  const tokens = getTokens();
  if (!tokens) return;
  try {
    await fetch(apiUrl('/api/auth/logout'), {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access}` },
      body: JSON.stringify({ refresh_token: tokens.refresh, access_token: tokens.access }),
    });
  } catch {
    // Offline: the tokens expire on their own.
  }
  signedOut('signed_out');
}

/** The refresh in flight, shared by every request that failed with the same expired token. */
let refreshing: Promise<string | null> | null = null;

/** A fresh access token after `expired` was refused, or null when the officer must sign in again. */
function refreshedToken(expired: string): Promise<string | null> {
  const tokens = getTokens();
  if (!tokens) return Promise.resolve(null);
  // Another request refreshed it while this one was on its way: use the new token.
  if (tokens.access !== expired) return Promise.resolve(tokens.access);
  refreshing ??= (async () => {
    try {
      const res = await fetch(apiUrl('/api/auth/refresh'), {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: tokens.refresh }),
      });
      if (!res.ok) {
        if (res.status === 400 || res.status === 401) signedOut('expired');
        return null;
      }
      const { access_token } = await res.json() as { access_token: string };
      if (getTokens()?.refresh === tokens.refresh) setTokens({ ...tokens, access: access_token });
      return access_token;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function bodyOf(res: Response): Promise<Record<string, unknown> | null> {
  try {
    const body = await res.json();
    return body && typeof body === 'object' ? body : null;
  } catch {
    return null;
  }
}

/**
 * Call the API: `await apiFetch<{ greetings: Greeting[] }>('/api/hello/acm/greetings')`. Resolves with the JSON
 * answer (undefined for 204); throws ApiError for any other answer.
 */
export async function apiFetch<T = unknown>(path: string, init: ApiInit = {}): Promise<T> {
  const send = (token: string | undefined) => fetch(apiUrl(path), {
    method: init.method ?? 'GET',
    signal: init.signal,
    headers: {
      accept: 'application/json',
      // A FormData body (an upload) sets its own multipart type with the boundary.
      ...(init.body !== undefined && !(init.body instanceof FormData) && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: init.body === undefined ? undefined : init.body instanceof FormData ? init.body : JSON.stringify(init.body),
  });
  const token = init.anonymous ? undefined : getTokens()?.access;
  let res = await send(token);
  if (res.status === 403 && token) {
    const body = await bodyOf(res.clone());
    if (body?.reason === 'token_expired') {
      const fresh = await refreshedToken(token);
      if (fresh) res = await send(fresh);
    }
  }
  if (res.status === 401 && token) signedOut('expired');
  if (!res.ok) {
    const body = await bodyOf(res);
    const message = typeof body?.error === 'string' ? body.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, typeof body?.reason === 'string' ? body.reason : null, body, message);
  }
  if (res.status === 204) return undefined as T;
  return await res.json() as T;
}
