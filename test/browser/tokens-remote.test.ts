// Tokens with a remote integration in a real browser: the fake remote MCP server connected as the org's `mcp`
// integration, the New token form with the scope mcp:remote previews the fake's tools, a tools pattern narrows the
// preview, and the token made stores that limit and lists only the narrowed tools on GET /api/tools.
import t from 'tap';
import { allowOutside, bearer, signInOfficer, startFakeRemoteMcp } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

const MCP_TOKEN = 'mcp-browser-token';

t.test('Tokens: limits of a remote integration, with a live preview of the tools', async (t) => {
  allowOutside(t);
  const remote = await startFakeRemoteMcp(t, { token: MCP_TOKEN });
  const world = await startBrowserWorld(t, { config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')] } });
  const { quad, org } = world;
  for (const [name, value] of [['mcp.url', remote.url], ['mcp.token', MCP_TOKEN]]) await quad.services.secrets.set(quad.orm.em.fork(), org.id, name, value);
  const page = await world.open();
  await world.signIn(page);
  await page.goto('/dashboard/tokens');

  await t.test('the integrations list says the MCP server is connected and serves its tools', async (t) => {
    const row = page.getByRole('row', { name: /^MCP server/ });
    await row.getByText('5 tools from its MCP server').waitFor();
    t.match(await row.textContent(), /connected/);
    t.ok(await page.getByRole('link', { name: 'Explore → Integrations' }).isVisible(), 'services are connected in Explore');
  });

  const dialog = page.getByRole('dialog', { name: 'New token' });
  const preview = dialog.getByRole('region', { name: 'Tools this token would get' });
  const listed = preview.getByRole('list', { name: 'MCP server tools' }).getByRole('listitem').locator('code');

  await t.test('choosing mcp:remote previews the remote tools; a tools pattern narrows them', async (t) => {
    await page.getByRole('button', { name: 'New token' }).first().click();
    await dialog.getByLabel('Name').fill('Remote agent');
    await dialog.getByRole('checkbox', { name: /mcp:remote/ }).check();
    await preview.getByRole('status').filter({ hasText: '5 tools now' }).waitFor();
    t.same(await listed.allTextContents(), ['mcp.broken', 'mcp.echo', 'mcp.get_repo', 'mcp.list_issues', 'mcp.whoami']);
    await dialog.getByRole('group', { name: 'Limits for MCP server' }).getByLabel('Tools').fill('get_*\nmcp.echo');
    await preview.getByRole('status').filter({ hasText: '2 tools now' }).waitFor();
    t.same(await listed.allTextContents(), ['mcp.echo', 'mcp.get_repo']);
    await preview.scrollIntoViewIfNeeded();
    await world.screenshot(page, 'tokens-remote-preview');
  });

  await t.test('the token made keeps the limit, and lists only those tools', async (t) => {
    await dialog.getByRole('button', { name: 'Make token' }).click();
    const shown = page.getByRole('dialog', { name: 'Copy the token for Remote agent' });
    const token = (await shown.getByLabel('The new token').textContent())!;
    await shown.getByRole('button', { name: 'Done' }).click();
    const officer = (await signInOfficer(world, world.officer.id)).access_token;
    const tokens = (await quad.api.inject({ url: '/api/organizations/acm/tokens', headers: bearer(officer) })).json().tokens;
    t.match(tokens.find((x: { name: string }) => x.name === 'Remote agent'), { scopes: ['mcp:remote'], limits: { mcp: { tools: ['get_*', 'mcp.echo'] } } });
    const tools = (await quad.api.inject({ url: '/api/tools', headers: bearer(token) })).json().tools.map((x: { name: string }) => x.name);
    t.same(tools, ['mcp.echo', 'mcp.get_repo']);
    await page.getByRole('row').filter({ hasText: 'Remote agent' }).getByText('mcp: tools get_*, mcp.echo').waitFor();
  });

  t.same(world.problems(page), []);
});
