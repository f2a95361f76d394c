// Points officer routes (awards, check-ins, events, members, leaderboard), the public lists and every caller kind.
import t from 'tap';
import { withDb } from '@quad/core';
import { captureLogs, signInOfficer } from '@quad/core/testing';
import { startPointsWorld } from './world.js';

t.test('points routes', async (t) => {
  const logs = captureLogs();
  const w = await startPointsWorld(t, { logger: logs.logger });
  const officer = { token: w.officerToken };
  const entries = async () => Number((await w.sql<{ n: string }>('select count(*) as n from points_entries'))[0]!.n);

  t.test('award by email, chat user id and Discord username', async (t) => {
    const byEmail = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'Grace@Example.org', amount: 25, reason: 'helped at the booth', event: 'Booth' } });
    t.equal(byEmail.statusCode, 201, byEmail.body);
    t.match(byEmail.json(), { entry: { amount: 25, source: 'award', reason: 'helped at the booth', event_name: 'Booth', awarded_by: `officer:${w.officer.id}` }, member: { email: 'grace@example.org' }, balance: 25 });
    const again = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'grace@example.org', amount: -5, reason: 'correction' } });
    t.equal(again.json().balance, 20, 'the same member (emails are lower-case), balance is the sum');
    t.equal(again.json().member.user_id, byEmail.json().member.user_id);

    const byId = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { chat_user_id: w.member.id, amount: 7 } });
    t.equal(byId.statusCode, 201);
    t.match(byId.json().member, { chat_user_id: w.member.id, username: 'bob' });

    const byName = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { username: '@Bob', amount: 3 } });
    t.equal(byName.statusCode, 201, byName.body);
    t.equal(byName.json().member.user_id, byId.json().member.user_id, 'the username resolves to the member through the bot');
    t.equal(byName.json().balance, 10);
    t.ok(w.discord.requests.some((r) => r.path.endsWith('/members/search') && r.query.query === 'bob' && r.auth === 'bot'));
  });

  t.test('award errors', async (t) => {
    const before = await entries();
    const none = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { amount: 5 } });
    t.match([none.statusCode, none.json().reason], [400, 'one_member_identifier']);
    const two = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'a@b.org', chat_user_id: w.member.id, amount: 5 } });
    t.match([two.statusCode, two.json().reason], [400, 'one_member_identifier']);
    const zero = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'a@b.org', amount: 0 } });
    t.match([zero.statusCode, zero.json().field], [400, 'body.amount']);
    const badEmail = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'nope', amount: 1 } });
    t.match([badEmail.statusCode, badEmail.json().field], [400, 'body.email']);
    const unknown = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { username: 'nobody-here', amount: 1 } });
    t.match([unknown.statusCode, unknown.json().reason], [404, 'member_not_found']);
    const tooMuch = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'grace@example.org', amount: -1000 } });
    t.match([tooMuch.statusCode, tooMuch.json()], [400, { reason: 'insufficient_points', balance: 20 }]);
    w.discord.down(true);
    const down = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { username: 'bob', amount: 1 } });
    w.discord.down(false);
    t.match([down.statusCode, down.json().reason], [503, 'bot_unavailable']);
    t.equal(await entries(), before, 'no refused award wrote a row');
    // A refused award by a new email or chat user id leaves no member behind (the member is written in the award's
    // transaction).
    const members = async () => (await w.sql('select (select count(*) from users) as users, (select count(*) from points_members) as known'))[0];
    const people = await members();
    const newcomer = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { email: 'newcomer@example.org', amount: -5 } });
    t.match([newcomer.statusCode, newcomer.json()], [400, { reason: 'insufficient_points', balance: 0 }]);
    const newChat = await w.call({ method: 'POST', url: '/api/points/acm/awards', ...officer, body: { chat_user_id: '1400000000000000555', amount: -1 } });
    t.equal(newChat.statusCode, 400);
    t.same(await members(), people, 'no users or points_members row written');
  });


  t.test('event check-in sheet', async (t) => {
    const csv = 'Timestamp,Email,Student ID,Name\r\n2024-01-01,ada@example.org,S1,Ada\r\n2024-01-01,"bob@example.org",,"Bob, Jr."\n\n2024-01-01,ADA@example.org,S1,Ada again\n';
    const res = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Hack Night', points: 10, csv } });
    t.equal(res.statusCode, 201, res.body);
    t.same(res.json(), { event: 'Hack Night', awarded: 2, points: 20, skipped: [{ row: 5, reason: 'already checked in to this event' }] });
    const [ada] = await w.sql(`select m.student_id, m.known_by_email from points_members m join users u on u.id = m.user_id
                                where u.email = ? and m.organization_id = ?`, ['ada@example.org', w.org.id]);
    t.same(ada, { student_id: 'S1', known_by_email: true }, 'student ids from the sheet fill in the org\'s record of the member');
    const again = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Hack Night', points: 10, csv: `email,points\nada@example.org,5\ncarol@example.org,15\nchat_id_is_fine@example.org,1` } });
    t.match(again.json(), { awarded: 2, points: 16, skipped: [{ row: 2 }] }, 'a second upload skips who already checked in');
    const byChat = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Discord Night', points: 4, csv: `chat_user_id\n${w.member.id}` } });
    t.match(byChat.json(), { awarded: 1, points: 4 });
    const later = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Late Night', points: 1, csv: 'email,student_id\nada@example.org,S2' } });
    t.equal(later.statusCode, 201);
    t.same(await w.sql('select m.student_id from points_members m join users u on u.id = m.user_id where u.email = ?', ['ada@example.org']), [{ student_id: 'S1' }], 'a recorded student id stays');
    await w.call({ method: 'DELETE', url: '/api/points/acm/events/Late%20Night', ...officer });
  });

  t.test('a malformed check-in sheet writes nothing and names every problem', async (t) => {
    const before = await entries();
    const post = (csv: string) => w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Broken', points: 10, csv } });
    const rows = await post('email,points,student_id\nok@example.org,5,\nnot-an-email,5,\nfine@example.org,abc,\n,3,\nx@example.org,5\nlast@example.org,0,');
    t.equal(rows.statusCode, 400);
    t.equal(rows.json().reason, 'invalid_csv');
    t.match(rows.json().error, /5 problems; nothing was written/);
    t.same(rows.json().errors, [
      { row: 3, column: 'email', message: '"not-an-email" is not an email address' },
      { row: 4, column: 'points', message: '"abc" is not a whole number of points from 1 to 100000' },
      { row: 5, column: 'email', message: 'needs an email or a chat_user_id' },
      { row: 6, message: 'has 2 fields; the header has 3' },
      { row: 7, column: 'points', message: '"0" is not a whole number of points from 1 to 100000' },
    ]);
    const quote = await post('email\n"ok@example.org\nnext@example.org');
    t.same(quote.json().errors, [{ row: 2, message: 'a quoted field is never closed' }]);
    const header = await post('name,points\nAda,5');
    t.same(header.json().errors, [{ row: 1, message: 'the header needs an email or chat_user_id column' }]);
    const empty = await post('email\n');
    t.same(empty.json().errors, [{ row: 1, message: 'the file has no check-in rows' }]);
    const chat = await post('chat_user_id\n12345');
    t.same(chat.json().errors, [{ row: 2, column: 'chat_user_id', message: '"12345" is not a Discord user id (15 to 21 digits)' }]);
    const missing = await w.call({ method: 'POST', url: '/api/points/acm/checkins', ...officer, body: { event: 'Broken', csv: 'email\na@b.org' } });
    t.match([missing.statusCode, missing.json().field], [400, 'body.points']);
    t.equal(await entries(), before, 'nothing written');
    t.same((await w.call({ url: '/api/points/acm/events', ...officer })).json().events.filter((e: { name: string }) => e.name === 'Broken'), []);
  });

  t.test('events grouped by name; deleting an event removes its rows', async (t) => {
    const res = await w.call({ url: '/api/points/acm/events', ...officer });
    t.equal(res.statusCode, 200);
    const byName = Object.fromEntries(res.json().events.map((e: { name: string }) => [e.name, e]));
    t.match(byName['Hack Night'], { entries: 4, members: 4, points: 36 });
    t.match(byName['Booth'], { entries: 1, members: 1, points: 25 });
    t.match(byName['Discord Night'], { entries: 1, points: 4 });
    const del = await w.call({ method: 'DELETE', url: `/api/points/acm/events/${encodeURIComponent('Hack Night')}`, ...officer });
    t.same(del.json(), { event: 'Hack Night', deleted: 4 });
    const [{ n }] = await w.sql<{ n: string }>("select count(*) as n from points_entries where event_name = 'Hack Night'");
    t.equal(Number(n), 0);
    const gone = await w.call({ method: 'DELETE', url: `/api/points/acm/events/${encodeURIComponent('Hack Night')}`, ...officer });
    t.match([gone.statusCode, gone.json().reason], [404, 'event_not_found']);
    t.notOk((await w.call({ url: '/api/points/acm/events', ...officer })).json().events.some((e: { name: string }) => e.name === 'Hack Night'));
  });

  t.test('members, one member\'s rows, and the leaderboard (officers see details)', async (t) => {
    const res = await w.call({ url: '/api/points/acm/members?sort=balance', ...officer });
    t.equal(res.statusCode, 200);
    const { members, total } = res.json();
    t.equal(total, members.length);
    t.match(members[0], { email: 'grace@example.org', balance: 20, earned: 25, spent: 5 });
    const bob = members.find((m: { chat_user_id: string }) => m.chat_user_id === w.member.id);
    t.match(bob, { username: 'bob', balance: 14 });
    const search = await w.call({ url: '/api/points/acm/members?q=GRACE', ...officer });
    t.same(search.json().members.map((m: { email: string }) => m.email), ['grace@example.org']);
    const page = await w.call({ url: '/api/points/acm/members?per_page=1&page=2&sort=balance', ...officer });
    t.match(page.json(), { page: 2, per_page: 1, total });
    t.equal(page.json().members[0].user_id, members[1].user_id);
    const rows = await w.call({ url: `/api/points/acm/members/${bob.user_id}/entries`, ...officer });
    t.match(rows.json(), { member: { balance: 14 }, total: 3 });
    t.same(rows.json().entries.map((e: { amount: number }) => e.amount), [4, 3, 7], 'newest first');
    const nobody = await w.call({ url: '/api/points/acm/members/999999/entries', ...officer });
    t.equal(nobody.statusCode, 404);
    const board = await w.call({ url: '/api/points/acm/leaderboard?limit=2', ...officer });
    t.match(board.json().leaderboard, [{ rank: 1, email: 'grace@example.org', balance: 20 }, { rank: 2, balance: 14, username: 'bob' }]);
  });

  t.test('public lists drop emails and student ids (member_details_hidden)', async (t) => {
    const board = await w.call({ url: '/api/points/acm/public/leaderboard' });
    t.equal(board.statusCode, 200);
    t.match(board.json().leaderboard[0], { rank: 1, balance: 20 });
    t.notOk(board.body.includes('@example.org'), 'no email anywhere');
    t.notOk(board.body.includes('student_id'));
    t.ok(logs.messages().includes('access decision=deny reason=member_details_hidden route=/api/points/:org/public/leaderboard org=acm credential=none'));
    const members = await w.call({ url: '/api/points/acm/public/members?sort=balance' });
    t.equal(members.statusCode, 200);
    t.same(Object.keys(members.json().members[0]).sort(), ['balance', 'chat_user_id', 'user_id', 'username']);
    t.notOk(members.body.includes('@example.org'));
    t.ok(logs.messages().includes('access decision=deny reason=member_details_hidden route=/api/points/:org/public/members org=acm credential=none'));
  });

  t.test('callers: officer routes refuse everyone else', async (t) => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/api/points/acm/awards', { email: 'x@y.org', amount: 1 }],
      ['POST', '/api/points/acm/checkins', { event: 'E', points: 1, csv: 'email\nx@y.org' }],
      ['GET', '/api/points/acm/events'],
      ['DELETE', '/api/points/acm/events/Booth'],
      ['GET', '/api/points/acm/members'],
      ['GET', '/api/points/acm/members/1/entries'],
      ['GET', '/api/points/acm/leaderboard'],
    ];
    const strangerToken = await w.strangerOfficerToken();
    const idpToken = await w.idpToken('grace@example.org');
    const before = await entries();
    for (const [method, url, body] of routes) {
      t.equal((await w.call({ method, url, body })).statusCode, 401, `${method} ${url} without a token`);
      t.equal((await w.call({ method, url, body, cookie: w.memberCookie })).statusCode, 401, `${method} ${url} with a member session`);
      t.equal((await w.call({ method, url, body, token: idpToken })).statusCode, 401, `${method} ${url} with an identity-provider token`);
      const foreign = await w.call({ method, url, body, token: strangerToken });
      t.match([foreign.statusCode, foreign.json().reason], [403, 'not_org_officer'], `${method} ${url} by an officer of another org`);
    }
    t.equal(await entries(), before);
    t.equal((await w.call({ url: '/api/points/nope/members', ...officer })).statusCode, 404, 'unknown org');
  });

  t.test('the module switched off answers 404', async (t) => {
    await w.quad.updateOrg(w.org.id, { modules: { points: false, store: false } });
    t.teardown(() => w.quad.updateOrg(w.org.id, { modules: { points: true, store: true } }));
    const res = await w.call({ url: '/api/points/acm/public/leaderboard' });
    t.match([res.statusCode, res.json().reason], [404, 'module_off']);
    t.equal((await w.call({ url: '/api/points/acm/members', ...officer })).statusCode, 404);
  });

  t.test('dashboard: overview counts and daily trends', async (t) => {
    const mod = w.quad.registry.get('points')!;
    // The section's EntityManager as the dashboard hands it: the service's, bound to the org.
    const em = w.quad.emFor(w.org.id);
    const org = w.quad.orgs;
    const snapshot = (await org.find('acm'))!;
    const overview = await mod.dashboard!.overview!(withDb({ em, org: snapshot, services: w.quad.services }));
    const [sums] = await w.sql<{ members: string; awarded: string }>(
      `select count(distinct user_id) as members, sum(amount) filter (where amount > 0) as awarded from points_entries where organization_id = ?`, [w.org.id]);
    t.match(overview, { members: Number(sums!.members), points_awarded: Number(sums!.awarded), points_spent: 5 });
    await w.sql(`insert into points_entries (organization_id, user_id, amount, source, awarded_by, created_at)
                 select ?, user_id, 9, 'award', 'system', now() - interval '2 days' from points_entries where organization_id = ? limit 1`, [w.org.id, w.org.id]);
    const today = new Date(); today.setUTCHours(0, 0, 0, 0);
    const since = new Date(today.getTime() - 6 * 86_400_000);
    const series = await mod.dashboard!.trends!(withDb({ em, org: snapshot, services: w.quad.services }), { since, days: 7 });
    const awarded = series.find((s) => s.key === 'points.awarded')!;
    t.equal(awarded.values.length, 7);
    t.equal(awarded.values[4], 9, 'two days ago');
    t.equal(awarded.values[6], Number(sums!.awarded), 'today');
    t.equal(awarded.values.slice(0, 4).reduce((a, b) => a + b, 0), 0);
  });
});

t.test('Discord refusing the member search: 502 with no Discord text in the body', async (t) => {
  // Report mode, so the officer check does not stop at the server Discord no longer knows.
  const w = await startPointsWorld(t, { enforce: false });
  await w.quad.updateOrg(w.org.id, { discordGuildId: '1999999999999999998' });
  const res = await w.call({ method: 'POST', url: '/api/points/acm/awards', token: w.officerToken, body: { username: 'bob', amount: 1 } });
  t.match([res.statusCode, res.json()], [502, { error: 'Discord refused the member search', reason: 'discord_error', discord_status: 404 }]);
  t.notOk(/Unknown Guild|Discord answered|guilds\//.test(res.body), 'no Discord text in the body');
  t.same(await w.sql('select count(*)::int as n from points_entries'), [{ n: 0 }]);
});

t.test('report mode: an officer of another org goes through with a would_deny line', async (t) => {
  const logs = captureLogs();
  const w = await startPointsWorld(t, { enforce: false, logger: logs.logger });
  const guild = w.discord.addGuild({ name: 'Other' });
  const role = w.discord.addRole(guild.id, { name: 'Officers' });
  const stranger = w.discord.addUser({ username: 'mallory' });
  w.discord.addMember(guild.id, stranger.id, [role.id]);
  await w.quad.createOrg({ prefix: 'other', discordGuildId: guild.id, officerRoleId: role.id });
  const token = (await signInOfficer(w, stranger.id)).access_token;
  t.equal((await w.call({ url: '/api/points/acm/members', token })).statusCode, 200);
  t.ok(logs.messages().includes(`access decision=would_deny reason=not_org_officer route=/api/points/:org/members org=acm credential=access_token`));
  t.equal((await w.call({ url: '/api/points/acm/public/members' })).statusCode, 200);
  t.ok(logs.messages().includes('access decision=would_deny reason=member_details_hidden route=/api/points/:org/public/members org=acm credential=none'));
});

t.test('an officer reads only members of their own org by user id (404 for a member of another org)', async (t) => {
  const w = await startPointsWorld(t);
  const strangerToken = await w.strangerOfficerToken();
  // Carol has points only in "other"; Dan is known to no org's ledger.
  const carol = await w.call({ method: 'POST', url: '/api/points/other/awards', token: strangerToken, body: { email: 'carol@other.org', amount: 5 } });
  t.equal(carol.statusCode, 201, carol.body);
  const carolId = carol.json().member.user_id;
  await w.sql("update points_members set student_id = 'S-CAROL' where user_id = ?", [carolId]);
  await w.sql("update users set username = 'carol' where id = ?", [carolId]);
  const danId = await w.userId({ email: 'dan@nowhere.org' });

  for (const [who, id] of [['a member of another org', carolId], ['a user with no rows anywhere', danId]] as const) {
    const res = await w.call({ url: `/api/points/acm/members/${id}/entries`, token: w.officerToken });
    t.equal(res.statusCode, 404, who);
    t.equal(res.json().reason, 'member_not_found');
    t.notOk(/carol|S-CAROL|dan@/.test(res.body), 'nothing of the user in the answer');
  }
  const own = await w.call({ url: `/api/points/other/members/${carolId}/entries`, token: strangerToken });
  t.equal(own.statusCode, 200, 'their own org\'s officer reads them');
  t.match(own.json(), { member: { email: 'carol@other.org', student_id: 'S-CAROL', balance: 5 }, total: 1 });
  t.equal((await w.call({ url: `/api/points/acm/members/${carolId}/entries`, token: strangerToken })).statusCode, 403, 'and not through the other org');
  for (const bad of ['0', '-1', '99999999999999999999', '1e309', 'abc']) {
    t.equal((await w.call({ url: `/api/points/acm/members/${bad}/entries`, token: w.officerToken })).statusCode, 400, `user id ${bad}`);
  }
});
