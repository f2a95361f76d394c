// Identity-provider adapter against the fake Clerk-compatible IdP: token checks, key rotation and refetch
// throttling, caches, and how provider failures and configuration problems surface.
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import t, { type Test } from 'tap';
import { IdpClient, IdpTokenInvalid, IdpUnavailable, type IdpSettings } from '../../core/src/adapters/idp/index.js';
import { startFakeIdp, type FakeIdp } from '../fakes/idp/index.js';

const setup = async (t: Test, settings: Partial<IdpSettings> = {}) => {
  const idp = await startFakeIdp();
  t.teardown(() => idp.close());
  const client = new IdpClient({ apiUrl: idp.url, secretKey: idp.secretKey, authorizedParties: [idp.defaultAzp], ...settings });
  return { idp, client };
};

// jose's refetch cooldown and our email cache read Date.now(), so tests move that clock instead of sleeping
// (token exp/nbf checks use new Date() and are unaffected).
const clock = (t: Test) => {
  const realNow = Date.now;
  let offset = 0;
  Date.now = () => realNow() + offset;
  t.teardown(() => {
    Date.now = realNow;
  });
  return { advance: (ms: number) => void (offset += ms) };
};

const hits = (idp: FakeIdp, path: string) => idp.requests.filter((r) => r.method === 'GET' && r.path === path).length;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const refused = async (t: Test, p: Promise<unknown>, reason: IdpTokenInvalid['reason']) => {
  const err = await failure(p);
  t.type(err, IdpTokenInvalid, `refused as IdpTokenInvalid (${reason})`);
  t.equal((err as IdpTokenInvalid).reason, reason);
  return err;
};

const unavailable = async (t: Test, p: Promise<unknown>) => {
  const err = await failure(p);
  t.type(err, IdpUnavailable, `IdpUnavailable: ${err.message}`);
  return err;
};

t.test('valid token: identity with the primary email, lower-cased', async (t) => {
  const { idp, client } = await setup(t);
  const user = idp.addUser({ emails: ['first@example.com', 'Main@Example.COM', 'third@example.com'], primary: 'Main@Example.COM' });
  const token = await idp.issueToken(user.id, { sid: 'sess_abc' });
  t.same(await client.verify(token), { userId: user.id, email: 'main@example.com', sessionId: 'sess_abc' });
  t.equal(client.configured, true);
});

t.test('exp and nbf are checked with the clock skew', async (t) => {
  const { idp, client } = await setup(t, { clockSkewSeconds: 5 });
  const user = idp.addUser({ emails: ['a@example.com'] });
  await refused(t, client.verify(await idp.issueToken(user.id, { expiresIn: -30 })), 'expired');
  await refused(t, client.verify(await idp.issueToken(user.id, { notBefore: 60 })), 'not_yet_valid');
  t.equal((await client.verify(await idp.issueToken(user.id, { expiresIn: -2 }))).email, 'a@example.com', 'expired within the skew is accepted');
  t.equal((await client.verify(await idp.issueToken(user.id, { notBefore: 2 }))).email, 'a@example.com', 'not before within the skew is accepted');
});

t.test('a verified token is remembered until its expiry, never past it', async (t) => {
  const { idp, client } = await setup(t, { clockSkewSeconds: 0 });
  const user = idp.addUser({ emails: ['a@example.com'] });
  const token = await idp.issueToken(user.id, { expiresIn: 2 });
  const identity = await client.verify(token);
  t.match(identity, { userId: user.id, email: 'a@example.com', sessionId: /^sess_/ });
  t.same(await client.verify(token), identity, 'and again, from memory');
  const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
  await refused(t, client.verify(token), 'expired');
});

t.test('azp must be one of the authorized parties; a token without azp is refused', async (t) => {
  const { idp, client } = await setup(t, { authorizedParties: ['https://shop.example', 'http://localhost:3000/'] });
  const user = idp.addUser({ emails: ['a@example.com'] });
  await refused(t, client.verify(await idp.issueToken(user.id, { azp: 'https://evil.example' })), 'azp');
  await refused(t, client.verify(await idp.issueToken(user.id, { azp: null })), 'azp');
  t.equal(hits(idp, `/users/${user.id}`), 0, 'no user lookup for a refused token');
  t.equal((await client.verify(await idp.issueToken(user.id, { azp: 'https://shop.example' }))).userId, user.id);
  t.equal((await client.verify(await idp.issueToken(user.id))).userId, user.id, 'a configured trailing slash still matches the origin');

  const nobody = new IdpClient({ apiUrl: idp.url, secretKey: idp.secretKey, authorizedParties: [] });
  await refused(t, nobody.verify(await idp.issueToken(user.id)), 'azp');
});

t.test('signature: a foreign key, a tampered payload, another algorithm', async (t) => {
  const { idp, client } = await setup(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  const other = idp.addUser({ emails: ['b@example.com'] });
  await refused(t, client.verify(await idp.issueToken(user.id, { signWith: 'foreign' })), 'signature');

  const [header, , sig] = (await idp.issueToken(user.id)).split('.');
  const [, otherPayload] = (await idp.issueToken(other.id)).split('.');
  await refused(t, client.verify(`${header}.${otherPayload}.${sig}`), 'signature');

  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const [, payload] = (await idp.issueToken(user.id)).split('.');
  await refused(t, client.verify(`${b64({ alg: 'HS256', typ: 'JWT' })}.${payload}.${sig}`), 'signature');
  await refused(t, client.verify(`${b64({ alg: 'none' })}.${payload}.`), 'signature');
});

t.test('malformed tokens are refused without calling the provider', async (t) => {
  const { idp, client } = await setup(t);
  for (const token of ['', 'not-a-jwt', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30', 'x'.repeat(20_000)]) {
    await refused(t, client.verify(token), 'malformed');
  }
  t.same(idp.requests, []);
});

t.test('a correctly signed token with an empty sub is malformed', async (t) => {
  const { idp, client } = await setup(t);
  await refused(t, client.verify(await idp.issueToken('')), 'malformed');
  t.equal(hits(idp, '/jwks'), 1, 'it got as far as the signature check');
});

t.test('unknown kid: one refetch, then the rotated key is accepted', async (t) => {
  const { idp, client } = await setup(t);
  const time = clock(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  const before = await idp.issueToken(user.id);
  await client.verify(before);
  t.equal(hits(idp, '/jwks'), 1);

  await idp.rotateKey();
  const after = await idp.issueToken(user.id);
  t.not(after.split('.')[0], before.split('.')[0], 'the new token names another kid');
  time.advance(31_000);
  t.equal((await client.verify(after)).userId, user.id);
  t.equal(hits(idp, '/jwks'), 2, 'the unknown kid caused one refetch');
  t.ok(await client.verify(before), 'the old key is still served');
  t.equal(hits(idp, '/jwks'), 2);

  time.advance(31_000);
  await refused(t, client.verify(await idp.issueToken(user.id, { kid: 'kid_bogus' })), 'unknown_key');
  t.equal(hits(idp, '/jwks'), 3, 'a kid still unknown after the refetch costs exactly one fetch');
});

t.test('a flood of bogus kids cannot hammer the provider: one refetch per 30 s', async (t) => {
  const { idp, client } = await setup(t);
  const time = clock(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  await client.verify(await idp.issueToken(user.id));
  t.equal(hits(idp, '/jwks'), 1);

  const bogus = await Promise.all(Array.from({ length: 25 }, (_, i) => idp.issueToken(user.id, { kid: `kid_bogus_${i}` })));
  const flood = async () => {
    const errs = await Promise.all(bogus.map((tok) => failure(client.verify(tok))));
    t.ok(errs.every((e) => e instanceof IdpTokenInvalid && e.reason === 'unknown_key'), 'every bogus kid refused as unknown_key');
  };
  await flood();
  t.equal(hits(idp, '/jwks'), 1, 'no refetch right after a fetch');

  await idp.rotateKey();
  const rotated = await idp.issueToken(user.id);
  // 20 s leaves room for slow real time (key generation on a loaded machine) inside the 30 s window.
  time.advance(20_000);
  await refused(t, client.verify(rotated), 'unknown_key');
  t.equal(hits(idp, '/jwks'), 1, 'even a real new key waits for the cooldown');

  time.advance(11_000);
  await flood();
  t.equal(hits(idp, '/jwks'), 2, 'after the cooldown, a whole concurrent flood costs one refetch');
  t.equal((await client.verify(rotated)).userId, user.id, 'the refetch brought the rotated key');
  for (const tok of bogus) await failure(client.verify(tok));
  time.advance(20_000);
  await flood();
  t.equal(hits(idp, '/jwks'), 2, 'still inside the cooldown of the refetch');
  t.equal(hits(idp, `/users/${user.id}`), 1, 'refused tokens never reach the user lookup');
});

t.test('JWKS is fetched once for many verifies, also concurrent first ones', async (t) => {
  const { idp, client } = await setup(t);
  const users = Array.from({ length: 10 }, (_, i) => idp.addUser({ emails: [`u${i}@example.com`] }));
  const tokens = await Promise.all(users.map((u) => idp.issueToken(u.id)));
  const identities = await Promise.all(tokens.map((tok) => client.verify(tok)));
  t.same(identities.map((i) => i.email), users.map((_, i) => `u${i}@example.com`));
  for (const tok of tokens) await client.verify(tok);
  t.equal(hits(idp, '/jwks'), 1);
});

t.test('the email is cached per user id for 60 s', async (t) => {
  const { idp, client } = await setup(t);
  const time = clock(t);
  const a = idp.addUser({ emails: ['a@example.com'] });
  const b = idp.addUser({ emails: ['b@example.com'] });
  for (let i = 0; i < 3; i++) t.equal((await client.verify(await idp.issueToken(a.id))).email, 'a@example.com');
  t.equal(await client.primaryEmail(a.id), 'a@example.com');
  t.equal(hits(idp, `/users/${a.id}`), 1);
  time.advance(50_000);
  await client.primaryEmail(a.id);
  t.equal(hits(idp, `/users/${a.id}`), 1, 'still cached at 50 s');
  time.advance(11_000);
  await client.primaryEmail(a.id);
  t.equal(hits(idp, `/users/${a.id}`), 2, 'looked up again after 60 s');

  const emails = await Promise.all(Array.from({ length: 5 }, () => client.primaryEmail(b.id)));
  t.same(emails, Array(5).fill('b@example.com'));
  t.equal(hits(idp, `/users/${b.id}`), 1, 'concurrent lookups share one request');
});

t.test('unknown user and user without a primary email', async (t) => {
  const { idp, client } = await setup(t);
  await refused(t, client.verify(await idp.issueToken('user_gone')), 'unknown_user');
  const noMail = idp.addUser({ emails: [] });
  await refused(t, client.verify(await idp.issueToken(noMail.id)), 'no_email');
  await refused(t, client.primaryEmail('user_gone'), 'unknown_user');
});

t.test('provider down → IdpUnavailable, and it recovers when the provider does', async (t) => {
  const { idp, client } = await setup(t);
  const a = idp.addUser({ emails: ['a@example.com'] });
  const b = idp.addUser({ emails: ['b@example.com'] });
  const tokA = await idp.issueToken(a.id);
  const tokB = await idp.issueToken(b.id);
  idp.down(true);
  const err = await unavailable(t, client.verify(tokA));
  t.match(err.message, /502/);
  idp.down(false);
  t.equal((await client.verify(tokA)).email, 'a@example.com');

  idp.down(true);
  t.equal((await client.verify(tokA)).email, 'a@example.com', 'keys and email cached: no call needed');
  await unavailable(t, client.verify(tokB));
  await unavailable(t, client.primaryEmail(b.id));
});

t.test('provider unreachable or silent → IdpUnavailable within the timeout', async (t) => {
  const { idp } = await setup(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  const token = await idp.issueToken(user.id);

  const sockets = new Set<Socket>();
  const silent = createTcpServer((s) => sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const slow = new IdpClient({ apiUrl: silentUrl, secretKey: idp.secretKey, authorizedParties: [idp.defaultAzp], timeoutMs: 200 });
  let started = Date.now();
  t.match((await unavailable(t, slow.verify(token))).message, /200 ms/);
  t.ok(Date.now() - started < 5000, 'JWKS call timed out');
  started = Date.now();
  t.match((await unavailable(t, slow.primaryEmail(user.id))).message, /200 ms/);
  t.ok(Date.now() - started < 5000, 'user call timed out');

  const closed = await startFakeIdp();
  const closedUrl = closed.url;
  await closed.close();
  const gone = new IdpClient({ apiUrl: closedUrl, secretKey: idp.secretKey, authorizedParties: [idp.defaultAzp] });
  await unavailable(t, gone.verify(token));
});

t.test('not configured → IdpUnavailable without calling the provider', async (t) => {
  const { idp } = await setup(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  for (const secretKey of [undefined, '']) {
    const client = new IdpClient({ apiUrl: idp.url, secretKey, authorizedParties: [idp.defaultAzp] });
    t.equal(client.configured, false);
    t.match((await unavailable(t, client.verify(await idp.issueToken(user.id)))).message, /not configured/);
    await unavailable(t, client.primaryEmail(user.id));
  }
  t.same(idp.requests, []);
});

t.test('wrong secret key → IdpUnavailable (our configuration problem, not the member)', async (t) => {
  const { idp } = await setup(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  const client = new IdpClient({ apiUrl: idp.url, secretKey: 'sk_test_wrong', authorizedParties: [idp.defaultAzp] });
  t.match((await unavailable(t, client.verify(await idp.issueToken(user.id)))).message, /secret key.*401/);
  t.equal(hits(idp, '/jwks'), 1, 'the provider was asked and said 401');
  t.match((await unavailable(t, client.primaryEmail(user.id))).message, /401/);
});

t.test('error messages carry neither the secret key nor the token', async (t) => {
  const { idp, client } = await setup(t);
  const user = idp.addUser({ emails: ['a@example.com'] });
  const wrongSecret = 'sk_test_wrong_SECRETMARKER';
  const wrong = new IdpClient({ apiUrl: idp.url, secretKey: wrongSecret, authorizedParties: [idp.defaultAzp] });
  const cases: { token: string; run: (tok: string) => Promise<unknown> }[] = [
    { token: await idp.issueToken(user.id, { expiresIn: -60 }), run: (tok) => client.verify(tok) },
    { token: await idp.issueToken(user.id, { notBefore: 60 }), run: (tok) => client.verify(tok) },
    { token: await idp.issueToken(user.id, { azp: 'https://evil.example' }), run: (tok) => client.verify(tok) },
    { token: await idp.issueToken(user.id, { signWith: 'foreign' }), run: (tok) => client.verify(tok) },
    { token: await idp.issueToken(user.id, { kid: 'kid_TOKENMARKER' }), run: (tok) => client.verify(tok) },
    { token: 'garbage.TOKENMARKER.garbage', run: (tok) => client.verify(tok) },
    { token: await idp.issueToken('user_TOKENMARKER'), run: (tok) => client.verify(tok) },
    { token: await idp.issueToken(user.id), run: (tok) => wrong.verify(tok) },
  ];
  for (const { token, run } of cases) {
    const err = await failure(run(token));
    t.ok(err instanceof IdpTokenInvalid || err instanceof IdpUnavailable, `${err.name}: ${err.message}`);
    const seen = `${err.message}\n${err.stack}\n${inspect(err, { depth: 10 })}\n${JSON.stringify(err)}`;
    const [h, p, s] = token.split('.');
    for (const secret of [idp.secretKey, wrongSecret, token, h!, p!, s!].filter((x) => x && x.length > 8)) {
      t.notOk(seen.includes(secret), `no secret/token text in "${err.message}"`);
    }
    t.notOk(seen.includes('MARKER'), 'no token content either');
  }
  const closed = await startFakeIdp();
  await closed.close();
  const unreachable = new IdpClient({ apiUrl: closed.url, secretKey: wrongSecret, authorizedParties: [idp.defaultAzp] });
  idp.down(true);
  const token = await idp.issueToken(user.id);
  for (const run of [() => wrong.primaryEmail('user_x'), () => unreachable.verify(token), () => unreachable.primaryEmail('user_x')]) {
    const err = await failure(run());
    t.type(err, IdpUnavailable);
    t.notOk(inspect(err, { depth: 10 }).includes(wrongSecret), `no secret in "${err.message}" or its cause`);
  }
});
