// Calls of the member store pages: the public catalog, the storefront sign-in and the signed-in member's routes
// (Authorization: Bearer <identity-provider token>). Never the officer's tokens. Failures throw the SDK's ApiError
// with the API's `{ error, reason }`, so the page can tell a low balance, a price change or an empty stock apart.
import { ApiError, apiUrl } from '../sdk/api.js';

export interface Product {
  id: number; name: string; price: number; stock: number; category: string; image_url: string | null; description: string;
}
export interface StoreAnswer { org: { prefix: string; name: string }; categories: string[]; products: Product[] }
export interface Order {
  id: number; status: string; total: number; message: string; created_at: string;
  items: { product_id: number | null; name: string; price: number; quantity: number }[];
}
export interface Wallet { email: string; balance: number; entries: { id: number; amount: number; reason: string; created_at: string }[] }
export interface CheckoutAnswer { order: Order; points_deducted: number; balance: number }

export async function storeFetch<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown; token?: string } = {}): Promise<T> {
  const res = await fetch(apiUrl(path), {
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.token && { authorization: `Bearer ${init.token}` }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  let body: Record<string, unknown> | null = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = typeof body?.error === 'string' ? body.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, typeof body?.reason === 'string' ? body.reason : null, body, message);
  }
  return body as T;
}

const base = (org: string) => `/api/storefront/${encodeURIComponent(org)}`;
export const storePath = (org: string) => `${base(org)}/store`;
export const walletPath = (org: string, email: string) => `${base(org)}/wallet/${encodeURIComponent(email)}`;
export const ordersPath = (org: string, email: string) => `${base(org)}/orders/${encodeURIComponent(email)}?per_page=50`;
export const checkoutPath = (org: string) => `${base(org)}/checkout`;
export const memberLoginPath = (org: string) => `/api/points/${encodeURIComponent(org)}/member_login`;

/** The member's token is no longer accepted (expired, or refused): they sign in again. */
export const signedOutError = (err: unknown) =>
  err instanceof ApiError && (err.status === 401 || (err.status === 403 && err.reason === 'token_expired'));
