// The agents module's two pages in a real browser. An agent writes through the API with its token; the officer's
// Agents page then shows the agent token with its scopes, the retention and the counts, and no member's id or
// text. A member opens their own page (/agents/<org>/me), signs in with (the fake) Discord from its link, sees what
// the agents keep about them and nothing of another member's, deletes one memory, then everything after a confirm;
// the API then holds nothing of theirs, and the other member keeps theirs.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bearer } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

const CHANNEL = '940000000000000001';

t.test('the Agents page and the member\'s own page', async (t) => {
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/agents'], orgModules: { agents: true },
    config: { SECRETS_KEY: [Buffer.alloc(32, 9).toString('base64')], AGENT_RETENTION_DAYS: 45 },
  });
  const { quad, org, member, officer: other } = world;
  const { token } = await quad.issueToken(org.id, { name: 'Helper bot', kind: 'agent', scopes: ['agents:read', 'agents:write'] });
  await quad.issueToken(org.id, { name: 'Website', kind: 'app', scopes: [] });
  const api = async (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => {
    const res = await quad.api.inject({ method, url, headers: bearer(token), ...(payload && { payload }) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  /** What an agent keeps about a member: a conversation of two messages, two memories (one sensitive), a fact. */
  async function remember(who: string, words: string) {
    const base = `/api/agents/members/${who}`;
    const id = randomUUID();
    await api('PUT', `${base}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'private' });
    await api('POST', `${base}/conversations/${id}/messages`, { messages: [{ role: 'user', content: `${words} asks` }, { role: 'assistant', content: 'sure' }] });
    await api('POST', `${base}/memories`, { kind: 'semantic', content: `${words} likes tea`, confidence: 0.9 });
    await api('POST', `${base}/memories`, { kind: 'profile', content: `${words} is allergic to nuts`, sensitivity: 'sensitive' });
    await api('POST', `${base}/profile/facts`, { facts: [{ subject: { kind: 'person', label: words }, relation: 'studies', object: { kind: 'topic', label: `${words} robotics` } }] });
  }
  await remember(member.id, 'Bob');
  await remember(other.id, 'Ada');

  await t.test('the officer sees the agent token, the retention and the counts, and nothing of a member', async (t) => {
    const page = await world.open();
    await world.signIn(page);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    const tokens = page.getByRole('table', { name: 'Agent tokens' });
    await tokens.waitFor();
    t.match(await tokens.getByRole('row').filter({ hasText: 'Helper bot' }).textContent(), /Helper bot.*agent.*agents:read, agents:write.*active/);
    t.equal(await tokens.getByRole('row').filter({ hasText: 'Website' }).count(), 0, 'a token without an agents scope is not listed');
    t.match(await page.getByTestId('retention').textContent(), /idle for 45 days are deleted by agents\.prune/);
    const counts = page.getByRole('table', { name: 'Counts' });
    await counts.waitFor();
    const rows = (await counts.getByRole('row').allTextContents()).slice(1);
    t.same(rows, [
      'Members with data2', 'Conversations2', 'Messages4', 'Memories4', 'Sensitive memories (encrypted)2', 'Profile relations2', 'Pending actions waiting0',
    ]);
    const text = await page.locator('main').textContent();
    for (const secret of ['Bob', 'Ada', 'likes tea', 'allergic', 'robotics', 'asks', member.id, other.id]) t.notMatch(text, secret, `no "${secret}" on the page`);
    t.ok(await page.getByRole('link', { name: 'Make one on the Tokens page' }).isVisible());
    t.ok(await page.getByRole('link', { name: `/agents/${org.prefix}/me` }).isVisible(), 'it names the members\' page');
    await world.screenshot(page, 'agents-officer');
    t.same(world.problems(page), []);
  });

  await t.test('a member signs in, sees only their own data, deletes a memory and then everything', async (t) => {
    const page = await world.open();
    await page.goto(`/agents/${org.prefix}/me`);
    world.discord.signInAs(member.id);
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('table', { name: 'Memories' }).waitFor();
    t.equal(new URL(page.url()).pathname, `/agents/${org.prefix}/me`, 'the sign-in comes back to the page');
    await page.getByRole('heading', { level: 1, name: `What ${org.name}'s agents keep about you` }).waitFor();

    const memories = page.getByRole('table', { name: 'Memories' });
    t.match(await memories.getByRole('row').filter({ hasText: 'Bob likes tea' }).textContent(), /Bob likes tea.*semantic.*normal.*0\.90/);
    t.match(await memories.getByRole('row').filter({ hasText: 'Bob is allergic to nuts' }).textContent(), /profile.*sensitive/, 'sensitive memories opened for their owner');
    t.match(await page.getByRole('table', { name: 'Conversations' }).getByRole('row').nth(1).textContent(), /2private.*open/, 'two messages');
    t.match(await page.getByRole('table', { name: 'Profile relations' }).textContent(), /Bob \(person\).*studies.*Bob robotics \(topic\)/);
    t.notMatch(await page.locator('main').textContent(), /Ada/, 'nothing of another member');
    await world.screenshot(page, 'agents-member');

    await page.getByRole('button', { name: 'Delete the memory: Bob likes tea' }).click();
    await page.getByRole('status').filter({ hasText: 'The memory is deleted.' }).waitFor();
    await memories.getByRole('row').filter({ hasText: 'Bob likes tea' }).waitFor({ state: 'detached' });
    const left = await api('GET', `/api/agents/members/${member.id}/memories`);
    t.same(left.memories.map((m: { content: string }) => m.content), ['Bob is allergic to nuts'], 'the API holds the other one only');

    await page.getByRole('button', { name: 'Delete everything' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete everything?' });
    await dialog.getByRole('button', { name: 'Delete everything' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 1 conversation, 1 memory, 1 profile relation and 0 pending actions.' }).waitFor();
    await page.getByText('No memories').waitFor();
    t.same((await api('GET', `/api/agents/members/${member.id}/memories`)).memories, [], 'nothing of the member is left');
    t.same((await api('GET', `/api/agents/members/${member.id}/profile`)).relations, []);
    t.equal((await api('GET', `/api/agents/members/${other.id}/memories`)).memories.length, 2, 'the other member keeps theirs');
    t.same(world.problems(page), []);
  });
});
