// Tokens in a real browser: a token is made with a scope chosen from the listed ones, shown once (with a copy
// button and the warning), then gone from the page; it works against the API, is listed, and once revoked (after
// a confirmation) the list says so and the API refuses it.
import t from 'tap';
import { startBrowserWorld } from './harness.js';

t.test('Tokens', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./examples/hello-plugin'], orgModules: { hello: true } });
  const { quad } = world;
  const greet = (token: string) => quad.api.inject({
    method: 'POST', url: '/api/hello/acm/greetings', headers: { authorization: `Bearer ${token}` }, payload: { name: 'Grace' },
  });
  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Tokens' }).click();
  await page.getByRole('heading', { level: 1, name: 'Tokens' }).waitFor();
  await page.getByText('No tokens yet').waitFor();
  let token = '';

  await t.test('a new token is shown once', async (t) => {
    await page.getByRole('button', { name: 'New token' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New token' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Make token' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Give the token a name.' }).waitFor();
    await dialog.getByLabel('Name').fill('Release bot');
    await dialog.getByLabel('Kind').selectOption('agent');
    await dialog.getByRole('checkbox', { name: /hello:write/ }).check();
    await dialog.getByLabel('Expires after (days)').fill('30');
    await world.screenshot(page, 'tokens-new');
    await dialog.getByRole('button', { name: 'Make token' }).click();

    const shown = page.getByRole('dialog', { name: 'Copy the token for Release bot' });
    await shown.waitFor();
    t.match(await shown.textContent(), /You will not see it again/);
    token = (await shown.getByLabel('The new token').textContent())!;
    t.match(token, /^plat_/);
    t.ok(await shown.getByRole('button', { name: 'Copy' }).isVisible(), 'a copy button');
    await world.screenshot(page, 'tokens-created');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    t.notOk((await page.content()).includes(token), 'the token is gone from the page');
    t.equal((await greet(token)).statusCode, 201, 'the token works');
  });

  const row = page.getByRole('row').filter({ hasText: 'Release bot' });

  await t.test('it is listed', async (t) => {
    await row.getByText('active', { exact: true }).waitFor();
    t.match(await row.textContent(), /agent/);
    t.match(await row.textContent(), /hello:write/);
    t.match(await row.textContent(), new RegExp(`${token.slice(0, 9)}`), 'its first characters');
    await world.screenshot(page, 'tokens');
  });

  await t.test('revoked after a confirmation; the API refuses it afterwards', async (t) => {
    await page.getByRole('button', { name: 'Revoke Release bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Release bot?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.equal((await greet(token)).statusCode, 201, 'cancelled: the token still works');
    await page.getByRole('button', { name: 'Revoke Release bot' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked', { exact: true }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Revoke Release bot' }).count(), 0, 'no Revoke on a revoked token');
    t.equal((await greet(token)).statusCode, 401, 'the API refuses it');
  });

  t.same(world.problems(page), []);
});
