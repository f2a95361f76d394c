// Client of the Clerk-compatible identity provider storefront members sign in with: verifies a member's
// RS256 session JWT against the provider's JWKS and resolves the user's primary email, which is the identity.
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type FetchImplementation, type JWTPayload, type RemoteJWKSet } from 'jose';
import { IdpTokenInvalid, IdpUnavailable } from './errors.js';
import { VerifiedTokenCache } from '../../auth/jwt-cache.js';

export { IdpTokenInvalid, IdpUnavailable, type IdpTokenInvalidReason } from './errors.js';

export interface IdpSettings {
  /** Base URL of the provider's backend API, e.g. https://api.clerk.com/v1. */
  apiUrl: string;
  secretKey?: string;
  /** Origins a token's `azp` may name; empty refuses every token. */
  authorizedParties: string[];
  /** Per HTTP call; default 5000. */
  timeoutMs?: number;
  /** Tolerance on `exp`/`nbf`; default 5. */
  clockSkewSeconds?: number;
}

export interface IdpIdentity {
  userId: string;
  email: string;
  sessionId?: string;
}

const EMAIL_TTL_MS = 60_000;
const KEY_REFETCH_COOLDOWN_MS = 30_000;
const EMAIL_CACHE_MAX = 10_000;
// Real session tokens are well under 2 KB; refusing huge strings early keeps parsing cheap.
const MAX_TOKEN_CHARS = 16_384;

interface ClerkUser {
  primary_email_address_id?: unknown;
  email_addresses?: unknown;
}

const stripSlash = (s: string) => s.replace(/(?<!\/)\/+$/, '');

/** What a member's token says once every check passed (exp: required by the verification). */
interface CheckedClaims { sub: string; sid?: string; exp: number }

export class IdpClient {
  private readonly apiUrl: string;
  private readonly secretKey: string | undefined;
  private readonly parties: Set<string>;
  private readonly timeoutMs: number;
  private readonly skew: number;
  private readonly keys: RemoteJWKSet | undefined;
  /** Tokens that passed every check, until their `exp`: a member's next requests skip the RSA check (as officers' do). */
  private readonly verified = new VerifiedTokenCache<CheckedClaims>();
  private readonly emails = new Map<string, { email: string; expires: number }>();
  private readonly pendingEmails = new Map<string, Promise<string>>();

  constructor(settings: IdpSettings) {
    this.apiUrl = stripSlash(settings.apiUrl);
    this.secretKey = settings.secretKey || undefined;
    this.parties = new Set(settings.authorizedParties.map(stripSlash));
    this.timeoutMs = Math.max(1, Math.ceil(settings.timeoutMs ?? 5000));
    this.skew = Math.max(0, settings.clockSkewSeconds ?? 5);
    if (this.secretKey) {
      const fetchJwks: FetchImplementation = (url, init) => this.send(url, init, 'keys');
      // jose throttles unknown-kid refetches (cooldown after each successful fetch) and shares one
      // in-flight fetch between concurrent verifies, so a flood of bogus kids costs at most one call per cooldown.
      this.keys = createRemoteJWKSet(new URL(`${this.apiUrl}/jwks`), {
        headers: { authorization: `Bearer ${this.secretKey}` },
        timeoutDuration: this.timeoutMs,
        cooldownDuration: KEY_REFETCH_COOLDOWN_MS,
        [customFetch]: fetchJwks,
      });
    }
  }

  get configured(): boolean {
    return this.secretKey !== undefined;
  }

  async verify(token: string): Promise<IdpIdentity> {
    const keys = this.requireKeys();
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_CHARS) throw new IdpTokenInvalid('malformed');
    const claims = this.verified.get(token) ?? await this.check(token, keys);
    const email = await this.primaryEmail(claims.sub);
    return claims.sid !== undefined ? { userId: claims.sub, email, sessionId: claims.sid } : { userId: claims.sub, email };
  }

  /** Every check of a token not seen before; one that passes them all is remembered until its `exp`. */
  private async check(token: string, keys: RemoteJWKSet): Promise<CheckedClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, { algorithms: ['RS256'], clockTolerance: this.skew, requiredClaims: ['sub', 'exp'] }));
    } catch (err) {
      throw translate(err);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new IdpTokenInvalid('malformed');
    // A token without azp could have been minted for any origin, so it is refused like a wrong one.
    if (typeof payload.azp !== 'string' || !this.parties.has(stripSlash(payload.azp))) throw new IdpTokenInvalid('azp');
    const claims: CheckedClaims = { sub: payload.sub, exp: payload.exp!, ...(typeof payload.sid === 'string' && { sid: payload.sid }) };
    this.verified.set(token, claims);
    return claims;
  }

  async primaryEmail(userId: string): Promise<string> {
    this.requireKeys();
    if (typeof userId !== 'string' || userId === '') throw new IdpTokenInvalid('malformed');
    const hit = this.emails.get(userId);
    if (hit && hit.expires > Date.now()) return hit.email;
    let pending = this.pendingEmails.get(userId);
    if (!pending) {
      pending = this.fetchPrimaryEmail(userId).finally(() => this.pendingEmails.delete(userId));
      this.pendingEmails.set(userId, pending);
    }
    return pending;
  }

  private requireKeys(): RemoteJWKSet {
    if (!this.keys) throw new IdpUnavailable('identity provider is not configured (no secret key)');
    return this.keys;
  }

  private async fetchPrimaryEmail(userId: string): Promise<string> {
    const res = await this.send(`${this.apiUrl}/users/${encodeURIComponent(userId)}`, {
      method: 'GET',
      headers: new Headers({ authorization: `Bearer ${this.secretKey}`, accept: 'application/json' }),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
    }, 'user');
    let user: ClerkUser;
    try {
      user = (await res.json()) as ClerkUser;
    } catch {
      throw new IdpUnavailable('identity provider sent an unreadable user');
    }
    const primaryId = user?.primary_email_address_id;
    const addresses = Array.isArray(user?.email_addresses) ? (user.email_addresses as unknown[]) : [];
    const primary = addresses.find((a): a is { email_address: string } =>
      typeof a === 'object' && a !== null && typeof primaryId === 'string' && (a as { id?: unknown }).id === primaryId &&
      typeof (a as { email_address?: unknown }).email_address === 'string');
    const email = primary?.email_address.trim().toLowerCase();
    if (!email) throw new IdpTokenInvalid('no_email');
    this.remember(userId, email);
    return email;
  }

  private remember(userId: string, email: string): void {
    const now = Date.now();
    this.emails.delete(userId);
    this.emails.set(userId, { email, expires: now + EMAIL_TTL_MS });
    // Entries share one TTL, so insertion order is expiry order: drop from the front.
    for (const [key, entry] of this.emails) {
      if (this.emails.size <= EMAIL_CACHE_MAX && entry.expires > now) break;
      this.emails.delete(key);
    }
  }

  /** One GET to the provider; anything but the answer we can use is IdpUnavailable (or the user's 404). */
  private async send(url: string, init: Parameters<FetchImplementation>[1], what: 'keys' | 'user'): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (err) {
      if ((err as Error)?.name === 'TimeoutError') throw new IdpUnavailable(`identity provider did not answer within ${this.timeoutMs} ms`);
      throw new IdpUnavailable('identity provider could not be reached', { cause: err });
    }
    if (res.status === 200) return res;
    await res.body?.cancel().catch(() => {});
    // 401/403 means the provider refused our secret key: a configuration problem, not the member's.
    if (res.status === 401 || res.status === 403) throw new IdpUnavailable(`identity provider refused our secret key (HTTP ${res.status})`);
    if (res.status === 404 && what === 'user') throw new IdpTokenInvalid('unknown_user');
    throw new IdpUnavailable(`identity provider answered HTTP ${res.status} for ${what === 'keys' ? 'its signing keys' : 'a user'}`);
  }
}

// jose's errors may carry the token's claims (JWTClaimValidationFailed.payload), so they are never kept as cause.
function translate(err: unknown): Error {
  if (err instanceof IdpUnavailable || err instanceof IdpTokenInvalid) return err;
  if (err instanceof errors.JWTExpired) return new IdpTokenInvalid('expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    return new IdpTokenInvalid(err.claim === 'nbf' && err.reason === 'check_failed' ? 'not_yet_valid' : 'malformed');
  }
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JOSEAlgNotAllowed) return new IdpTokenInvalid('signature');
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return new IdpTokenInvalid('unknown_key');
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported) return new IdpTokenInvalid('malformed');
  if (err instanceof errors.JWKSTimeout) return new IdpUnavailable('identity provider did not answer in time for its signing keys');
  // What is left from jose is about the key set we were served (unparsable JSON, invalid JWKS).
  if (err instanceof errors.JOSEError) return new IdpUnavailable('identity provider sent unusable signing keys');
  return err instanceof Error ? err : new Error(String(err));
}
