// The Store page in a real browser: with points and store switched on, the officer adds a product, edits it, sees
// it listed, deletes another after confirming, finds the orders tab empty, and the Overview card counts the catalog.
// The member's side and an order's status moves are in member-store.test.ts.
import t from 'tap';
import { cardSays, startBrowserWorld } from './harness.js';

t.test('the Store page', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./plugins/points', './plugins/store'], orgModules: { points: true } });
  const page = await world.open();
  await world.signIn(page);
  const sidebar = page.getByRole('navigation', { name: 'Dashboard' });

  await t.test('switched on in Explore (its need, points, is on)', async (t) => {
    await page.getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('button', { name: 'Add Store' }).click();
    await sidebar.getByRole('link', { name: 'Store' }).click();
    await page.getByRole('heading', { level: 1, name: 'Store' }).waitFor();
    await page.getByText('No products yet').waitFor();
    t.pass();
  });

  const form = page.getByRole('form', { name: 'Add a product' });
  const products = page.getByRole('table', { name: 'Products' });
  const add = async (name: string, price: string, stock: string) => {
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Price (points)').fill(price);
    await form.getByLabel('Stock').fill(stock);
    await form.getByRole('button', { name: 'Add product' }).click();
    await page.getByRole('status').filter({ hasText: `Added ${name}.` }).waitFor();
  };

  await t.test('the officer adds products', async (t) => {
    t.equal(await form.getByLabel('Stock').getAttribute('min'), '1', 'a new product needs stock of 1 or more');
    await form.getByLabel('Category').fill('Merch');
    await add('Sticker', '30', '5');
    await add('Mug', '200', '2');
    await products.getByRole('row').filter({ hasText: 'Sticker' }).waitFor();
    await products.getByRole('row').filter({ hasText: 'Mug' }).waitFor();
    t.equal(await products.getByRole('row').count(), 3);
  });

  await t.test('a product is edited', async (t) => {
    await page.getByRole('button', { name: 'Edit Mug' }).click();
    const edit = page.getByRole('form', { name: 'Edit product' });
    await edit.getByLabel('Price (points)').fill('180');
    await edit.getByLabel('Stock').fill('0');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Mug.' }).waitFor();
    const mug = products.getByRole('row').filter({ hasText: 'Mug' });
    await mug.getByRole('cell', { name: '180', exact: true }).waitFor();
    await page.getByRole('form', { name: 'Add a product' }).waitFor();
    t.pass('the form is back to adding');
    await world.screenshot(page, 'store-products');
  });

  await t.test('deleting a product asks first', async (t) => {
    await page.getByRole('button', { name: 'Delete Mug' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Mug?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.ok(await products.getByRole('row').filter({ hasText: 'Mug' }).isVisible(), 'cancel keeps it');
    await page.getByRole('button', { name: 'Delete Mug' }).click();
    await dialog.getByRole('button', { name: 'Delete product' }).click();
    await products.getByRole('row').filter({ hasText: 'Mug' }).waitFor({ state: 'detached' });
    t.equal(await products.getByRole('row').count(), 2);
  });

  await t.test('the orders tab', async (t) => {
    await page.getByRole('tab', { name: 'Orders' }).click();
    await page.getByText('No orders yet').waitFor();
    t.match(page.url(), /\/dashboard\/store\?tab=orders$/);
    await page.getByLabel('Status').selectOption('pending');
    await page.getByText('No pending orders').waitFor();
  });

  await t.test('the Overview card', async (t) => {
    await sidebar.getByRole('link', { name: 'Overview' }).click();
    const card = page.getByTestId('store-card');
    await card.waitFor();
    await cardSays(t, card, '0 open orders (0 pending); 1 of 1 products in stock.');
  });
  t.same(world.problems(page), []);
});
