// The dashboard's shell in a real browser: sign-in through the fake Discord and sign-out, the sidebar and its rail,
// the spec's old paths, branding, the org switcher and a module's page while the module is off.
import t from 'tap';
import { bearer, signInOfficer } from '@quad/core/testing';
import { startBrowserWorld, waitForBackground } from './harness.js';

const GRAY = 'rgb(107, 114, 128)';

t.test('the dashboard shell', async (t) => {
  const world = await startBrowserWorld(t, { plugins: ['./examples/hello-plugin'], orgModules: { hello: true } });

  await t.test('an officer signs in with Discord and lands on Overview; signing out forgets the tokens', async (t) => {
    const page = await world.open();
    await page.goto('/dashboard/explore');
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/dashboard/signin', 'a signed-out officer is sent to sign in');
    await world.screenshot(page, 'sign-in');
    world.discord.signInAs(world.officer.id);
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('heading', { level: 1, name: 'Explore' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/dashboard/explore', 'back to the page asked for');
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('platform.tokens') ?? 'null'));
    t.match(stored, { access: /^ey/, refresh: String }, 'the token pair is in sessionStorage');
    await page.getByText('ada', { exact: true }).waitFor();
    t.pass('the officer\'s name is shown');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    t.equal(await page.evaluate(() => sessionStorage.getItem('platform.tokens')), null, 'the tokens are gone');
    const refresh = await world.quad.api.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: stored.refresh } });
    t.equal(refresh.statusCode, 401, 'the refresh token was revoked on the server');
    await page.goto('/dashboard/');
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    t.same(world.problems(page), []);
  });

  await t.test('someone who is an officer of no org is told so', async (t) => {
    const page = await world.open();
    world.discord.signInAs(world.member.id);
    await page.goto('/dashboard/');
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('alert').filter({ hasText: 'officer role of no org' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/dashboard/signin');
    t.equal(await page.evaluate(() => sessionStorage.getItem('platform.tokens')), null);
  });

  await t.test('the sidebar narrows to a 56 px rail by its button, Ctrl+B and [ (not while typing), and remembers it', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
    const width = async () => Math.round((await sidebar.boundingBox())!.width);
    const stored = () => page.evaluate(() => localStorage.getItem('platform.sidebar'));
    t.equal(await width(), 240, 'full width at first');
    await page.getByRole('link', { name: 'Greetings' }).waitFor();

    await page.getByRole('button', { name: 'Collapse sidebar' }).click();
    await page.getByRole('button', { name: 'Expand sidebar' }).waitFor();
    t.equal(await width(), 56, 'the button makes it a rail');
    t.equal(await stored(), 'collapsed');
    t.ok(await page.getByRole('link', { name: 'Explore' }).isVisible(), 'the rail keeps every page, by its icon');
    await world.screenshot(page, 'sidebar-rail');

    await page.reload();
    await page.getByRole('button', { name: 'Expand sidebar' }).waitFor();
    t.equal(await width(), 56, 'kept after a reload');

    await page.keyboard.press('Control+b');
    await page.getByRole('button', { name: 'Collapse sidebar' }).waitFor();
    t.equal(await width(), 240, 'Ctrl+B widens it');
    await page.keyboard.press('Meta+b');
    await page.getByRole('button', { name: 'Expand sidebar' }).waitFor();
    t.equal(await width(), 56, 'Cmd+B narrows it');
    await page.keyboard.press('[');
    await page.getByRole('button', { name: 'Collapse sidebar' }).waitFor();
    t.equal(await width(), 240, '[ widens it');

    await page.getByRole('link', { name: 'Greetings' }).click();
    const filter = page.getByLabel('Filter by name');
    await filter.click();
    await page.keyboard.type('a[b');
    t.equal(await filter.inputValue(), 'a[b', 'a [ typed into a field is a character');
    t.equal(await width(), 240, 'and does not move the sidebar');
    t.equal(await stored(), 'expanded');
    t.same(world.problems(page), []);
  });

  await t.test('the spec\'s old paths open the new pages', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    const cases: [string, string, string | null][] = [
      ['/dashboard/ci', '/dashboard/activity?tab=ci', 'Activity'],
      ['/dashboard/notifications', '/dashboard/activity', 'Activity'],
      ['/dashboard/modules', '/dashboard/explore', 'Explore'],
      ['/dashboard/integrations', '/dashboard/explore?tab=integrations', 'Explore'],
      ['/dashboard/mcp', '/dashboard/tokens', 'Tokens'],
      ['/dashboard/settings#modules', '/dashboard/explore', 'Explore'],
      ['/dashboard/settings#calendar', '/dashboard/calendar', null],
      ['/dashboard/settings#leetcode', '/dashboard/leetcode', null],
      ['/dashboard/apps', '/dashboard/hosting', null],
      ['/dashboard/compute', '/dashboard/pods', null],
      ['/dashboard/hosting?tab=pods', '/dashboard/pods', null],
      ['/dashboard/alerts', '/dashboard/job-alerts', null],
    ];
    for (const [from, to, heading] of cases) {
      await page.goto(from);
      // Pages of modules this service does not run are "not found"; the address is what matters.
      await page.getByRole('heading', { level: 1, name: heading ?? 'Page not found' }).waitFor();
      const url = new URL(page.url());
      t.equal(`${url.pathname}${url.search}`, to, `${from} opens ${to}`);
    }
    await page.goto('/dashboard/integrations');
    await page.getByRole('tab', { name: 'Integrations', selected: true }).waitFor();
    t.pass('integrations opens Explore\'s Integrations tab');
  });

  await t.test('branding: gray and the first letter when unbranded; the accent on primary buttons and the initial', async (t) => {
    await world.quad.updateOrg(world.org.id, { modules: {} });
    const page = await world.open();
    await world.signIn(page);
    const initial = page.getByTestId('org-initial');
    const background = async (l: typeof initial) => l.evaluate((e) => getComputedStyle(e).backgroundColor);
    t.equal(await initial.textContent(), 'A', 'the first letter of the org\'s name');
    t.equal(await background(initial), GRAY);
    await page.getByRole('link', { name: 'Explore' }).click();
    const add = page.getByRole('button', { name: 'Add Hello' });
    t.equal(await background(add), GRAY, 'a primary button is gray');

    const { access_token } = await signInOfficer(world, world.officer.id);
    const set = await world.quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/branding', headers: bearer(access_token), payload: { accent_color: '#ff5500' } });
    t.equal(set.statusCode, 200);
    await page.reload();
    await waitForBackground(page, '[data-testid="org-initial"]', 'rgb(255, 85, 0)');
    t.equal(await background(add), 'rgb(255, 85, 0)', 'the accent on a primary button');
    t.equal(await add.evaluate((e) => getComputedStyle(e).color), 'rgb(17, 24, 39)', 'dark text reads on a light accent');
    await world.screenshot(page, 'explore-branded');
    await world.quad.api.inject({ method: 'PUT', url: '/api/dashboard/acm/branding', headers: bearer(access_token), payload: { accent_color: null } });
    await world.quad.updateOrg(world.org.id, { modules: { hello: true } });
    t.same(world.problems(page), []);
  });

  await t.test('an officer of several orgs switches between them', async (t) => {
    const guild = world.discord.addGuild({ name: 'IEEE Server' });
    const role = world.discord.addRole(guild.id, { name: 'Officers' });
    world.discord.addMember(guild.id, world.officer.id, [role.id]);
    const ieee = await world.quad.createOrg({ prefix: 'ieee', name: 'IEEE', discordGuildId: guild.id, officerRoleId: role.id, modules: {} });
    const page = await world.open();
    await world.signIn(page);
    const switcher = page.getByRole('combobox', { name: 'Organisation' });
    t.same(await switcher.locator('option').allTextContents(), ['ACM', 'IEEE'], 'the officer\'s orgs');
    await page.getByRole('link', { name: 'Greetings' }).waitFor();

    await switcher.selectOption('ieee');
    await page.getByTestId('org-initial').filter({ hasText: 'I' }).waitFor();
    await page.getByRole('link', { name: 'Greetings' }).waitFor({ state: 'detached' });
    t.pass('IEEE has the hello module off: its page leaves the sidebar');
    t.equal(await page.evaluate(() => localStorage.getItem('platform.org')), 'ieee', 'the choice is remembered');
    await page.reload();
    await page.getByTestId('org-initial').filter({ hasText: 'I' }).waitFor();

    await page.goto(`/dashboard/explore?org=acm`);
    await page.getByTestId('org-initial').filter({ hasText: 'A' }).waitFor();
    // The address is rewritten just after the choice: wait for it rather than read it at once.
    await page.waitForURL((url) => url.pathname === '/dashboard/explore' && url.search === '');
    t.pass('an org named in the address is chosen, and leaves the address');
    await switcher.selectOption(ieee.prefix);
    await page.getByTestId('org-initial').filter({ hasText: 'I' }).waitFor();
    t.same(world.problems(page), []);
  });

  await t.test('a module\'s page while the module is off links to Explore', async (t) => {
    await world.quad.updateOrg(world.org.id, { modules: { hello: false } });
    const page = await world.open();
    await world.signIn(page);
    t.equal(await page.getByRole('link', { name: 'Greetings' }).count(), 0, 'not in the sidebar');
    await page.goto('/dashboard/hello');
    await page.getByText('Hello is off for this org').waitFor();
    await world.screenshot(page, 'module-off');
    await page.getByRole('link', { name: 'Open Explore' }).click();
    await page.getByRole('heading', { level: 1, name: 'Explore' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/dashboard/explore');
    await page.goto('/dashboard/no-such-page');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/dashboard/no-such-page');
    t.same(world.problems(page), []);
  });
});
