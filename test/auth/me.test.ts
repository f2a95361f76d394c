// GET /api/auth/me: the signed-in officer, whether they are a superadmin, and the orgs they may open in the
// dashboard (the org switcher): those whose officer role they hold on Discord, or every org for a superadmin.
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('GET /api/auth/me', async (t) => {
  const world = await startSignInWorld(t, { config: { SYS_ADMIN: ['1999000000000000001'] } });
  const { quad, discord, officer, member } = world;
  const me = (headers: Record<string, string>) => quad.api.inject({ url: '/api/auth/me', headers });

  // A second org where Ada is an officer too, a third where she is only a member, one bound to no server.
  const ieeeGuild = discord.addGuild({ name: 'IEEE' });
  const ieeeRole = discord.addRole(ieeeGuild.id, { name: 'Officers' });
  discord.addMember(ieeeGuild.id, officer.id, [ieeeRole.id]);
  await quad.createOrg({ prefix: 'ieee', name: 'IEEE', discordGuildId: ieeeGuild.id, officerRoleId: ieeeRole.id });
  const chessGuild = discord.addGuild({ name: 'Chess' });
  const chessRole = discord.addRole(chessGuild.id, { name: 'Officers' });
  discord.addMember(chessGuild.id, officer.id, []);
  await quad.createOrg({ prefix: 'chess', name: 'Chess Club', discordGuildId: chessGuild.id, officerRoleId: chessRole.id });
  await quad.createOrg({ prefix: 'loose', name: 'Loose' });

  t.test('an officer: the orgs whose officer role they hold, by name', async (t) => {
    const { access_token } = await signInOfficer(world, officer.id);
    const res = await me(bearer(access_token));
    t.equal(res.statusCode, 200);
    t.same(res.json(), {
      chat_user_id: officer.id, username: 'ada', superadmin: false,
      orgs: [{ id: world.org.id, prefix: 'acm', name: 'ACM' }, { id: res.json().orgs[1].id, prefix: 'ieee', name: 'IEEE' }],
    });
  });

  t.test('a superadmin: every org', async (t) => {
    const admin = discord.addUser({ id: '1999000000000000001', username: 'root' });
    const { access_token } = await signInOfficer(world, admin.id);
    const res = await me(bearer(access_token));
    t.equal(res.json().superadmin, true);
    t.same(res.json().orgs.map((o: { prefix: string }) => o.prefix), ['acm', 'chess', 'ieee', 'loose']);
  });

  t.test('refused without an officer\'s token; 503 while Discord cannot say', async (t) => {
    t.equal((await me({})).statusCode, 401);
    const token = await quad.issueToken(world.org.id, { scopes: ['org:read'] });
    t.equal((await me(bearer(token.token))).statusCode, 401, 'a machine token is no officer');
    const memberToken = quad.api.jwt.sign({ username: 'bob', chat_user_id: member.id, type: 'access', jti: 'member-1' }, { iss: 'quad', expiresIn: 600 } as never);
    t.same((await me(bearer(memberToken))).json().orgs, [], 'a valid token of someone who is an officer of no org: no org');
    // Someone whose roles were never read (no cached answer): Discord must say.
    const grace = discord.addUser({ username: 'grace' });
    const graceToken = quad.api.jwt.sign({ username: 'grace', chat_user_id: grace.id, type: 'access', jti: 'grace-1' }, { iss: 'quad', expiresIn: 600 } as never);
    discord.down(true);
    t.teardown(() => discord.down(false));
    const down = await me(bearer(graceToken));
    t.equal(down.statusCode, 503);
    t.equal(down.json().reason, 'bot_unavailable');
  });
});
