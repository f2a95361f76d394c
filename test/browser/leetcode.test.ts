// The LeetCode page in a real browser, against the fake LeetCode and the world's fake Discord: the old
// settings#leetcode address opens it; the settings form saves the channel; Post now queues a post that the test runs
// as the worker would (API role), and the page shows the posted problem; a member is linked through the form (shown
// with their Discord name and LeetCode's spelling) and unlinked after a confirmation.
import t from 'tap';
import { startFakeLeetCode } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

t.test('LeetCode: settings, Post now, link and unlink a member', async (t) => {
  const leetcode = await startFakeLeetCode(t);
  leetcode.setDaily({ date: new Date().toISOString().slice(0, 10), questionFrontendId: '1', title: 'Two Sum', titleSlug: 'two-sum', difficulty: 'Easy', topicTags: ['Array'] });
  leetcode.addUser('Bob_LC');
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/points', './plugins/leetcode'], orgModules: { leetcode: true, points: true }, role: 'api',
    config: { LEETCODE_API_URL: leetcode.url, POINTS_GATEWAY: false },
  });
  const { quad, org, discord, member } = world;
  const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

  const page = await world.open();
  await world.signIn(page);

  await t.test('the old address opens the page; the settings form saves the channel', async (t) => {
    await page.goto('/dashboard/settings#leetcode');
    await page.getByRole('heading', { level: 1, name: 'LeetCode' }).waitFor();
    t.match(page.url(), /\/dashboard\/leetcode$/);
    const form = page.getByRole('form', { name: 'LeetCode settings' });
    t.equal(await form.getByLabel('Post hour (UTC)').inputValue(), '14', 'the defaults');
    await form.getByLabel('Channel ID').fill('1100000000000000001');
    await form.getByLabel('Points per solve').fill('20');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await status('Settings saved.').waitFor();
    t.match(await sql('select channel_id, points_per_solve from leetcode_settings where organization_id = ?', [org.id]), [{ channel_id: '1100000000000000001', points_per_solve: 20 }]);
  });

  await t.test('Post now queues the post; once it ran the page shows the problem', async (t) => {
    await page.getByText('Not posted yet').waitFor();
    await page.getByRole('button', { name: 'Post now' }).click();
    await status('Posting today\'s problem…').waitFor();
    const [run] = await sql(`select id, payload from job_runs where name = 'leetcode.post' and status = 'queued'`);
    t.ok(run, 'the post is queued');
    await quad.runJob('leetcode.post', run!.payload, org.id);
    await sql(`update job_runs set status = 'succeeded' where id = ?`, [run!.id]);
    const today = page.getByTestId('leetcode-today');
    await today.getByText('1. Two Sum').waitFor();
    t.match(await today.textContent(), /Easy · Array.*Posted .* to channel 1100000000000000001/);
    t.equal(discord.messages.length, 1, 'one message in the channel');
    await page.getByLabel('Post again').waitFor();
    await world.screenshot(page, 'leetcode');
  });

  await t.test('link a member through the form, then unlink after confirming', async (t) => {
    const form = page.getByRole('form', { name: 'Link a member' });
    await form.getByLabel('Discord user ID').fill(member.id);
    await form.getByLabel('LeetCode username').fill('nobody_here');
    await form.getByRole('button', { name: 'Link' }).click();
    await page.getByRole('alert').filter({ hasText: 'LeetCode has no user "nobody_here"' }).waitFor();
    await form.getByLabel('LeetCode username').fill('bob_lc');
    await form.getByRole('button', { name: 'Link' }).click();
    await status('Linked bob to Bob_LC.').waitFor();
    const row = page.getByRole('table', { name: 'Linked members' }).getByRole('row').filter({ hasText: 'Bob_LC' });
    await row.waitFor();
    t.match(await row.textContent(), new RegExp(`bob${member.id}Bob_LC`));
    await row.getByRole('button', { name: 'Unlink Bob_LC' }).click();
    await page.getByRole('dialog', { name: 'Unlink Bob_LC?' }).getByRole('button', { name: 'Unlink' }).click();
    await page.getByText('No linked members').waitFor();
    t.same(await sql('select 1 from leetcode_links where organization_id = ?', [org.id]), []);
  });
  t.same(world.problems(page), []);
});
