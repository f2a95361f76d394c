// The LeetCode module without the points plugin: it boots (points is an optional need), its LeetCode base URL setting
// has LeetCode's address as default and refuses a value that is not an http(s) URL, and a solve is still recorded
// (with no points) when no module provides points.ledger.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { startLeetCodeWorld, onSeedDay } from './world.js';
import { LeetCodeSettings } from '../settings.js';

t.test('without points: settings, a solve recorded with no points', async (t) => {
  const w = await startLeetCodeWorld(t, { points: false });
  t.match(w.quad.registry.get('leetcode'), { title: 'LeetCode', category: 'Engagement', defaultEnabled: false });
  t.equal(w.quad.services.moduleSettings<{ LEETCODE_API_URL: string }>('leetcode').LEETCODE_API_URL, w.leetcode.url);
  t.equal((await w.call('GET', '/settings')).json().points_enabled, false);

  await w.call('PUT', '/settings', { channel_id: '1100000000000000001' });
  await w.sql(`insert into leetcode_links (organization_id, chat_user_id, username, linked_by) values (?, ?, 'bob_lc', 'test')`, [w.org.id, w.member.id]);
  w.leetcode.accept('bob_lc', 'two-sum', new Date(onSeedDay('15:00')));
  await w.runJob('leetcode.daily', { now: onSeedDay('14:00') });
  await w.runJob('leetcode.check_solves', { now: onSeedDay('16:00') });
  t.match((await w.call('GET', '/solves?date=2026-03-02')).json(), { total: 1, solves: [{ username: 'bob_lc', points: 0 }] });

  await t.rejects(startTestApp(t, { plugins: ['./plugins/leetcode'], role: 'api', config: { LEETCODE_API_URL: 'leetcode.com' } }), /LEETCODE_API_URL/);
  t.match(LeetCodeSettings.properties, { LEETCODE_API_URL: { default: 'https://leetcode.com' }, LEETCODE_TIMEOUT_MS: { default: 10_000 } }, 'the defaults');
});
