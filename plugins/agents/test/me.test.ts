// The member's own data at /api/agents/<org>/me with a Discord session: what the org's agents keep about them (and
// nothing of anyone else's), deleting one conversation, one memory or everything (audited); officers' tokens and
// agent tokens have no way in.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bearer, startMemberWorld } from '@quad/core/testing';

const w = await startMemberWorld(t, { plugins: ['./plugins/agents'], orgModules: { agents: true }, config: { SECRETS_KEY: [Buffer.alloc(32, 4).toString('base64')] } });
const { quad, org } = w;
const agent = (await quad.issueToken(org.id, { scopes: ['agents:read', 'agents:write'], kind: 'agent' })).token;
const CHANNEL = '920000000000000001';

async function remember(member: string, text: string) {
  const id = randomUUID();
  await w.call({ method: 'PUT', url: `/api/agents/members/${member}/conversations/${id}`, token: agent, body: { channel_id: CHANNEL, visibility: 'private' } });
  await w.call({ method: 'POST', url: `/api/agents/members/${member}/conversations/${id}/messages`, token: agent, body: { messages: [{ role: 'user', content: text }] } });
  const memory = await w.call({ method: 'POST', url: `/api/agents/members/${member}/memories`, token: agent, body: { kind: 'semantic', content: `${text} (memory)` } });
  await w.call({ method: 'POST', url: `/api/agents/members/${member}/memories`, token: agent, body: { kind: 'profile', content: `${text} (sensitive)`, sensitivity: 'sensitive' } });
  await w.call({ method: 'POST', url: `/api/agents/members/${member}/profile/facts`, token: agent, body: { facts: [{ subject: { kind: 'person', label: text }, relation: 'likes', object: { kind: 'topic', label: 'robots' } }] } });
  await w.call({ method: 'PUT', url: `/api/agents/members/${member}/pending/${randomUUID()}`, token: agent, body: { action: 'a', payload_hash: 'h' } });
  return { conversation: id, memory: memory.json().id as number };
}

t.test('a member sees and deletes only their own data', async (t) => {
  const mine = await remember(w.member.id, 'bob');
  const second = await remember(w.member.id, 'bob again');
  // A name with letters no id holds: the answer's UUIDs are hex, and 'ada' was once inside one of them.
  await remember(w.officer.id, 'zoe');
  const me = () => w.call({ url: `/api/agents/${org.prefix}/me`, cookie: w.memberCookie });

  const seen = await me();
  t.equal(seen.statusCode, 200, seen.body);
  t.same(seen.json().conversations.map((c: { id: string }) => c.id).sort(), [mine.conversation, second.conversation].sort());
  t.same(seen.json().memories.map((m: { content: string }) => m.content).sort(), ['bob (memory)', 'bob (sensitive)', 'bob again (memory)', 'bob again (sensitive)'], 'sensitive ones opened for their owner');
  t.equal(seen.json().profile.relations.length, 2);
  t.notMatch(seen.body, /zoe/, 'nothing of another member');

  const one = await w.call({ method: 'DELETE', url: `/api/agents/${org.prefix}/me/conversations/${mine.conversation}`, cookie: w.memberCookie });
  t.same([one.statusCode, one.json()], [200, { deleted: mine.conversation }]);
  t.equal((await w.call({ method: 'DELETE', url: `/api/agents/${org.prefix}/me/conversations/${mine.conversation}`, cookie: w.memberCookie })).statusCode, 404);
  t.equal((await w.call({ method: 'DELETE', url: `/api/agents/${org.prefix}/me/memories/${mine.memory}`, cookie: w.memberCookie })).statusCode, 200);
  const zoe = await w.call({ url: `/api/agents/members/${w.officer.id}/memories`, token: agent });
  const zoeMemory = zoe.json().memories[0].id;
  t.equal((await w.call({ method: 'DELETE', url: `/api/agents/${org.prefix}/me/memories/${zoeMemory}`, cookie: w.memberCookie })).statusCode, 404, 'another member\'s memory');

  const all = await w.call({ method: 'DELETE', url: `/api/agents/${org.prefix}/me`, cookie: w.memberCookie });
  t.equal(all.statusCode, 200);
  t.same(all.json(), { conversations: 1, pending: 2, memories: 3, nodes: 3, relations: 2 });
  t.same((await me()).json(), { conversations: [], memories: [], profile: { nodes: [], relations: [] } });
  t.equal((await w.call({ url: `/api/agents/members/${w.officer.id}/memories`, token: agent })).json().memories.length, 2, 'another member keeps theirs');
  const audit = await w.sql<{ action: string }>("select action from audit_log where action like 'agents.own_%' order by id");
  t.same(audit.map((a) => a.action), ['agents.own_conversation_deleted', 'agents.own_memory_deleted', 'agents.own_data_deleted']);
});

t.test('only the member\'s own session gets in', async (t) => {
  const url = `/api/agents/${org.prefix}/me`;
  t.equal((await w.call({ url })).statusCode, 401, 'no session');
  t.equal((await w.call({ url, token: w.officerToken })).statusCode, 401, 'an officer\'s token is not a member session');
  t.equal((await quad.api.inject({ url, headers: bearer(agent) })).statusCode, 401, 'nor is an agent token');
});
