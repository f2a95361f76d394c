// Turns against the fake Discord and the fake embeddings service: the member from Discord (403 outside the server,
// 503 when Discord is down or the org has no server), the whole context after a commit, similar profile nodes, and
// the commit's one transaction — one invalid part (a bad covers, a conversation of another member, a sensitive memory
// without SECRETS_KEY) writes nothing.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bearer, startFakeEmbeddings, startSignInWorld } from '@quad/core/testing';

const fake = await startFakeEmbeddings(t);
const w = await startSignInWorld(t, {
  plugins: ['./plugins/knowledge', './plugins/agents'], orgModules: { agents: true }, role: 'api',
  config: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1' },
});
const { quad, org, discord } = w;
const token = (await quad.issueToken(org.id, { scopes: ['agents:read', 'agents:write'], kind: 'agent' })).token;
const reader = (await quad.issueToken(org.id, { scopes: ['agents:read'], kind: 'agent' })).token;
const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);
const CHANNEL = '910000000000000001';

const turn = (member: string, part: 'context' | 'commit', body: Record<string, unknown>, auth = token) =>
  quad.api.inject({ method: 'POST', url: `/api/agents/members/${member}/turn/${part}`, headers: bearer(auth), payload: body });

t.test('context: the member as Discord knows them; 403 outside the server, 503 when it cannot be asked', async (t) => {
  const id = randomUUID();
  const bob = await turn(w.member.id, 'context', { conversation_id: id, visibility: 'private' });
  t.equal(bob.statusCode, 200, bob.body);
  t.same(bob.json().member, { chat_user_id: w.member.id, display_name: 'bob', role_ids: [], officer: false });
  t.same(bob.json().conversation, { id, owned: false });
  t.same([bob.json().messages, bob.json().memories, bob.json().profile], [[], [], { nodes: [], relations: [], similar: null }]);
  const ada = (await turn(w.officer.id, 'context', { conversation_id: id, visibility: 'private' })).json();
  t.match(ada.member, { display_name: 'Ada Lovelace', role_ids: [w.officerRoleId], officer: true });

  const stranger = discord.addUser({ username: 'eve' });
  const outside = await turn(stranger.id, 'context', { conversation_id: id, visibility: 'private' });
  t.equal(outside.statusCode, 403);
  t.match(outside.json(), { reason: 'not_a_member' });
  t.equal((await turn(stranger.id, 'commit', { conversation_id: id, channel_id: CHANNEL, visibility: 'private', messages: [{ role: 'user', content: 'hi' }] })).statusCode, 403);

  discord.down(true);
  const down = await turn(w.member.id, 'context', { conversation_id: id, visibility: 'private' });
  discord.down(false);
  t.equal(down.statusCode, 503);
  t.match(down.json(), { reason: 'chat_platform_unavailable' });

  const unbound = await quad.createOrg({ prefix: 'nosrv', modules: { agents: true } });
  const unboundToken = (await quad.issueToken(unbound.id, { scopes: ['agents:read'], kind: 'agent' })).token;
  const none = await turn(w.member.id, 'context', { conversation_id: id, visibility: 'private' }, unboundToken);
  t.equal(none.statusCode, 503);
  t.match(none.json(), { error: /no Discord server bound/ });
});

t.test('a commit writes every part at once, and the next context reads them', async (t) => {
  const id = randomUUID();
  const pendingId = randomUUID();
  const res = await turn(w.member.id, 'commit', {
    conversation_id: id, channel_id: CHANNEL, visibility: 'private',
    messages: [{ role: 'user', content: 'I joined the robotics club' }, { role: 'assistant', content: 'Welcome aboard!' }],
    summary: { content: 'Bob joined the robotics club.' },
    memories: [{ kind: 'semantic', content: 'Bob is in the robotics club', confidence: 0.8 }],
    facts: [{ subject: { kind: 'person', label: 'Bob' }, relation: 'member_of', object: { kind: 'club', label: 'Robotics Club' }, confidence: 0.9 }],
    pending: [{ id: pendingId, action: 'points.award', payload_hash: 'sha256:x' }],
  });
  t.equal(res.statusCode, 201, res.body);
  t.match(res.json(), { seqs: [1, 2], summary_seq: 2, memory_ids: [Number], facts: [{ relation: 'member_of' }], pending: [{ id: pendingId }] });

  const more = await turn(w.member.id, 'commit', { conversation_id: id, channel_id: CHANNEL, visibility: 'private', messages: [{ role: 'user', content: 'When do they meet?' }] });
  t.same(more.json().seqs, [3], 'the same conversation confirmed and continued');

  const ctx = (await turn(w.member.id, 'context', { conversation_id: id, visibility: 'private', profile_query: 'club: robotics' })).json();
  t.same(ctx.conversation, { id, owned: true });
  t.match(ctx.summary, { content: 'Bob joined the robotics club.', covers: 2 });
  t.same(ctx.messages.map((m: { seq: number }) => m.seq), [3], 'messages after the summary');
  t.same(ctx.memories.map((m: { content: string }) => m.content), ['Bob is in the robotics club']);
  t.same(ctx.profile.relations.map((r: { relation: string }) => r.relation), ['member_of']);
  t.equal(ctx.profile.similar[0].label, 'Robotics Club', 'similar nodes of the profile query');

  const limited = (await turn(w.member.id, 'context', { conversation_id: id, visibility: 'private', message_limit: 0, memory_limit: 0, profile_limit: 0 })).json();
  t.same([limited.messages, limited.memories, limited.profile.relations], [[], [], []], 'a limit of 0 leaves a part out');
  t.same((await turn(w.member.id, 'context', { conversation_id: id, visibility: 'public' })).json().conversation, { id, owned: false }, 'another visibility is not owned');
});

t.test('one invalid part writes nothing', async (t) => {
  const count = async () => (await sql(`select (select count(*) from agents_conversations)::int as c, (select count(*) from agents_messages)::int as m,
    (select count(*) from agents_memories)::int as mem, (select count(*) from agents_profile_edges)::int as e, (select count(*) from agents_pending)::int as p`))[0];
  const before = await count();
  const parts = {
    messages: [{ role: 'user', content: 'hello' }],
    memories: [{ kind: 'task', content: 'follow up' }],
    facts: [{ subject: { kind: 'person', label: 'Bob' }, relation: 'likes', object: { kind: 'food', label: 'Tacos' } }],
    pending: [{ id: randomUUID(), action: 'a', payload_hash: 'h' }],
  };
  const badCovers = await turn(w.member.id, 'commit', { conversation_id: randomUUID(), channel_id: CHANNEL, visibility: 'private', ...parts, summary: { content: 's', covers: 99 } });
  t.equal(badCovers.statusCode, 400);
  t.match(badCovers.json(), { reason: 'covers_past_end' });

  const theirs = randomUUID();
  await turn(w.officer.id, 'commit', { conversation_id: theirs, channel_id: CHANNEL, visibility: 'private', messages: [{ role: 'user', content: 'mine' }] });
  const mid = await count();
  const mismatch = await turn(w.member.id, 'commit', { conversation_id: theirs, channel_id: CHANNEL, visibility: 'private', ...parts });
  t.equal(mismatch.statusCode, 409);

  const sensitive = await turn(w.member.id, 'commit', { conversation_id: randomUUID(), channel_id: CHANNEL, visibility: 'private', ...parts, memories: [{ kind: 'profile', content: 'secret', sensitivity: 'sensitive' }] });
  t.equal(sensitive.statusCode, 503, 'no SECRETS_KEY in this deployment');
  t.same(await count(), mid, 'none of the three wrote anything');
  t.equal(mid.c, before.c + 1, 'only the officer\'s own commit');

  const empty = await turn(w.member.id, 'commit', { conversation_id: randomUUID(), channel_id: CHANNEL, visibility: 'private' });
  t.equal(empty.statusCode, 400);
  t.match(empty.json(), { reason: 'nothing_to_commit' });
  t.equal((await turn(w.member.id, 'commit', { conversation_id: randomUUID(), channel_id: CHANNEL, visibility: 'private', ...parts }, reader)).statusCode, 403, 'agents:write is needed');
});
