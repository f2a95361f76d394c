// The request layer in a real browser: requests that fail together on an expired access token (403
// token_expired) wait for ONE refresh and are sent again; a token the API refuses (401) signs the officer out.
import t from 'tap';
import type { Page } from 'playwright-core';
import { startBrowserWorld } from './harness.js';

t.test('the request layer refreshes once for every request that failed together', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./examples/hello-plugin'], orgModules: { hello: true } });
  const { quad, officer } = world;
  const now = Math.floor(Date.now() / 1000);
  // Our own access token of the officer, signed by the service, 30 minutes old: expired.
  const expired = quad.api.jwt.sign({ username: 'ada', chat_user_id: officer.id, type: 'access', jti: 'expired-1', iat: now - 1900, exp: now - 100 }, { iss: 'quad', sub: officer.id } as never);

  /** Count the API's answers the page gets, by path and status. */
  const record = (page: Page) => {
    const answers: string[] = [];
    page.on('response', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/')) answers.push(`${r.status()} ${r.request().method()} ${url.pathname}`);
    });
    return answers;
  };
  const storedTokens = (page: Page) => page.evaluate(() => JSON.parse(sessionStorage.getItem('platform.tokens') ?? 'null') as { access: string; refresh: string } | null);

  await t.test('an expired access token: one refresh, then every request again', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    const before = await storedTokens(page);
    // The page as a tab left open past the token's 30 minutes, then reloaded: the officer's profile, the org's
    // branding and its modules are asked for at once, each with the expired token.
    await page.evaluate(([access]) => {
      const tokens = JSON.parse(sessionStorage.getItem('platform.tokens')!);
      sessionStorage.setItem('platform.tokens', JSON.stringify({ ...tokens, access }));
    }, [expired]);
    const answers = record(page);
    await page.goto('/dashboard/explore');
    await page.getByRole('button', { name: 'Remove Hello' }).waitFor();
    // The page shows once the modules answered; the branding and `me` may still be on their way (10 s at most).
    const settled = ['/api/dashboard/acm/branding', '/api/dashboard/acm/modules', '/api/auth/me'].map((path) => `200 GET ${path}`);
    for (let waited = 0; !settled.every((a) => answers.includes(a)) && waited < 10_000; waited += 100) await page.waitForTimeout(100);

    // The branding and the modules are sent in one go (the shell asks for them with `me`): both are refused before
    // either answer is read. `me` may be refused with them, or sent after the refresh with the new token.
    for (const path of ['/api/dashboard/acm/branding', '/api/dashboard/acm/modules']) {
      t.ok(answers.includes(`403 GET ${path}`) && answers.includes(`200 GET ${path}`), `${path}: refused, then answered`, { answers });
    }
    t.ok(answers.includes('200 GET /api/auth/me'));
    t.same(answers.filter((a) => a.endsWith(' POST /api/auth/refresh')), ['200 POST /api/auth/refresh'], 'exactly one refresh', { answers });
    const after = await storedTokens(page);
    t.not(after!.access, expired, 'the new access token is kept');
    t.equal(after!.refresh, before!.refresh, 'with the same refresh token');
    t.same(world.problems(page), []);
  });

  await t.test('a token the API refuses (401) signs the officer out', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    await page.evaluate(() => {
      const tokens = JSON.parse(sessionStorage.getItem('platform.tokens')!);
      sessionStorage.setItem('platform.tokens', JSON.stringify({ ...tokens, access: `${tokens.access.slice(0, -4)}AAAA` }));
    });
    const answers = record(page);
    await page.goto('/dashboard/explore');
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    t.ok(answers.some((a) => a.startsWith('401 ')), 'the API refused the token', { answers });
    t.equal(answers.filter((a) => a.endsWith('/api/auth/refresh')).length, 0, 'a 401 is no reason to refresh');
    t.equal(await storedTokens(page), null, 'the tokens are forgotten');
  });

  await t.test('an expired refresh token signs the officer out too', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    const tokens = await storedTokens(page);
    await quad.orm.em.fork().getConnection().execute('update refresh_tokens set expires_at = now() - interval \'1 second\'');
    await page.evaluate(([access]) => {
      const stored = JSON.parse(sessionStorage.getItem('platform.tokens')!);
      sessionStorage.setItem('platform.tokens', JSON.stringify({ ...stored, access }));
    }, [expired]);
    const answers = record(page);
    await page.goto('/dashboard/');
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    t.same(answers.filter((a) => a.endsWith('/api/auth/refresh')), ['401 POST /api/auth/refresh'], 'one refresh, refused', { answers });
    t.equal(await storedTokens(page), null);
    t.ok(tokens);
  });
});
