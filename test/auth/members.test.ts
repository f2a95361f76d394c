// Member sign-in (Discord session and identity provider), the dual policies, and legacy app tokens.
import t from 'tap';
import { captureLogs } from '@quad/core/testing';
import probe from '../fixtures/probe-module.js';
import { startFakeIdp } from '../fakes/idp/index.js';
import { bearer, cookieFrom, DASHBOARD_URL, signInOfficer, startSignInWorld } from '../support/sign-in.js';

for (const enforce of [false, true]) {
  t.test(`members and identity-provider tokens, ACCESS_ENFORCE=${enforce}`, async (t) => {
    const idp = await startFakeIdp();
    t.teardown(() => idp.close());
    const logs = captureLogs();
    const world = await startSignInWorld(t, {
      plugins: [probe], logger: logs.logger, orgModules: { probe: true },
      config: { ACCESS_ENFORCE: enforce, IDP_API_URL: idp.url, IDP_SECRET_KEY: idp.secretKey, IDP_AUTHORIZED_PARTIES: [idp.defaultAzp] },
    });
    const { quad, discord, member } = world;
    const mode = enforce ? 'deny' : 'would_deny';
    const logged = (line: string) => logs.messages().includes(line);
    const shopper = idp.addUser({ emails: ['old@example.org', 'Shopper@Example.org'], primary: 'Shopper@Example.org' });

    t.test('Discord sign-in for members writes chat_user_id into the session', async (t) => {
      const start = await quad.api.inject(`/api/accounts/chat/login?next=${encodeURIComponent(`${DASHBOARD_URL}/store/acm`)}`);
      t.equal(start.statusCode, 302);
      const authorizeUrl = new URL(start.headers.location as string);
      t.equal(authorizeUrl.searchParams.get('redirect_uri'), 'http://quad.test/api/accounts/chat/callback');
      t.equal(authorizeUrl.searchParams.get('scope'), 'identify');
      discord.signInAs(member.id);
      const back = new URL((await fetch(authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
      const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
      t.equal(callback.statusCode, 302);
      t.equal(callback.headers.location, `${DASHBOARD_URL}/store/acm`, 'back to the page that started it');
      const session = cookieFrom(callback);
      t.equal((await quad.api.inject({ url: '/api/probe/acm/member', headers: { cookie: session } })).json().actor, `member:${member.id}`);
      const [user] = await quad.orm.em.fork().getConnection().execute(`select * from users where chat_user_id = '${member.id}'`);
      t.equal(user.username, 'bob');
    });

    t.test('a next address on the service itself (a module\'s member page) is followed', async (t) => {
      const page = 'http://quad.test/agents/acm/me';
      const start = await quad.api.inject(`/api/accounts/chat/login?next=${encodeURIComponent(page)}`);
      discord.signInAs(member.id);
      const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
      const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
      t.equal(callback.statusCode, 302);
      t.equal(callback.headers.location, page);
    });

    t.test('a next address on another origin is ignored', async (t) => {
      const start = await quad.api.inject(`/api/accounts/chat/login?next=${encodeURIComponent('https://evil.example/x')}`);
      discord.signInAs(member.id);
      const back = new URL((await fetch(start.headers.location as string, { redirect: 'manual' })).headers.get('location')!);
      const callback = await quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
      t.equal(callback.statusCode, 200);
      t.same(callback.json(), { chat_user_id: member.id, username: 'bob' });
    });

    t.test('member_login with a matching identity-provider token', async (t) => {
      const token = await idp.issueToken(shopper.id);
      const res = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', headers: bearer(token), payload: { email: 'shopper@example.org' } });
      t.equal(res.statusCode, 200);
      t.match(res.json(), { email: 'shopper@example.org', verified: true });
      const [user] = await quad.orm.em.fork().getConnection().execute("select * from users where email = 'shopper@example.org'");
      t.equal(user.id, res.json().user_id);
    });

    t.test('member_login without a matching token', async (t) => {
      const token = await idp.issueToken(shopper.id);
      const wrong = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', headers: bearer(token), payload: { email: 'someone@example.org' } });
      t.equal(wrong.statusCode, enforce ? 403 : 200);
      if (!enforce) t.equal(wrong.json().verified, false);
      t.ok(logged(`access decision=${mode} reason=member_login_unverified route=/api/points/:org/member_login org=acm credential=idp_token`));
      const none = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', payload: { email: 'someone@example.org' } });
      t.equal(none.statusCode, enforce ? 403 : 200);
      t.ok(logged(`access decision=${mode} reason=member_login_unverified route=/api/points/:org/member_login org=acm credential=none`));
      const bad = await quad.api.inject({ method: 'POST', url: '/api/points/acm/member_login', payload: { email: 'not an email' } });
      t.equal(bad.statusCode, 400);
    });

    t.test('dual accepts an identity-provider token or a platform token', async (t) => {
      const idpToken = await idp.issueToken(shopper.id);
      const viaIdp = await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(idpToken) });
      t.equal(viaIdp.statusCode, 200);
      t.same(viaIdp.json(), { kind: 'idp', actor: `idp:${shopper.id}`, email: 'shopper@example.org' });
      const officerPair = await signInOfficer(world, world.officer.id);
      t.equal((await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(officerPair.access_token) })).json().email, 'ada', 'platform tokens give their username');
      const expired = await idp.issueToken(shopper.id, { expiresIn: -120 });
      t.equal((await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(expired) })).statusCode, 403, 'an expired header token is 403');
      const foreign = await idp.issueToken(shopper.id, { signWith: 'foreign' });
      t.equal((await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(foreign) })).statusCode, 401);
      const otherParty = await idp.issueToken(shopper.id, { azp: 'https://elsewhere.example' });
      t.equal((await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(otherParty) })).statusCode, 401);
      t.equal((await quad.api.inject({ url: '/api/probe/acm/dual' })).statusCode, 401);
      idp.down(true);
      const fresh = idp.addUser({ emails: ['fresh@example.org'] });
      const down = await quad.api.inject({ url: '/api/probe/acm/dual', headers: bearer(await idp.issueToken(fresh.id)) });
      idp.down(false);
      t.equal(down.statusCode, 503);
    });

    t.test('orgOfficer with an identity-provider token has no Discord identity', async (t) => {
      const res = await quad.api.inject({ url: '/api/probe/acm/orgOfficer', headers: bearer(await idp.issueToken(shopper.id)) });
      t.equal(res.statusCode, enforce ? 403 : 200);
      t.ok(logged(`access decision=${mode} reason=no_discord_id route=/api/probe/:org/orgOfficer org=acm credential=idp_token`));
    });
  });
}

t.test('legacy app tokens', async (t) => {
  const world = await startSignInWorld(t, { plugins: [probe], orgModules: { probe: true } });
  const { quad, officer } = world;
  const pair = await signInOfficer(world, officer.id);
  const made = await quad.api.inject({ url: '/api/auth/appToken', headers: bearer(pair.access_token) });
  t.equal(made.statusCode, 200);
  const { token, id, expires_at } = made.json();
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  t.equal(claims.type, 'app');
  t.equal(claims.chat_user_id, officer.id);
  t.ok(Math.abs(new Date(expires_at).getTime() - Date.now() - 120 * 86_400_000) < 60_000, '120 days');
  const used = await quad.api.inject({ url: '/api/probe/acm/officer', headers: bearer(token) });
  t.equal(used.statusCode, 200, 'an app token works as a platform token');
  const list = await quad.api.inject({ url: '/api/auth/appTokens', headers: bearer(pair.access_token) });
  t.same(list.json().app_tokens.map((a: { id: number; revoked: boolean }) => [a.id, a.revoked]), [[id, false]]);
  t.notOk(list.body.includes(token), 'the list never holds the token');
  const revoke = await quad.api.inject({ method: 'DELETE', url: `/api/auth/appTokens/${id}`, headers: bearer(pair.access_token) });
  t.same(revoke.json(), { revoked: true });
  t.equal((await quad.api.inject({ url: '/api/probe/acm/officer', headers: bearer(token) })).statusCode, 401);
  const someoneElse = world.discord.addUser({ username: 'carol' });
  world.discord.addMember(world.guildId, someoneElse.id, [world.officerRoleId]);
  const carol = await signInOfficer(world, someoneElse.id);
  const foreign = await quad.api.inject({ method: 'DELETE', url: `/api/auth/appTokens/${id}`, headers: bearer(carol.access_token) });
  t.equal(foreign.statusCode, 404, 'an officer revokes only their own app tokens');
});
