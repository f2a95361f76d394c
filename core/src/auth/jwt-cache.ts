// Verified JWTs (ours, and the identity provider's members' tokens), cached until they expire so a caller's requests
// skip the RSA check after the first.
// Keyed by the token itself: equal keys are equal tokens, so no collision can hand one token another's claims, and
// the key is hashed once per request instead of a SHA-256 over it (fast-jwt's default key). Only successful
// verifications are cached; revocation is checked on every request after this, never cached here.
import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 10_000;

export class VerifiedTokenCache<C extends { exp?: number }> {
  /** Past the cap the least recently used token goes first; each entry lives until its token's `exp`. */
  private readonly entries = new LRUCache<string, C>({ max: MAX_ENTRIES });

  /** The claims of a token verified before and not expired yet; undefined otherwise. */
  get(token: string): C | undefined {
    return this.entries.get(token);
  }

  /** Remember a token that just verified (tokens without an expiry, or expired already, are not cached). */
  set(token: string, claims: C) {
    if (typeof claims.exp !== 'number') return;
    const ttl = claims.exp * 1000 - Date.now();
    if (ttl > 0) this.entries.set(token, claims, { ttl });
  }
}
