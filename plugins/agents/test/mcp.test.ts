// A whole turn over MCP with the SDK's own client, as an agent runs it: agents.context, knowledge.search, then
// agents.commit, and the next context reads what the commit wrote; the tools listed follow the token's scopes.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, startFakeEmbeddings, startSignInWorld } from '@quad/core/testing';

const fake = await startFakeEmbeddings(t);
const w = await startSignInWorld(t, {
  plugins: ['./plugins/knowledge', './plugins/agents'], orgModules: { agents: true, knowledge: true }, role: 'api', listen: true,
  config: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1' },
});
const { quad, org } = w;
const scopes = ['agents:read', 'agents:write', 'knowledge:read', 'knowledge:write'];
const token = (await quad.issueToken(org.id, { scopes, kind: 'agent' })).token;
const readOnly = (await quad.issueToken(org.id, { scopes: ['agents:read'], kind: 'agent' })).token;
await quad.api.inject({ method: 'PUT', url: '/api/knowledge/sources/club/meetings', headers: bearer(token), payload: { title: 'Meetings', chunks: [{ ordinal: 0, content: 'The robotics club meets on Thursdays at six.' }] } });

async function connect(bearerToken: string) {
  const url = new URL(`http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${bearerToken}` } } }));
  t.teardown(() => client.close());
  return client;
}

t.test('an agent runs a whole turn through the tool server', async (t) => {
  const client = await connect(token);
  const names = (await client.listTools()).tools.map((x) => x.name).filter((n) => n.startsWith('agents.'));
  t.same(names.sort(), ['agents.commit', 'agents.context', 'agents.memories', 'agents.profile']);

  const conversation = randomUUID();
  const member = w.member.id;
  const before = await client.callTool({ name: 'agents.context', arguments: { chat_user_id: member, conversation_id: conversation, visibility: 'private' } });
  t.notOk(before.isError, JSON.stringify(before.content));
  t.match(before.structuredContent, { member: { chat_user_id: member, display_name: 'bob', officer: false }, conversation: { owned: false }, messages: [] });

  const found = await client.callTool({ name: 'knowledge.search', arguments: { query: 'when does the robotics club meet' } });
  const answer = (found.structuredContent as { results: { content: string }[] }).results[0].content;
  t.match(answer, /Thursdays at six/);

  const committed = await client.callTool({
    name: 'agents.commit',
    arguments: {
      chat_user_id: member, conversation_id: conversation, channel_id: '930000000000000001', visibility: 'private',
      messages: [{ role: 'user', content: 'When does the robotics club meet?' }, { role: 'assistant', content: answer }],
      memories: [{ kind: 'semantic', content: 'Interested in the robotics club', confidence: 0.7 }],
      facts: [{ subject: { kind: 'person', label: 'Bob' }, relation: 'interested_in', object: { kind: 'club', label: 'Robotics Club' } }],
    },
  });
  t.notOk(committed.isError, JSON.stringify(committed.content));
  t.match(committed.structuredContent, { seqs: [1, 2], memory_ids: [Number], facts: [{ relation: 'interested_in' }] });

  const after = await client.callTool({ name: 'agents.context', arguments: { chat_user_id: member, conversation_id: conversation, visibility: 'private', profile_query: 'robotics' } });
  t.match(after.structuredContent, {
    conversation: { owned: true }, messages: [{ seq: 1 }, { seq: 2, content: answer }],
    memories: [{ content: 'Interested in the robotics club' }], profile: { relations: [{ relation: 'interested_in' }], similar: [{ label: 'Robotics Club' }] },
  });
  const memories = await client.callTool({ name: 'agents.memories', arguments: { chat_user_id: member, kinds: 'semantic' } });
  t.equal((memories.structuredContent as { memories: unknown[] }).memories.length, 1);

  const stranger = await client.callTool({ name: 'agents.context', arguments: { chat_user_id: '100000000000000099', conversation_id: conversation, visibility: 'private' } });
  t.ok(stranger.isError, 'a member outside the server is refused');
  t.match(JSON.stringify(stranger.content), /not in the org's Discord server/);
});

t.test('a read-only agent token sees no write tool', async (t) => {
  const client = await connect(readOnly);
  const names = (await client.listTools()).tools.map((x) => x.name);
  t.ok(names.includes('agents.context'));
  t.notOk(names.includes('agents.commit'));
});
