// The LeetCode routes and tools against the fake LeetCode and the fake Discord: settings (defaults, partial changes,
// bad input 400, audited), links by officers (201/200, 404 not on the server, 422 unknown on LeetCode, 409 taken, 503
// LeetCode down) and by members (/me with the Discord session), today's post and solvers, Post now (409 without a
// channel, while queued, when posted unless force), the module gate, and the four tools with their scopes.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { startLeetCodeWorld } from './world.js';

const CHANNEL = '1100000000000000001';
const today = () => new Date().toISOString().slice(0, 10);

t.test('leetcode routes and tools', async (t) => {
  const w = await startLeetCodeWorld(t);
  const { leetcode, discord, org, quad } = w;
  const bob = w.member;
  leetcode.addUser('Bob_LC');
  leetcode.addUser('carol_lc');
  // The daily problem is today's, so the routes' default day (today, UTC) finds it.
  leetcode.setDaily({ date: today(), questionFrontendId: '1', title: 'Two Sum', titleSlug: 'two-sum', difficulty: 'Easy', topicTags: ['Array'] });

  await t.test('settings: defaults, partial changes, bad input, the audit log', async (t) => {
    t.same((await w.call('GET', '/settings')).json(), { channel_id: null, post_hour_utc: 14, points_per_solve: 10, enabled: true, points_enabled: true });
    const saved = await w.call('PUT', '/settings', { channel_id: CHANNEL, points_per_solve: 25 });
    t.same(saved.json(), { channel_id: CHANNEL, post_hour_utc: 14, points_per_solve: 25, enabled: true, points_enabled: true });
    t.match((await w.call('PUT', '/settings', { post_hour_utc: 9 })).json(), { channel_id: CHANNEL, post_hour_utc: 9, points_per_solve: 25 }, 'fields left out are kept');
    for (const body of [{}, { post_hour_utc: 24 }, { points_per_solve: 1001 }, { channel_id: '123' }, { channel_id: 'abc'.repeat(7) }, { enabled: 'yes' }, { colour: 1 }]) {
      const res = await w.call('PUT', '/settings', body);
      t.equal(res.statusCode, 400, `400 for ${JSON.stringify(body)}`);
    }
    t.match(await w.sql(`select action, details from audit_log where organization_id = ? and action = 'leetcode.settings_changed' order by id`, [org.id]),
      [{ details: { channel_id: CHANNEL, points_per_solve: 25 } }, { details: { post_hour_utc: 9 } }]);
    t.equal((await w.call('GET', '/settings', undefined, 'gamma')).json().points_enabled, false, 'gamma has points off');
  });

  await t.test('the module gate and the officer policy', async (t) => {
    t.equal((await w.call('GET', '/settings', undefined, 'beta')).statusCode, 404, 'module off: 404');
    t.equal((await quad.api.inject({ url: '/api/leetcode/acm/settings' })).statusCode, 401, 'no token: 401');
    const token = (await quad.issueToken(org.id, { scopes: ['leetcode:read'] })).token;
    t.equal((await quad.api.inject({ url: '/api/leetcode/acm/links', headers: bearer(token) })).statusCode, 401, 'a machine token is not an officer');
  });

  await t.test('officer links: create, change, refusals, list, remove', async (t) => {
    const created = await w.call('PUT', `/links/${bob.id}`, { username: 'bob_lc' });
    t.equal(created.statusCode, 201);
    t.match(created.json(), { chat_user_id: bob.id, username: 'Bob_LC', display_name: 'bob', linked_by: `officer:${w.officer.id}` }, 'the name as LeetCode spells it');
    t.equal((await w.call('PUT', `/links/${bob.id}`, { username: 'BOB_LC' })).statusCode, 200, 'the same member again: 200');

    const unknown = await w.call('PUT', `/links/${w.carol.id}`, { username: 'nobody_here' });
    t.equal(unknown.statusCode, 422);
    t.match(unknown.json(), { reason: 'leetcode_user_not_found', field: 'body.username' });
    const taken = await w.call('PUT', `/links/${w.carol.id}`, { username: 'bob_LC' });
    t.equal(taken.statusCode, 409);
    t.equal(taken.json().reason, 'username_taken');
    const stranger = await w.call('PUT', '/links/1300000000000999999', { username: 'carol_lc' });
    t.equal(stranger.statusCode, 404, 'not on the org\'s server');
    t.equal(stranger.json().reason, 'not_a_member');
    for (const [path, body] of [['/links/abc', { username: 'carol_lc' }], [`/links/${w.carol.id}`, { username: 'has space' }], [`/links/${w.carol.id}`, { username: 'carol_lc', x: 1 }], [`/links/${w.carol.id}`, {}]] as const) {
      t.equal((await w.call('PUT', path, body)).statusCode, 400, `400 for ${path} ${JSON.stringify(body)}`);
    }
    leetcode.fail({ status: 503 });
    const down = await w.call('PUT', `/links/${w.carol.id}`, { username: 'carol_lc' });
    t.equal(down.statusCode, 503);
    t.match(down.json(), { reason: 'leetcode_unavailable' });
    t.notMatch(down.body, leetcode.url, 'no address in the answer');
    leetcode.fail(null);
    t.equal((await w.call('PUT', `/links/${w.carol.id}`, { username: 'carol_lc' })).statusCode, 201);

    const page1 = (await w.call('GET', '/links?per_page=1')).json();
    t.match(page1, { links: [{ username: 'Bob_LC' }], page: 1, per_page: 1, total: 2 });
    t.match((await w.call('GET', '/links?per_page=1&page=2')).json().links, [{ username: 'carol_lc' }]);
    t.equal((await w.call('GET', '/links?per_page=500')).statusCode, 400);
    t.same((await w.call('GET', '/links', undefined, 'gamma')).json().links, [], 'another org sees none of them');
    t.equal((await w.call('DELETE', `/links/${w.carol.id}`, undefined, 'gamma')).statusCode, 404, 'nor removes them');

    t.match((await w.call('DELETE', `/links/${w.carol.id}`)).json(), { username: 'carol_lc' });
    t.equal((await w.call('DELETE', `/links/${w.carol.id}`)).json().reason, 'not_linked');
    t.match(await w.sql(`select action from audit_log where organization_id = ? and action like 'leetcode.%link%' order by id`, [org.id]),
      [{ action: 'leetcode.linked' }, { action: 'leetcode.linked' }, { action: 'leetcode.linked' }, { action: 'leetcode.unlinked' }]);
  });

  await t.test('members link themselves with their Discord session', async (t) => {
    t.equal((await quad.api.inject({ url: '/api/leetcode/acm/me' })).statusCode, 401, 'no session: 401');
    const cookie = await w.sessionOf(w.dave);
    t.match((await w.memberCall(cookie, 'GET', '/me')).json(), { chat_user_id: w.dave.id, link: null, today: { date: today(), problem: null, solved: false } });
    t.equal((await w.memberCall(cookie, 'PUT', '/me', { username: 'bob_lc' })).statusCode, 409, 'bob has it');
    t.equal((await w.memberCall(cookie, 'PUT', '/me', { username: 'ghost' })).statusCode, 422);
    const linked = await w.memberCall(cookie, 'PUT', '/me', { username: 'carol_lc' });
    t.equal(linked.statusCode, 201);
    t.match(linked.json(), { username: 'carol_lc', linked_by: `member:${w.dave.id}`, display_name: 'dave' });
    t.match((await w.memberCall(cookie, 'GET', '/me')).json(), { link: { username: 'carol_lc' } });
    t.equal((await w.memberCall(cookie, 'DELETE', '/me')).statusCode, 200);
    t.equal((await w.memberCall(cookie, 'DELETE', '/me')).statusCode, 404);
    t.equal((await w.memberCall(cookie, 'GET', '/me', undefined, 'beta')).statusCode, 403, 'not on beta\'s server: 403, in report mode too');
    const onBeta = await w.sessionOf(w.member);
    t.equal((await w.memberCall(onBeta, 'GET', '/me', undefined, 'beta')).statusCode, 404, 'a member of beta\'s server, with the module off: 404');
  });

  await t.test('Post now: 202, 409 while queued, the post, 409 when posted unless force; the day\'s post and solvers', async (t) => {
    t.same((await w.call('GET', '/daily')).json(), { date: today(), post: null });
    t.equal((await w.call('POST', '/post-now', {}, 'gamma')).json().reason, 'no_channel', 'gamma has no channel: 409');
    const started = await w.call('POST', '/post-now', {});
    t.equal(started.statusCode, 202);
    t.type(started.json().run_id, 'number');
    const again = await w.call('POST', '/post-now', {});
    t.equal(again.statusCode, 409, 'a Post now is queued');
    t.equal(again.json().reason, 'job_running');
    t.same(await w.runQueued('leetcode.post'), [{ force: false }]);
    t.equal(discord.messages.length, 1);
    t.match((await w.call('GET', '/daily')).json(), { date: today(), post: { status: 'posted', title: 'Two Sum', channel_id: CHANNEL, message_id: discord.messages[0]!.id } });
    const posted = await w.call('POST', '/post-now', {});
    t.equal(posted.statusCode, 409);
    t.equal(posted.json().reason, 'already_posted');
    t.equal((await w.call('POST', '/post-now', { force: true })).statusCode, 202);
    await w.runQueued('leetcode.post');
    t.equal(discord.messages.length, 2, 'force posts again');
    t.equal((await w.call('POST', '/post-now', { force: 'yes' })).statusCode, 400);

    const cookie = await w.sessionOf(bob);
    t.match((await w.memberCall(cookie, 'GET', '/me')).json(), { link: { username: 'Bob_LC' }, today: { problem: { title: 'Two Sum' }, solved: false } });
    leetcode.accept('Bob_LC', 'two-sum', new Date());
    await w.runJob('leetcode.check_solves', {});
    t.match((await w.memberCall(cookie, 'GET', '/me')).json().today, { solved: true });
    t.match((await w.call('GET', '/solves')).json(), { date: today(), total: 1, solves: [{ chat_user_id: bob.id, username: 'Bob_LC', display_name: 'bob', points: 25 }] });
    for (const q of ['date=2026-02-31', 'date=yesterday', 'per_page=0', 'x=1']) t.equal((await w.call('GET', `/solves?${q}`)).statusCode, 400, `400 for ${q}`);
    t.equal((await w.call('GET', '/daily?date=2026-13-01')).statusCode, 400);
    t.same((await w.call('GET', '/daily', undefined, 'gamma')).json().post, null, 'another org has no post');
  });

  await t.test('tools: leetcode.daily, leetcode.solves (read), leetcode.link, leetcode.unlink with confirm (manage)', async (t) => {
    const read = (await quad.issueToken(org.id, { scopes: ['leetcode:read'] })).token;
    const manage = (await quad.issueToken(org.id, { scopes: ['leetcode:manage'] })).token;
    const tool = (name: string, args: unknown, as: string) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(as), payload: { name, arguments: args } });
    t.match((await tool('leetcode.daily', {}, read)).json().result, { date: today(), post: { title: 'Two Sum', solves: 1 } });
    t.match((await tool('leetcode.solves', {}, read)).json().result, { total: 1, solves: [{ username: 'Bob_LC' }] });
    t.equal((await tool('leetcode.link', { chat_user_id: w.carol.id, username: 'carol_lc' }, read)).json().reason, 'unknown_tool', 'read cannot link');
    const linked = (await tool('leetcode.link', { chat_user_id: w.carol.id, username: 'carol_lc' }, manage)).json();
    t.match(linked.result, { created: true, link: { username: 'carol_lc', display_name: 'carol', linked_by: /^machine:/ } });
    t.equal((await tool('leetcode.link', { chat_user_id: w.carol.id, username: 'nobody_here' }, manage)).statusCode, 422);
    const preview = (await tool('leetcode.unlink', { chat_user_id: w.carol.id }, manage)).json();
    t.match(preview, { ok: true, confirm_required: true, preview: { unlink: w.carol.id, username: 'carol_lc' } });
    t.equal((await w.sql('select 1 from leetcode_links where chat_user_id = ?', [w.carol.id])).length, 1, 'nothing removed without confirm');
    t.match((await tool('leetcode.unlink', { chat_user_id: w.carol.id, confirm: true }, manage)).json().result, { username: 'carol_lc' });
  });
});
