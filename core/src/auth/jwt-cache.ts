// Verified platform JWTs, cached until they expire so an officer's requests skip the RSA check after the first.
// Keyed by the token itself: equal keys are equal tokens, so no collision can hand one token another's claims, and
// a Map hashes the string once per request instead of a SHA-256 over it (fast-jwt's default key). Only successful
// verifications are cached; revocation is checked on every request after this, never cached here.
const MAX_ENTRIES = 10_000;

export class VerifiedTokenCache<C extends { exp?: number }> {
  private readonly entries = new Map<string, C>();

  /** The claims of a token verified before and not expired yet; undefined otherwise. */
  get(token: string): C | undefined {
    const claims = this.entries.get(token);
    if (claims === undefined) return undefined;
    if (claims.exp !== undefined && claims.exp * 1000 > Date.now()) return claims;
    this.entries.delete(token);
    return undefined;
  }

  /** Remember a token that just verified (tokens without an expiry are not cached). */
  set(token: string, claims: C) {
    if (typeof claims.exp !== 'number') return;
    // Oldest first: a Map iterates in insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, claims);
  }
}
