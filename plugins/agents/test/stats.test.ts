// The officers' numbers at /api/agents/<org>/stats: the org's counts (and none of another org's rows), the retention
// setting, nothing of any member in the answer, and only an officer of the org gets in (a member's session, an
// agent token and another org's officer are refused).
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bearer, startMemberWorld } from '@quad/core/testing';

const w = await startMemberWorld(t, {
  plugins: ['./plugins/agents'], orgModules: { agents: true },
  config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')], AGENT_RETENTION_DAYS: 30 },
});
const { quad, org } = w;
const agent = (await quad.issueToken(org.id, { scopes: ['agents:read', 'agents:write'], kind: 'agent' })).token;
const strangerToken = await w.strangerOfficerToken();
const stranger = (await w.sql<{ id: number }>("select id from organizations where prefix = 'other'"))[0]!.id;
const strangerAgent = (await quad.issueToken(stranger, { scopes: ['agents:read', 'agents:write'], kind: 'agent' })).token;
const CHANNEL = '930000000000000001';
const url = `/api/agents/${org.prefix}/stats`;

async function ok(res: Awaited<ReturnType<typeof w.call>>, status = 201) {
  if (res.statusCode !== status) throw new Error(`${res.statusCode} ${res.body}`);
  return res;
}

/** A conversation of `messages` messages, a memory (sensitive too when asked), a fact and a pending action. */
async function keep(token: string, member: string, { messages = 1, sensitive = false, pending = true } = {}) {
  const base = `/api/agents/members/${member}`;
  const id = randomUUID();
  await ok(await w.call({ method: 'PUT', url: `${base}/conversations/${id}`, token, body: { channel_id: CHANNEL, visibility: 'private' } }));
  const texts = Array.from({ length: messages }, (_, i) => ({ role: 'user', content: `secret words ${member} ${i}` }));
  await ok(await w.call({ method: 'POST', url: `${base}/conversations/${id}/messages`, token, body: { messages: texts } }));
  await ok(await w.call({ method: 'POST', url: `${base}/memories`, token, body: { kind: 'semantic', content: `likes tea ${member}` } }));
  if (sensitive) await ok(await w.call({ method: 'POST', url: `${base}/memories`, token, body: { kind: 'profile', content: `private ${member}`, sensitivity: 'sensitive' } }));
  await ok(await w.call({ method: 'POST', url: `${base}/profile/facts`, token, body: { facts: [{ subject: { kind: 'person', label: `p${member}` }, relation: 'likes', object: { kind: 'topic', label: 'robots' } }] } }));
  if (pending) await ok(await w.call({ method: 'PUT', url: `${base}/pending/${randomUUID()}`, token, body: { action: 'rsvp', payload_hash: 'h' } }));
}

t.test('an officer of the org gets the org\'s numbers and nothing of any member', async (t) => {
  const empty = await w.call({ url, token: w.officerToken });
  t.equal(empty.statusCode, 200, empty.body);
  t.same(empty.json(), {
    retention_days: 30, members: 0, conversations: 0, messages: 0, memories: 0, sensitive_memories: 0, profile_relations: 0, pending_actions: 0,
  });

  await keep(agent, '111111111111111111', { messages: 3, sensitive: true });
  await keep(agent, '222222222222222222', { messages: 2, pending: false });
  // Another org's rows, for a member of the same chat user id: none of them counts here.
  await keep(strangerAgent, '111111111111111111', { messages: 5, sensitive: true });
  await keep(strangerAgent, '333333333333333333');
  // An answered pending action no longer waits; an expired memory is not counted.
  const answered = randomUUID();
  await ok(await w.call({ method: 'PUT', url: `/api/agents/members/222222222222222222/pending/${answered}`, token: agent, body: { action: 'rsvp', payload_hash: 'h' } }));
  await ok(await w.call({ method: 'POST', url: `/api/agents/members/222222222222222222/pending/${answered}/claim`, token: agent, body: { approved: true } }), 200);
  await w.sql("insert into agents_memories (organization_id, member_id, kind, content, confidence, expires_at) values (?, '444444444444444444', 'task', 'old', 0.5, now() - interval '1 day')", [org.id]);

  const res = await w.call({ url, token: w.officerToken });
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    retention_days: 30, members: 3, conversations: 2, messages: 5, memories: 3, sensitive_memories: 1, profile_relations: 2, pending_actions: 1,
  }, 'the member with only an expired memory still has data kept until agents.prune');
  t.notMatch(res.body, /secret words|likes tea|private|robots|111111111111111111|222222222222222222/, 'no member id and no text');

  const other = await w.call({ url: '/api/agents/other/stats', token: strangerToken });
  t.match(other.json(), { members: 2, conversations: 2, messages: 6, memories: 3, sensitive_memories: 1 }, 'the other org counts its own');
});

t.test('only an officer of the org gets in', async (t) => {
  t.equal((await w.call({ url })).statusCode, 401, 'no credential');
  t.equal((await w.call({ url, cookie: w.memberCookie })).statusCode, 401, 'a member\'s session is no officer token');
  t.equal((await quad.api.inject({ url, headers: bearer(agent) })).statusCode, 401, 'an agent token is a machine token: 401 on an officer route');
  const foreign = await w.call({ url, token: strangerToken });
  t.equal(foreign.statusCode, 403, 'an officer of another org');
  t.notMatch(foreign.body, /members/);
});
