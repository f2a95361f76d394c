// The verified-token cache: only tokens with an expiry, only until it, and past the cap the least recently used go.
import t from 'tap';
import { VerifiedTokenCache } from '../../core/src/auth/jwt-cache.js';

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

t.test('keeps a verified token until its expiry', async (t) => {
  const cache = new VerifiedTokenCache<{ exp?: number; sub: string }>();
  // One reading of the clock: two may fall on either side of a second.
  const exp = inAnHour();
  cache.set('live', { exp, sub: 'a' });
  cache.set('no-expiry', { sub: 'b' });
  cache.set('expired', { exp: Math.floor(Date.now() / 1000) - 1, sub: 'c' });
  t.same(cache.get('live'), { exp, sub: 'a' });
  t.equal(cache.get('no-expiry'), undefined, 'a token without exp is never cached');
  t.equal(cache.get('expired'), undefined, 'an expired token is not cached');
  t.equal(cache.get('unknown'), undefined);
});

t.test('past the cap the least recently used token is dropped, not every token', async (t) => {
  const cache = new VerifiedTokenCache<{ exp: number }>();
  const exp = inAnHour();
  for (let i = 0; i < 10_000; i++) cache.set(`token-${i}`, { exp });
  t.ok(cache.get('token-0'), 'the first token, just used');
  cache.set('token-new', { exp });
  t.ok(cache.get('token-0'), 'the recently used token stays');
  t.equal(cache.get('token-1'), undefined, 'the least recently used went');
  t.ok(cache.get('token-2'), 'the others stay');
  t.ok(cache.get('token-new'));
});
