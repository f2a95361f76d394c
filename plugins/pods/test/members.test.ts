// The officers' member routes against the fake Discord: search by username or nickname prefix, the whole list, role
// filter, limit, order, bots left out; names by id (in one member-list read, or one read per id without the bot's
// member-list permission); the server's roles; a pod's access and recent connections with names for at most 50
// members; Discord refusing (424) or not answering (503, or null names); and who is refused.
import t from 'tap';
import { startMemberWorld } from '@quad/core/testing';

const w = await startMemberWorld(t, { plugins: ['./plugins/pods'], orgModules: { podhost: true } });
const { discord, guildId, org } = w;
const get = (url: string, token = w.officerToken) => w.call({ url: `/api/compute/${org.prefix}${url}`, token });
const membersPath = `/guilds/${guildId}/members`;
const discordCalls = (path: string, since: number) => discord.requests.slice(since).filter((r) => r.path === path || r.path.startsWith(`${path}/`));

// The server: the world's officer ada ("Ada Lovelace", Officers) and member bob, three people found by "ca" (by
// username or nickname), two bots, sixty more people, and roles with a bot-managed one (@everyone comes with it).
const members = discord.addRole(guildId, { name: 'Members', color: 0x3498db, position: 2 });
const managed = discord.addRole(guildId, { name: 'Quad', position: 4, managed: true });
const leads = discord.addRole(guildId, { name: 'Leads', color: 0xe91e63, position: 6 });
const person = (username: string, opts: { roles?: string[]; nick?: string; global_name?: string; avatar?: string } = {}) => {
  const user = discord.addUser({ username, global_name: opts.global_name ?? null, avatar: opts.avatar ?? null });
  discord.addMember(guildId, user.id, opts.roles ?? [], opts.nick ?? null);
  return user;
};
const cara = person('cara', { roles: [members.id], avatar: 'a1b2' });
const carla = person('carla', { roles: [members.id, leads.id], nick: 'Kiki' });
const zoe = person('zoe', { nick: 'Cat', global_name: 'Zoe Z' });
const cabot = discord.addUser({ username: 'cabot', bot: true });
discord.addMember(guildId, cabot.id, [managed.id]);
discord.addMember(guildId, discord.botUser.id, [managed.id]);
const extras = Array.from({ length: 60 }, (_, i) => person(`user-${String(i).padStart(2, '0')}`));
const PEOPLE = 5 + extras.length;

t.test('the routes', async (t) => {
  const routes = w.quad.routes('/api/compute');
  for (const route of ['GET /api/compute/:org/members', 'GET /api/compute/:org/members/roles', 'GET /api/compute/:org/pods/:pod_id/members']) {
    t.ok(routes.includes(route), route);
  }
});

t.test('search by a prefix of the username or the nickname, sorted by name, bots left out', async (t) => {
  const ca = await get('/members?q=ca');
  t.equal(ca.statusCode, 200);
  t.same(ca.json(), {
    members: [
      { id: cara.id, name: 'cara', username: 'cara', avatar: 'a1b2', roles: [members.id] },
      { id: zoe.id, name: 'Cat', username: 'zoe', avatar: null, roles: [] },
      { id: carla.id, name: 'Kiki', username: 'carla', avatar: null, roles: [members.id, leads.id] },
    ],
    total: 3,
  }, 'cara by username, zoe by nickname, carla by username; the bot cabot is not there');
  t.same((await get('/members?q=KI')).json().members.map((m: { id: string }) => m.id), [carla.id], 'nickname, any case');
  t.same((await get('/members?q=ada')).json().members, [{ id: w.officer.id, name: 'Ada Lovelace', username: 'ada', avatar: null, roles: [w.officerRoleId] }]);
  t.same((await get('/members?q=nobody')).json(), { members: [], total: 0 });
  t.same((await get('/members?q=quad')).json(), { members: [], total: 0 }, 'the bot itself is left out');
  t.match(discordCalls(`${membersPath}/search`, 0).at(-1), { query: { query: 'quad', limit: '1000' } }, 'one search call, at Discord\'s maximum');

  const two = (await get('/members?q=ca&limit=2')).json();
  t.same(two.members.map((m: { name: string }) => m.name), ['cara', 'Cat']);
  t.equal(two.total, 3, 'total counts every match, not only the page');
});

t.test('without q: the whole list, 50 by default, up to 500', async (t) => {
  const since = discord.requests.length;
  const all = (await get('/members')).json();
  t.equal(all.members.length, 50);
  t.equal(all.total, PEOPLE, 'every person, no bot');
  t.same(all.members.slice(0, 6).map((m: { name: string }) => m.name), ['Ada Lovelace', 'bob', 'cara', 'Cat', 'Kiki', 'user-00']);
  t.same(discordCalls(membersPath, since).map((r) => r.path), [membersPath], 'one page of the member list');

  const full = (await get('/members?limit=500')).json();
  t.equal(full.members.length, PEOPLE);
  t.equal(full.members.at(-1).name, 'user-59');
  t.notOk(full.members.some((m: { id: string }) => m.id === cabot.id || m.id === discord.botUser.id), 'no bot');
  t.same((await get('/members?q=&limit=1')).json().total, PEOPLE, 'an empty q is no search');

  for (const limit of ['0', '501', '-1', '2.5', 'many']) {
    const res = await get(`/members?limit=${limit}`);
    t.equal(res.statusCode, 400, `limit=${limit}`);
    t.match(res.json(), { error: String });
  }
});

t.test('role keeps the holders of one role', async (t) => {
  t.same((await get(`/members?role=${members.id}`)).json(), {
    members: [
      { id: cara.id, name: 'cara', username: 'cara', avatar: 'a1b2', roles: [members.id] },
      { id: carla.id, name: 'Kiki', username: 'carla', avatar: null, roles: [members.id, leads.id] },
    ],
    total: 2,
  });
  t.same((await get(`/members?q=ca&role=${leads.id}`)).json().members.map((m: { id: string }) => m.id), [carla.id], 'with a search');
  t.same((await get(`/members?role=${managed.id}`)).json(), { members: [], total: 0 }, 'only bots hold the managed role');
  t.equal((await get(`/members?role=${guildId}&limit=1`)).json().total, PEOPLE, 'everyone holds @everyone');
  t.equal((await get('/members?role=officers')).statusCode, 400);
});

t.test('ids: the members named, in the order asked; a few read one by one, more from one read of the member list', async (t) => {
  const unknown = '1999999999999999999';
  const since = discord.requests.length;
  const res = await get(`/members?ids=${zoe.id},${w.member.id},${unknown},${zoe.id}`);
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    members: [
      { id: zoe.id, name: 'Cat', username: 'zoe', avatar: null, roles: [] },
      { id: w.member.id, name: 'bob', username: 'bob', avatar: null, roles: [] },
    ],
    total: 2,
    unknown: [unknown],
  });
  t.same(discordCalls(membersPath, since).map((r) => r.path).sort(), [zoe.id, w.member.id, unknown].map((id) => `${membersPath}/${id}`).sort(), 'three ids: three reads, not the whole list');
  t.same((await get(`/members?ids=${cabot.id}`)).json().members.map((m: { name: string }) => m.name), ['cabot'], 'a bot asked for by id is named');

  const fifty = extras.slice(0, 50).map((u) => u.id);
  const before = discord.requests.length;
  t.equal((await get(`/members?ids=${fifty.join(',')}`)).json().total, 50);
  t.same(discordCalls(membersPath, before).map((r) => r.path), [membersPath], 'fifty ids: one read of the member list, no read per id');
  const cases: [string, string][] = [
    [`ids=${[...fifty, cara.id].join(',')}`, 'invalid_ids'],
    ['ids=', 'invalid_ids'],
    ['ids=,,', 'invalid_ids'],
    [`ids=${cara.id},abc`, 'invalid_ids'],
    [`ids=${cara.id}&q=ca`, 'ids_with_search'],
    [`ids=${cara.id}&role=${members.id}`, 'ids_with_search'],
    [`ids=${cara.id}&limit=5`, 'ids_with_search'],
  ];
  for (const [query, reason] of cases) {
    const refused = await get(`/members?${query}`);
    t.equal(refused.statusCode, 400, query);
    t.equal(refused.json().reason, reason, query);
  }
  t.match((await get(`/members?ids=${[...fifty, cara.id].join(',')}`)).json().error, /at most 50/);
});

t.test('Discord not answering: 503 from the search, the list and the ids lookup', async (t) => {
  await get('/members?q=ca'); // the officer check is cached from here on, so the 503 below is the route's
  discord.down(true);
  t.teardown(() => discord.down(false));
  for (const query of ['q=ca', '', `ids=${cara.id},${zoe.id}`]) {
    const since = discord.requests.length;
    const res = await get(`/members?${query}`);
    t.equal(res.statusCode, 503, query);
    t.equal(res.json().reason, 'bot_unavailable', query);
    t.ok(discordCalls(membersPath, since).length, `${query}: the route asked Discord`);
  }
  t.equal((await get('/members/roles')).statusCode, 503);
});

t.test('without the member-list permission: search and list are 424 with where to turn it on; ids still answer', async (t) => {
  discord.setMembersIntent(guildId, false);
  t.teardown(() => discord.setMembersIntent(guildId, true));
  for (const query of ['', 'q=ca']) {
    const res = await get(`/members?${query}`);
    t.equal(res.statusCode, 424, query);
    t.match(res.json(), { reason: 'member_list_forbidden', error: /Server Members intent/ }, query);
    t.notMatch(res.body, /Missing Access/, 'not Discord\'s own words');
  }
  const since = discord.requests.length;
  const ids = (await get(`/members?ids=${cara.id},${carla.id},1999999999999999999`)).json();
  t.same(ids.members.map((m: { name: string }) => m.name), ['cara', 'Kiki']);
  t.same(ids.unknown, ['1999999999999999999']);
  t.equal(discordCalls(membersPath, since).filter((r) => r.path !== membersPath).length, 3, 'after the list is refused, one read per id');
});

t.test('roles: highest first, without @everyone and bot-managed roles', async (t) => {
  t.same((await get('/members/roles')).json(), {
    roles: [
      { id: leads.id, name: 'Leads', color: 0xe91e63 },
      { id: members.id, name: 'Members', color: 0x3498db },
      { id: w.officerRoleId, name: 'Officers', color: 0 },
    ],
  });
});

t.test('a pod\'s members: access and the last 100 connections, newest first, names for at most 50', async (t) => {
  const [pod] = await w.sql<{ pod_id: string }>(
    `insert into compute_pods (organization_id, provider, pod_id, name, image, is_public, allowed_users)
     values (?, 'hostprov', 'pod-members-1', 'training', 'example/podhost:1', true, string_to_array(?, ',')) returning pod_id`,
    [org.id, [w.officer.id, w.member.id, ...extras.slice(0, 28).map((u) => u.id)].join(',')]);
  // 120 certificates by 30 members (extras 30–59), one a minute; the newest is i = 0.
  const connected = extras.slice(30);
  for (let i = 0; i < 120; i++) {
    await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin, created_at)
      values (?, ?, ?, ?, ?, now() - make_interval(mins => ?))`, [org.id, pod!.pod_id, connected[i % 30]!.id, `podhost_${connected[i % 30]!.username}`, i % 10 === 0, i]);
  }
  await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin)
    values (?, 'another-pod', ?, 'podhost_cara', false)`, [org.id, cara.id]);

  const since = discord.requests.length;
  const res = await get(`/pods/${pod!.pod_id}/members`);
  t.equal(res.statusCode, 200);
  const { access, recent } = res.json();
  t.equal(discordCalls(membersPath, since).length, 1, 'names from one read of the member list');

  t.equal(access.is_public, true);
  t.equal(access.allowed_users.length, 30);
  t.same(access.allowed_users.slice(0, 3), [
    { chat_user_id: w.officer.id, name: 'Ada Lovelace' }, { chat_user_id: w.member.id, name: 'bob' }, { chat_user_id: extras[0]!.id, name: 'user-00' },
  ]);

  t.equal(recent.length, 100, 'the last 100');
  t.same(recent[0], { chat_user_id: connected[0]!.id, name: 'user-30', username: 'podhost_user-30', is_admin: true, created_at: recent[0].created_at });
  const times = recent.map((r: { created_at: string }) => Date.parse(r.created_at));
  t.same(times, [...times].sort((a, b) => b - a), 'newest first');
  t.notOk(recent.some((r: { chat_user_id: string }) => r.chat_user_id === cara.id), 'another pod\'s connections are not here');

  // Named: the 30 allowed users, then the first 20 members met in the recent list (extras 30–49); the rest null.
  const named = new Set([...access.allowed_users, ...recent].filter((m) => m.name !== null).map((m) => m.chat_user_id));
  t.equal(named.size, 50);
  t.ok(access.allowed_users.every((m: { name: string | null }) => m.name !== null));
  t.same(
    [...new Set(recent.filter((r: { name: string | null }) => r.name === null).map((r: { chat_user_id: string }) => r.chat_user_id))],
    extras.slice(50).map((u) => u.id),
  );

  discord.down(true);
  const down = await get(`/pods/${pod!.pod_id}/members`);
  discord.down(false);
  t.equal(down.statusCode, 200, 'Discord failing for names is not a failed answer');
  t.ok([...down.json().access.allowed_users, ...down.json().recent].every((m: { name: string | null }) => m.name === null), 'names are null');

  t.equal((await get('/pods/no-such-pod/members')).statusCode, 404);
});

t.test('officers of the org only', async (t) => {
  const stranger = await w.strangerOfficerToken();
  const [otherOrg] = await w.sql<{ id: number }>("select id from organizations where prefix = 'other'");
  await w.sql(`insert into compute_connections (organization_id, pod_id, chat_user_id, username, is_admin) values (?, 'pod-members-1', ?, 'podhost_mallory', false)`, [otherOrg!.id, cara.id]);
  for (const url of ['/members?q=ca', '/members', `/members?ids=${cara.id}`, '/members/roles', '/pods/pod-members-1/members']) {
    t.equal((await get(url, stranger)).statusCode, 403, `another org's officer: ${url}`);
    t.equal((await w.call({ url: `/api/compute/${org.prefix}${url}`, cookie: w.memberCookie })).statusCode, 401, `a member: ${url}`);
  }
  const own = (await get('/pods/pod-members-1/members')).json();
  t.notOk(own.recent.some((r: { chat_user_id: string }) => r.chat_user_id === cara.id), 'another org\'s rows for the same pod id are not here');
});
