// The Events page (outbound webhooks) in a real browser: a webhook is added with a Discord webhook URL (the fake
// Discord as receiver, as plugins/event_webhook's own tests do) and event kinds; a test send shows its delivery
// result, also when the receiver is down; a webhook is changed and, after confirming, deleted.
import t from 'tap';
import { startFakeDiscord } from '@quad/core/testing';
import { cardSays, startBrowserWorld } from './harness.js';

const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

t.test('the Events page', async (t) => {
  const receiver = await startFakeDiscord();
  t.teardown(() => receiver.close());
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/points', './plugins/store', './plugins/event_webhook'],
    orgModules: { points: true, store: true, event_webhook: true },
    config: { SECRETS_KEY: [SECRETS_KEY], DISCORD_WEBHOOK_URL_BASE: `${receiver.url}/api/webhooks/` },
  });
  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
  const channel = receiver.addWebhook();

  await t.test('a webhook is added with its URL and event kinds', async (t) => {
    await sidebar.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Name').fill('Orders');
    await form.getByLabel('Discord webhook URL').fill('https://example.com/not-discord');
    await form.getByRole('checkbox', { name: 'order.created' }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be a Discord webhook URL' }).waitFor();
    await form.getByLabel('Discord webhook URL').fill(channel.url);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('status').filter({ hasText: 'Added Orders.' }).waitFor();
    const row = page.getByRole('table', { name: 'Webhooks' }).getByRole('row').filter({ hasText: 'Orders' });
    t.match(await row.textContent(), /order\.created.*Yes.*Nothing sent yet/);
    t.notMatch(await page.content(), new RegExp(channel.token), 'the URL is never shown back');
  });

  await t.test('a test send shows the delivery result', async (t) => {
    const before = receiver.webhookPosts.length;
    await page.getByRole('button', { name: 'Send a test to Orders' }).click();
    await page.getByRole('status').filter({ hasText: 'Test message delivered to Orders.' }).waitFor();
    t.equal(receiver.webhookPosts.length, before + 1, 'the receiver got it');
    await page.getByRole('cell', { name: /^Delivered \(test/ }).waitFor();
    await world.screenshot(page, 'events');

    receiver.down(true);
    await page.getByRole('button', { name: 'Send a test to Orders' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The test message to Orders failed' });
    await failed.waitFor();
    t.match(await failed.textContent(), /Discord answered 502/);
    await page.getByRole('cell', { name: /^Failed \(test/ }).waitFor();
    receiver.down(false);
  });

  await t.test('a webhook is changed, turned off and deleted after confirming', async (t) => {
    await page.getByRole('button', { name: 'Edit Orders' }).click();
    const form = page.getByRole('form', { name: 'Edit webhook' });
    await form.getByLabel('Name').fill('Shop orders');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Shop orders.' }).waitFor();
    await page.getByRole('button', { name: 'Turn off Shop orders' }).click();
    await page.getByRole('button', { name: 'Turn on Shop orders' }).waitFor();
    await page.getByRole('button', { name: 'Delete Shop orders' }).click();
    await page.getByRole('dialog', { name: 'Delete Shop orders?' }).getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks yet').waitFor();
    t.pass();
  });

  await t.test('the Overview card', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('events-card');
    await card.waitFor();
    await cardSays(t, card, '0 of 0 webhooks on; 0 failing.');
  });
  t.same(world.problems(page), []);
});
