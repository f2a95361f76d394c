// Officer sign-in through the fake Discord: every row of the credential lifecycle, the redirects and errors of
// the callback, one-time codes shared by every process, refresh, revoke and logout.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import { bearer, CLIENT_URL, DASHBOARD_URL, officerLogin, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('officer sign-in', async (t) => {
  const logs = captureLogs();
  // A DATA_DIR of its own: a test app's starts with the test processes' shared key pair (testing/test-app.ts).
  const dataDir = mkdtempSync(join(tmpdir(), 'quad-sign-in-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const world = await startSignInWorld(t, { logger: logs.logger, config: { SYS_ADMIN: ['999000111'], DATA_DIR: dataDir } });
  const { quad, discord, officer, member } = world;
  const sql = (q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p);

  t.test('the key pair is created at first start in DATA_DIR', async (t) => {
    t.ok(existsSync(join(quad.settings.DATA_DIR, 'jwt_private.pem')));
    t.ok(existsSync(join(quad.settings.DATA_DIR, 'jwt_public.pem')));
  });

  t.test('login redirects to Discord with a state kept in the session', async (t) => {
    const res = await quad.api.inject('/api/auth/login');
    t.equal(res.statusCode, 302);
    const url = new URL(res.headers.location as string);
    t.equal(`${url.origin}${url.pathname}`, `${discord.url}/oauth2/authorize`);
    t.equal(url.searchParams.get('client_id'), discord.clientId);
    t.equal(url.searchParams.get('redirect_uri'), 'http://quad.test/api/auth/callback');
    t.equal(url.searchParams.get('response_type'), 'code');
    t.equal(url.searchParams.get('scope'), 'identify guilds');
    t.match(url.searchParams.get('state'), /^[\w-]{20,}$/);
    t.match(String(res.headers['set-cookie']), /quad_session=.*HttpOnly.*SameSite=Lax/);
  });

  t.test('an officer gets a one-time code on the client, then a token pair', async (t) => {
    const login = await officerLogin(world, officer.id);
    t.ok(login.location.startsWith(`${CLIENT_URL}/auth/?code=`));
    t.ok(login.code);
    const res = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
    t.equal(res.statusCode, 200);
    const pair = res.json();
    t.equal(pair.token_type, 'Bearer');
    t.equal(pair.expires_in, 1800);
    const claims = JSON.parse(Buffer.from(pair.access_token.split('.')[1], 'base64url').toString());
    t.equal(claims.username, 'ada');
    t.equal(claims.chat_user_id, officer.id);
    t.equal(claims.exp - claims.iat, 1800, 'access tokens live 30 minutes');
    t.equal(JSON.parse(Buffer.from(pair.access_token.split('.')[0], 'base64url').toString()).alg, 'RS256');
    const [stored] = await sql('select * from refresh_tokens');
    t.not(stored.token_hash, pair.refresh_token, 'only the hash of the refresh token is stored');
    t.equal(stored.token_hash.length, 64);
    t.ok(Math.abs(new Date(stored.expires_at).getTime() - Date.now() - 7 * 86_400_000) < 60_000, 'refresh tokens live 7 days');
    const codes = await sql('select * from sign_in_codes');
    t.equal(codes.length, 0, 'the code is gone once used');
    const again = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
    t.equal(again.statusCode, 400);
    t.same(again.json(), { error: 'The sign-in code is invalid, used or expired; sign in again', reason: 'invalid_code' });
  });

  t.test('client=dashboard redirects to DASHBOARD_URL', async (t) => {
    const login = await officerLogin(world, officer.id, 'dashboard');
    t.ok(login.location.startsWith(`${DASHBOARD_URL}/auth/?code=`));
  });

  t.test('a member who is an officer of no org is redirected with error=Unauthorized Access', async (t) => {
    const login = await officerLogin(world, member.id);
    t.equal(login.location, `${CLIENT_URL}/auth/?error=Unauthorized%20Access`);
    t.equal(login.code, null);
  });

  t.test('the superadmin signs in without being an officer', async (t) => {
    discord.addUser({ id: '999000111', username: 'root' });
    const login = await officerLogin(world, '999000111');
    t.ok(login.code);
  });

  t.test('a code expires after 60 seconds', async (t) => {
    const login = await officerLogin(world, officer.id);
    const [row] = await sql('select extract(epoch from expires_at - created_at)::int as ttl from sign_in_codes');
    t.equal(row.ttl, 60);
    await sql("update sign_in_codes set expires_at = now() - interval '1 second'");
    const res = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
    t.equal(res.statusCode, 400);
    t.equal(res.json().reason, 'invalid_code');
  });

  t.test('concurrent exchanges of one code give exactly one token pair', async (t) => {
    const login = await officerLogin(world, officer.id);
    const answers = await Promise.all(Array.from({ length: 12 }, () =>
      quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } })));
    t.equal(answers.filter((r) => r.statusCode === 200).length, 1);
    t.equal(answers.filter((r) => r.statusCode === 400).length, 11);
  });

  t.test('callback refusals', async (t) => {
    const start = await quad.api.inject('/api/auth/login');
    const cookie = String(start.headers['set-cookie']).split(';')[0];
    const code = discord.issueCode(officer.id, 'http://quad.test/api/auth/callback');
    const wrongState = await quad.api.inject({ url: `/api/auth/callback?code=${code}&state=forged`, headers: { cookie } });
    t.equal(wrongState.statusCode, 302, 'report mode: a state mismatch is logged and goes through');
    t.ok(logs.messages().includes('access decision=would_deny reason=oauth_state_mismatch route=/api/auth/callback org=- credential=session'));

    discord.down(true);
    const state = new URL(start.headers.location as string).searchParams.get('state');
    const down = await quad.api.inject({ url: `/api/auth/callback?code=x&state=${state}`, headers: { cookie } });
    discord.down(false);
    t.equal(down.statusCode, 503);
    t.equal(down.json().reason, 'bot_unavailable');

    const badCode = await quad.api.inject({ url: `/api/auth/callback?code=not-a-code&state=${state}`, headers: { cookie } });
    t.equal(badCode.statusCode, 400);
    t.equal(badCode.json().reason, 'invalid_oauth_code');
  });

  t.test('refresh gives a new access token; an invalid refresh token is 401', async (t) => {
    const pair = await signInOfficer(world, officer.id);
    const res = await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: pair.refresh_token } });
    t.equal(res.statusCode, 200);
    t.not(res.json().access_token, pair.access_token);
    t.equal((await quad.api.inject({ url: '/api/auth/appTokens', headers: bearer(res.json().access_token) })).statusCode, 200);
    const bad = await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: 'nope' } });
    t.equal(bad.statusCode, 401);
    await sql("update refresh_tokens set expires_at = now() - interval '1 second'");
    const expired = await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: pair.refresh_token } });
    t.equal(expired.statusCode, 401, 'refresh tokens expire after 7 days');
  });

  for (const route of ['revoke', 'logout'] as const) {
    t.test(`${route} deletes the refresh token and revokes the access token`, async (t) => {
      const pair = await signInOfficer(world, officer.id);
      t.equal((await quad.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) })).statusCode, 200);
      const res = await quad.api.inject({ method: 'POST', url: `/api/auth/${route}`, headers: bearer(pair.access_token), payload: { refresh_token: pair.refresh_token } });
      t.equal(res.statusCode, 200);
      t.same(res.json(), { refresh_token_deleted: true, access_token_revoked: true });
      const after = await quad.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) });
      t.equal(after.statusCode, 401);
      t.equal(after.json().reason, 'token_revoked');
      t.equal((await quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: pair.refresh_token } })).statusCode, 401);
    });
  }

  t.test('revocations hold in every process and after a restart', async (t) => {
    const pair = await signInOfficer(world, officer.id);
    // A second process on the same database, with the same key pair (same DATA_DIR).
    const other = await startTestApp(t, { databaseUrl: quad.databaseUrl, config: { ...world.discordConfig, DATA_DIR: quad.settings.DATA_DIR } });
    t.equal((await other.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) })).statusCode, 200);
    await quad.api.inject({ method: 'POST', url: '/api/auth/revoke', headers: bearer(pair.access_token) });
    let status = 0;
    for (let i = 0; i < 40 && status !== 401; i++) {
      status = (await other.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) })).statusCode;
      if (status !== 401) await new Promise((r) => setTimeout(r, 25));
    }
    t.equal(status, 401, 'the other process refuses the revoked token');
    await other.close();
    const restarted = await startTestApp(t, { databaseUrl: quad.databaseUrl, config: { ...world.discordConfig, DATA_DIR: quad.settings.DATA_DIR } });
    t.equal((await restarted.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) })).statusCode, 401, 'and so does a restarted one');
  });

  t.test('no token or code appears in the logs', async (t) => {
    const login = await officerLogin(world, officer.id);
    const res = await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } });
    const pair = res.json();
    const text = logs.text();
    t.notOk(text.includes(login.code!), 'one-time code');
    t.notOk(text.includes(pair.access_token), 'access token');
    t.notOk(text.includes(pair.refresh_token), 'refresh token');
    t.notOk(text.includes(discord.botToken), 'bot token');
    t.notOk(text.includes(discord.clientSecret), 'client secret');
    t.match(text, /callback\?code=\[redacted\]&state=\[redacted\]/, 'request logs keep the path, not the values');
  });
});

t.test('without BOT_TOKEN the callback answers 503', async (t) => {
  const world = await startSignInWorld(t, { config: { BOT_TOKEN: undefined } });
  const start = await world.quad.api.inject('/api/auth/login');
  const cookie = String(start.headers['set-cookie']).split(';')[0];
  const state = new URL(start.headers.location as string).searchParams.get('state');
  const code = world.discord.issueCode(world.officer.id, 'http://quad.test/api/auth/callback');
  const res = await world.quad.api.inject({ url: `/api/auth/callback?code=${code}&state=${state}`, headers: { cookie } });
  t.equal(res.statusCode, 503);
  t.equal(res.json().reason, 'bot_unavailable');
});

t.test('in enforce mode a state mismatch is refused', async (t) => {
  const logs = captureLogs();
  const world = await startSignInWorld(t, { logger: logs.logger, config: { ACCESS_ENFORCE: true } });
  const start = await world.quad.api.inject('/api/auth/login');
  const cookie = String(start.headers['set-cookie']).split(';')[0];
  const res = await world.quad.api.inject({ url: '/api/auth/callback?code=x&state=forged', headers: { cookie } });
  t.equal(res.statusCode, 403);
  t.equal(res.json().reason, 'oauth_state_mismatch');
  t.ok(logs.messages().includes('access decision=deny reason=oauth_state_mismatch route=/api/auth/callback org=- credential=session'));
});
