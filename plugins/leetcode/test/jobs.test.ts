// The LeetCode jobs against the fake LeetCode and the fake Discord: leetcode.daily posts once per org and UTC day at
// or after the org's hour (only orgs with the module on, enabled and a channel), a failed post raises
// leetcode.post_failed and the next run posts and clears it, concurrent runs post once; leetcode.check_solves records
// a solve once per member and day and awards points through the points module only where points is on.
import t from 'tap';
import { startLeetCodeWorld, onSeedDay } from './world.js';

const CHANNEL = '1100000000000000001';

t.test('leetcode jobs', async (t) => {
  const w = await startLeetCodeWorld(t);
  const { leetcode, discord, org, beta, gamma } = w;
  const posts = () => discord.messages.filter((m) => m.channelId === CHANNEL);
  const problem = async (orgId: number) => (await w.sql<{ status: string; message: string }>(
    `select status, message from notifications where organization_id = ? and problem_key = 'leetcode.post_failed'`, [orgId]))[0];
  const events = async (kind: string, orgId = org.id) => w.sql<{ title: string; data: Record<string, unknown> }>(
    'select title, data from notifications where organization_id = ? and kind = ? order by id', [orgId, kind]);
  const daily = (hhmm: string) => w.runJob('leetcode.daily', { now: onSeedDay(hhmm) });

  // acm posts at 14:00 UTC; beta (module off) and gamma (disabled) have a channel too.
  t.equal((await w.call('PUT', '/settings', { channel_id: CHANNEL, post_hour_utc: 14 })).statusCode, 200);
  await w.sql(`insert into leetcode_settings (organization_id, channel_id) values (?, ?), (?, ?)`, [beta.id, '1100000000000000002', gamma.id, '1100000000000000003']);
  await w.sql('update leetcode_settings set enabled = false where organization_id = ?', [gamma.id]);

  await t.test('leetcode.daily: nothing before the hour; at or after it, one embed post per day', async (t) => {
    await daily('13:00');
    t.equal(discord.messages.length, 0, 'before 14:00 UTC nothing is posted');
    t.equal(leetcode.requests.length, 0, 'and LeetCode is not asked when no org is due');

    discord.down(true);
    await daily('14:00');
    t.equal(posts().length, 0);
    t.match(await w.call('GET', '/daily?date=2026-03-02').then((r) => r.json()), { post: { status: 'failed', error: /Discord did not answer/ } });
    t.match(await problem(org.id), { status: 'open', message: /Discord did not answer/ }, 'the failed post is a problem');

    discord.down(false);
    await daily('15:00');
    t.equal(posts().length, 1, 'the next hourly run posts');
    t.match(posts()[0]!.body, {
      embeds: [{
        title: '1. Two Sum', url: `${leetcode.url}/problems/two-sum/`,
        fields: [{ name: 'Difficulty', value: 'Easy' }, { name: 'Tags', value: 'Array, Hash Table' }],
      }],
      allowed_mentions: { parse: [] },
    });
    t.equal(await problem(org.id), undefined, 'a good post clears the problem');
    t.match(await events('leetcode.posted'), [{ title: 'LeetCode daily posted: 1. Two Sum', data: { date: '2026-03-02', message_id: posts()[0]!.id } }]);
    const { post } = (await w.call('GET', '/daily?date=2026-03-02')).json();
    t.match(post, { status: 'posted', message_id: posts()[0]!.id, question_id: '1', tags: ['Array', 'Hash Table'], error: null, solves: 0 });

    await Promise.all([daily('16:00'), daily('16:00')]);
    t.equal(posts().length, 1, 'later runs (even two at once) do not post again');
    t.equal(discord.messages.length, 1, 'beta (module off) and gamma (disabled) get nothing');
  });

  await t.test('leetcode.daily: concurrent first runs post once', async (t) => {
    await w.sql('update leetcode_settings set enabled = true where organization_id = ?', [gamma.id]);
    await Promise.all([daily('17:00'), daily('17:00'), daily('17:00')]);
    t.equal(discord.messages.filter((m) => m.channelId === '1100000000000000003').length, 1, 'gamma: one post from three runs');
  });

  await t.test('leetcode.daily: LeetCode down or answering garbage is the post problem of each due org', async (t) => {
    leetcode.setDaily({ date: '2026-03-03', questionFrontendId: '2', title: 'Add Two Numbers', titleSlug: 'add-two-numbers', difficulty: 'Medium', topicTags: [] });
    leetcode.fail('garbage');
    await w.runJob('leetcode.daily', { now: onSeedDay('14:00', '2026-03-03') });
    t.match(await problem(org.id), { status: 'open', message: 'LeetCode answered questionOfToday with something that is not JSON' });
    leetcode.fail('hang');
    await w.runJob('leetcode.daily', { now: onSeedDay('15:00', '2026-03-03') });
    t.match(await problem(org.id), { message: /LeetCode did not answer questionOfToday \(timeout\)/ }, 'the deadline ends a call that hangs');
    leetcode.fail({ status: 502 });
    await w.runJob('leetcode.daily', { now: onSeedDay('16:00', '2026-03-03') });
    t.match(await problem(org.id), { message: 'LeetCode answered questionOfToday with HTTP 502' });
    leetcode.fail(null);
    await w.runJob('leetcode.daily', { now: onSeedDay('17:00', '2026-03-03') });
    t.equal(posts().length, 2);
    t.equal(await problem(org.id), undefined);
  });

  await t.test('leetcode.check_solves: once per member and day, points only where points is on', async (t) => {
    // bob solved the 2026-03-02 problem that day; carol solved it a day late (not counted); dave solved another problem.
    const bob = w.member;
    await w.sql(`insert into leetcode_links (organization_id, chat_user_id, username, linked_by) values
      (?, ?, 'bob_lc', 'test'), (?, ?, 'carol_lc', 'test'), (?, ?, 'dave_lc', 'test'), (?, ?, 'bob_lc', 'test')`,
    [org.id, bob.id, org.id, w.carol.id, org.id, w.dave.id, gamma.id, bob.id]);
    leetcode.accept('bob_lc', 'two-sum', new Date(onSeedDay('18:10')));
    leetcode.accept('bob_lc', 'two-sum', new Date(onSeedDay('19:00')));
    leetcode.accept('carol_lc', 'two-sum', new Date(onSeedDay('00:30', '2026-03-03')));
    leetcode.accept('dave_lc', 'reverse-integer', new Date(onSeedDay('18:00')));

    await w.runJob('leetcode.check_solves', { now: onSeedDay('20:00', '2026-03-03') });
    const solves = await w.call('GET', '/solves?date=2026-03-02');
    t.equal(solves.statusCode, 200);
    t.match(solves.json(), { date: '2026-03-02', total: 1, solves: [{ chat_user_id: bob.id, username: 'bob_lc', solved_at: '2026-03-02T18:10:00.000Z', points: 10 }] });
    t.same((await w.call('GET', '/solves?date=2026-03-03')).json().solves, [], 'nobody solved the 2026-03-03 problem');
    const ledger = await w.sql<{ amount: number; source: string; ref: string; awarded_by: string }>(
      `select e.amount, e.source, e.ref, e.awarded_by from points_entries e join users u on u.id = e.user_id where u.chat_user_id = ? and e.organization_id = ?`, [bob.id, org.id]);
    t.same(ledger, [{ amount: 10, source: 'award', ref: `leetcode:2026-03-02:${bob.id}`, awarded_by: 'system' }], 'acm has points on: 10 points');
    t.match(await events('leetcode.solved'), [{ data: { chat_user_id: bob.id, date: '2026-03-02', points: 10 } }]);
    t.match((await w.sql('select points from leetcode_solves where organization_id = ?', [gamma.id])), [{ points: 0 }], 'gamma has points off: the solve counts, no points');
    t.same(await w.sql('select 1 from points_entries where organization_id = ?', [gamma.id]), []);

    // Within 25 minutes a link is not read again; after, it is, and nothing is recorded twice.
    const reads = leetcode.requests.filter((r) => r.operation === 'recent').length;
    await w.runJob('leetcode.check_solves', { now: onSeedDay('20:10', '2026-03-03') });
    t.equal(leetcode.requests.filter((r) => r.operation === 'recent').length, reads, 'no link read twice in a period');
    await w.sql('update leetcode_links set checked_at = null');
    await w.runJob('leetcode.check_solves', { now: onSeedDay('20:30', '2026-03-03') });
    t.equal(leetcode.requests.filter((r) => r.operation === 'recent').length, reads + 4);
    t.equal((await w.sql('select 1 from points_entries where organization_id = ?', [org.id])).length, 1, 'no second award');
    t.equal((await w.call('GET', '/daily?date=2026-03-02')).json().post.solves, 1, 'the maintained count');
  });

  await t.test('leetcode.check_solves: LeetCode failing for a member leaves them for the next run', async (t) => {
    await w.sql('update leetcode_links set checked_at = null');
    leetcode.fail({ status: 500 });
    await w.runJob('leetcode.check_solves', { now: onSeedDay('21:00', '2026-03-03') });
    t.same(await w.sql('select checked_at from leetcode_links where checked_at is not null'), [], 'every link is due again');
    leetcode.fail(null);
  });
});
