// The auth policies against the spec's status rules ("Rules for tokens", "Machine tokens", "Decorators") and
// ACCESS_ENFORCE's two modes, with the access log lines asserted.
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import probe from '../fixtures/probe-module.js';
import { bearer, cookieFrom, signInOfficer, startSignInWorld, type SignInWorld } from '../support/sign-in.js';

async function machineToken(world: SignInWorld, officerToken: string, scopes: string[], org = 'acm'): Promise<{ token: string; id: number }> {
  const res = await world.quad.api.inject({ method: 'POST', url: `/api/organizations/${org}/tokens`, headers: bearer(officerToken), payload: { name: `t-${scopes.join('-')}`, kind: 'agent', scopes } });
  if (res.statusCode !== 201) throw new Error(`token create ${res.statusCode}: ${res.body}`);
  return { token: res.json().token, id: res.json().record.id };
}

/** A member's session cookie through the member chat sign-in. */
async function memberSession(world: SignInWorld, userId: string): Promise<string> {
  const start = await world.quad.api.inject('/api/accounts/chat/login');
  world.discord.signInAs(userId);
  const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
  const back = new URL(authorize.headers.get('location')!);
  const res = await world.quad.api.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: cookieFrom(start) } });
  if (res.statusCode !== 200) throw new Error(`member callback ${res.statusCode}: ${res.body}`);
  return cookieFrom(res);
}

for (const enforce of [false, true]) {
  t.test(`policies with ACCESS_ENFORCE=${enforce}`, async (t) => {
    const logs = captureLogs();
    const world = await startSignInWorld(t, { plugins: [probe], logger: logs.logger, orgModules: { probe: true }, config: { ACCESS_ENFORCE: enforce, SYS_ADMIN: ['999000222'] } });
    const { quad, discord, officer, member } = world;
    const other = await quad.createOrg({ prefix: 'ieee', modules: { probe: true } });
    const get = (path: string, headers: Record<string, string> = {}) => quad.api.inject({ url: `/api/probe/${path}`, headers });
    const officerPair = await signInOfficer(world, officer.id);
    const logged = (line: string) => logs.messages().includes(line);
    const mode = enforce ? 'deny' : 'would_deny';

    t.test('officer (auth_required)', async (t) => {
      t.equal((await get('acm/officer')).statusCode, 401, 'missing token');
      t.equal((await get('acm/officer', bearer('garbage'))).statusCode, 401, 'invalid token');
      t.equal((await get('acm/officer', { authorization: 'Basic x' })).statusCode, 401, 'not a bearer');
      const ok = await get('acm/officer', bearer(officerPair.access_token));
      t.equal(ok.statusCode, 200);
      t.same(ok.json(), { kind: 'officer', actor: `officer:${officer.id}`, email: 'ada' });

      const expired = quad.api.jwt.sign({ username: 'ada', chat_user_id: officer.id, type: 'access', jti: 'old-1', iat: Math.floor(Date.now() / 1000) - 4000, exp: Math.floor(Date.now() / 1000) - 10 }, { iss: 'quad' } as never);
      const late = await get('acm/officer', bearer(expired));
      t.equal(late.statusCode, 403, 'an expired token in the Authorization header is 403');
      t.equal(late.json().reason, 'token_expired');

      const machine = await machineToken(world, officerPair.access_token, ['probe:read']);
      const refused = await get('acm/officer', bearer(machine.token));
      t.equal(refused.statusCode, 401, 'a machine token on an officer route is 401');

      const memberPair = await signInAsNonOfficer(world);
      const notOfficer = await get('acm/officer', bearer(memberPair));
      t.equal(notOfficer.statusCode, enforce ? 403 : 200);
      t.ok(logged(`access decision=${mode} reason=not_org_officer route=/api/probe/:org/officer org=acm credential=access_token`));
    });

    t.test('the access check is cached 60 s per chat user id', async (t) => {
      const before = discord.requests.filter((r) => r.path.includes(`/members/${officer.id}`)).length;
      for (let i = 0; i < 5; i++) await get('acm/officer', bearer(officerPair.access_token));
      const after = discord.requests.filter((r) => r.path.includes(`/members/${officer.id}`)).length;
      t.equal(after - before, 0, 'no Discord call while cached');
    });

    t.test('bot unavailable', async (t) => {
      const pair = await signInOfficerFresh(world);
      discord.down(true);
      const res = await get('acm/officer', bearer(pair));
      discord.down(false);
      t.equal(res.statusCode, enforce ? 503 : 200);
      t.ok(logged(`access decision=${mode} reason=bot_unavailable route=/api/probe/:org/officer org=acm credential=access_token`));
    });

    t.test('superadmin routes refuse everyone else in both modes', async (t) => {
      const res = await get('acm/superadmin', bearer(officerPair.access_token));
      t.equal(res.statusCode, 403);
      t.equal(res.json().reason, 'not_superadmin');
      t.ok(logged('access decision=deny reason=not_superadmin route=/api/probe/:org/superadmin org=acm credential=access_token'));
      discord.addUser({ id: '999000222', username: 'root' });
      const admin = await signInOfficer(world, '999000222');
      t.equal((await get('acm/superadmin', bearer(admin.access_token))).statusCode, 200);
      t.equal((await get('acm/officer', bearer(admin.access_token))).statusCode, 200, 'the superadmin acts on any org');
      t.equal((await get('acm/superadmin')).statusCode, 401);
    });

    t.test('machine_scope_required: 401, then 403 scope, then 403 org', async (t) => {
      const good = await machineToken(world, officerPair.access_token, ['probe:read']);
      const ok = await get('acm/machine-probe-read', bearer(good.token));
      t.equal(ok.statusCode, 200);
      t.equal(ok.json().actor, `machine:${good.id}`);
      t.equal((await get('acm/machine-probe-read')).statusCode, 401, 'missing');
      t.equal((await get('acm/machine-probe-read', bearer('plat_unknown'))).statusCode, 401, 'unknown');
      t.equal((await get('acm/machine-probe-read', bearer(officerPair.access_token))).statusCode, 401, 'not a machine token');

      const noScope = await machineToken(world, officerPair.access_token, ['probe:other']);
      const scopeRes = await get('acm/machine-probe-read', bearer(noScope.token));
      t.equal(scopeRes.statusCode, 403);
      t.equal(scopeRes.json().reason, 'missing_scope');
      const both = await get('ieee/machine-probe-read', bearer(noScope.token));
      t.equal(both.json().reason, 'missing_scope', 'the scope is checked before the org');
      const wrongOrg = await get('ieee/machine-probe-read', bearer(good.token));
      t.equal(wrongOrg.statusCode, 403);
      t.equal(wrongOrg.json().reason, 'wrong_org');

      const revoked = await machineToken(world, officerPair.access_token, ['probe:read']);
      await quad.api.inject({ method: 'DELETE', url: `/api/organizations/acm/tokens/${revoked.id}`, headers: bearer(officerPair.access_token) });
      const afterRevoke = await get('acm/machine-probe-read', bearer(revoked.token));
      t.equal(afterRevoke.statusCode, 401);
      t.equal(afterRevoke.json().reason, 'token_revoked');

      const expiring = await machineToken(world, officerPair.access_token, ['probe:read']);
      await quad.orm.em.fork().getConnection().execute(`update machine_tokens set expires_at = now() - interval '1 second' where id = ${expiring.id}`);
      const expired = await get('acm/machine-probe-read', bearer(expiring.token));
      t.equal(expired.statusCode, 401);
      t.equal(expired.json().reason, 'token_expired');
      void other;
    });

    t.test('officerOrMachine accepts either credential', async (t) => {
      const good = await machineToken(world, officerPair.access_token, ['probe:read']);
      t.equal((await get('acm/officerOrMachine-probe-read', bearer(good.token))).json().kind, 'machine');
      t.equal((await get('acm/officerOrMachine-probe-read', bearer(officerPair.access_token))).json().kind, 'officer');
      t.equal((await get('acm/officerOrMachine-probe-read')).statusCode, 401);
    });

    t.test('member (member_required)', async (t) => {
      t.equal((await get('acm/member')).statusCode, 401, 'no session');
      const bad = await get('acm/member', { cookie: 'quad_session=eyJmb3JnZWQiOnRydWV9.forged-signature' });
      t.equal(bad.statusCode, 401, 'a bad session cookie is always 401');
      t.equal(bad.json().reason, 'invalid_session');
      const cookie = await memberSession(world, member.id);
      const ok = await get('acm/member', { cookie });
      t.equal(ok.statusCode, 200);
      t.same(ok.json(), { kind: 'member', actor: `member:${member.id}`, email: null });
      const stranger = discord.addUser({ username: 'eve' });
      const strangerCookie = await memberSession(world, stranger.id);
      const notMember = await get('acm/member', { cookie: strangerCookie });
      t.equal(notMember.statusCode, 403, 'a member of another server is refused in report mode too');
      t.ok(logged('access decision=deny reason=not_member route=/api/probe/:org/member org=acm credential=session'));
      t.equal((await get('acm/memberOrCli', { cookie })).statusCode, 200, 'memberOrCli takes a member session');
    });

    t.test('the bot not in the org\'s server: 503, never a 500', async (t) => {
      await quad.createOrg({ prefix: 'lost', discordGuildId: '880000000000000099', modules: { probe: true } });
      const cookie = await memberSession(world, member.id);
      const res = await get('lost/member', { cookie });
      t.equal(res.statusCode, enforce ? 503 : 200);
      if (enforce) t.equal(res.json().reason, 'bot_not_in_server');
      t.ok(logged(`access decision=${mode} reason=bot_not_in_server route=/api/probe/:org/member org=lost credential=session`));
    });

    t.test('an unknown org is 404 after authentication', async (t) => {
      t.equal((await get('nope/officer')).statusCode, 401);
      t.equal((await get('nope/officer', bearer(officerPair.access_token))).statusCode, 404);
    });

    t.test(`the start and the readiness probe say which mode runs`, async (t) => {
      const warning = logs.messages().find((m) => m.startsWith('ACCESS_ENFORCE is false (report mode)'));
      if (enforce) t.notOk(warning, 'no warning when enforcing');
      else t.match(warning, /let through and only logged \(access decision=would_deny\), so an officer of another org passes officer routes; 0 requests would have been refused in the last 24 hours\. Set ACCESS_ENFORCE=true/);
      t.same((await quad.api.inject('/health/ready')).json(), { status: 'ok', access: enforce ? 'enforce' : 'report' });
    });

    if (!enforce) {
      t.test('report mode counts what it let through, and a later start says how many', async (t) => {
        await quad.auth.wouldDeny.flush();
        const letThrough = logs.lines.filter((l) => l.level === 40 && String(l.msg).startsWith('access decision=would_deny')).length;
        t.ok(letThrough >= 3, `the requests above that would have been refused (${letThrough})`);
        t.equal(await quad.auth.wouldDeny.lastDay(), letThrough, 'one per would_deny line, member details hidden not counted');
        const later = captureLogs();
        await startTestApp(t, { databaseUrl: quad.databaseUrl, logger: later.logger, role: 'api' });
        t.ok(later.messages().some((m) => m.includes(`; ${letThrough} requests would have been refused in the last 24 hours.`)), 'another process of the deployment reads the count');
      });
    }
  });
}

/** A member who is not an officer still holds a valid token if a past sign-in made one: simulate with the key. */
async function signInAsNonOfficer(world: SignInWorld): Promise<string> {
  return world.quad.api.jwt.sign({ username: 'bob', chat_user_id: world.member.id, type: 'access', jti: `m-${Date.now()}` }, { iss: 'quad', expiresIn: 600 } as never);
}

/** A token pair for an officer not yet in the access cache (so the check reaches Discord). */
async function signInOfficerFresh(world: SignInWorld): Promise<string> {
  const user = world.discord.addUser({ username: `officer${Date.now()}` });
  world.discord.addMember(world.guildId, user.id, [world.officerRoleId]);
  return world.quad.api.jwt.sign({ username: user.username, chat_user_id: user.id, type: 'access', jti: `f-${Date.now()}` }, { iss: 'quad', expiresIn: 600 } as never);
}
