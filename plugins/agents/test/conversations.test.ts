// Conversations, messages, summaries, channels and pending actions through the real routes with agent tokens of
// two orgs: scopes, org isolation for the same chat user id, every 409 and 404, gap-free seqs under concurrent
// posts, exactly one winner of simultaneous claims, and agents.prune.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bearer, startTestApp } from '@quad/core/testing';
import { prune } from '../prune.js';

const quad = await startTestApp(t, { plugins: ['./plugins/agents'], role: 'api' });
const acm = await quad.createOrg({ prefix: 'acm', modules: { agents: true } });
const beta = await quad.createOrg({ prefix: 'beta', modules: { agents: true } });
const off = await quad.createOrg({ prefix: 'off', modules: { agents: false } });
const token = async (orgId: number, scopes: string[]) => (await quad.issueToken(orgId, { scopes, kind: 'agent' })).token;
const both = ['agents:read', 'agents:write'];
const acmToken = await token(acm.id, both);
const betaToken = await token(beta.id, both);
const offToken = await token(off.id, both);
const readOnly = await token(acm.id, ['agents:read']);
const writeOnly = await token(acm.id, ['agents:write']);
const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);

const MEMBER = '111111111111111111';
const OTHER = '222222222222222222';
const CHANNEL = '900000000000000001';
const base = (member = MEMBER) => `/api/agents/members/${member}`;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, auth = acmToken) =>
  quad.api.inject({ method, url, headers: bearer(auth), ...(payload !== undefined && { payload: payload as object }) });

t.test('routes are mounted', async (t) => {
  t.same(quad.routes('/api/agents'), [
    'DELETE /api/agents/:org/me', 'DELETE /api/agents/:org/me/conversations/:uuid', 'DELETE /api/agents/:org/me/memories/:id',
    'DELETE /api/agents/members/:chat_user_id/data', 'DELETE /api/agents/members/:chat_user_id/memories/:id',
    'DELETE /api/agents/members/:chat_user_id/profile/nodes', 'DELETE /api/agents/members/:chat_user_id/profile/relations',
    'GET /api/agents/:org/me', 'GET /api/agents/:org/stats', 'GET /api/agents/members/:chat_user_id/channels/:channel/latest', 'GET /api/agents/members/:chat_user_id/conversations/:uuid',
    'GET /api/agents/members/:chat_user_id/conversations/:uuid/messages', 'GET /api/agents/members/:chat_user_id/memories',
    'GET /api/agents/members/:chat_user_id/profile', 'GET /api/agents/members/:chat_user_id/profile/matching', 'GET /api/agents/members/:chat_user_id/profile/similar',
    'POST /api/agents/members/:chat_user_id/channels/:channel/end',
    'POST /api/agents/members/:chat_user_id/conversations/:uuid/messages', 'POST /api/agents/members/:chat_user_id/conversations/:uuid/summary',
    'POST /api/agents/members/:chat_user_id/memories', 'POST /api/agents/members/:chat_user_id/pending/:uuid/claim',
    'POST /api/agents/members/:chat_user_id/profile/facts', 'POST /api/agents/members/:chat_user_id/turn/commit',
    'POST /api/agents/members/:chat_user_id/turn/context', 'PUT /api/agents/members/:chat_user_id/conversations/:uuid',
    'PUT /api/agents/members/:chat_user_id/pending/:uuid',
  ]);
});

t.test('a conversation is created once and confirmed after; another member, channel or visibility is 409', async (t) => {
  const id = randomUUID();
  const made = await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'private' });
  t.equal(made.statusCode, 201);
  t.match(made.json(), { id, member_id: MEMBER, channel_id: CHANNEL, visibility: 'private', last_seq: 0, ended_at: null });
  t.equal((await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'private' })).statusCode, 200);
  for (const [url, body, why] of [
    [`${base(OTHER)}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'private' }, /another member/],
    [`${base()}/conversations/${id}`, { channel_id: '900000000000000002', visibility: 'private' }, /another channel/],
    [`${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'public' }, /visibility private/],
  ] as const) {
    const res = await call('PUT', url, body);
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'conversation_mismatch', error: why });
  }
  t.same((await call('GET', `${base()}/conversations/${id}`)).json(), { owned: true });
  t.same((await call('GET', `${base()}/conversations/${id}?visibility=private`)).json(), { owned: true });
  t.same((await call('GET', `${base()}/conversations/${id}?visibility=public`)).json(), { owned: false });
  t.same((await call('GET', `${base(OTHER)}/conversations/${id}`)).json(), { owned: false }, 'another member does not own it');
  t.same((await call('GET', `${base()}/conversations/${randomUUID()}`)).json(), { owned: false });

  // The same chat user id and conversation id in another org: another member, another conversation.
  t.equal((await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'public' }, betaToken)).statusCode, 201);
  t.same((await call('GET', `${base()}/conversations/${id}?visibility=private`, undefined, betaToken)).json(), { owned: false });
});

t.test('messages take gap-free seqs; reads start after the newest summary', async (t) => {
  const id = randomUUID();
  await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'private' });
  const post = (messages: { role: string; content: string }[], auth = acmToken, member = MEMBER) => call('POST', `${base(member)}/conversations/${id}/messages`, { messages }, auth);
  let res = await post([{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi, how can I help?' }, { role: 'user', content: 'library hours?' }]);
  t.equal(res.statusCode, 201);
  t.same(res.json(), { seqs: [1, 2, 3] });
  t.same((await post([{ role: 'assistant', content: 'nine to five' }])).json(), { seqs: [4] });

  t.equal((await post([{ role: 'user', content: 'x' }], acmToken, OTHER)).statusCode, 404, 'another member\'s conversation');
  t.equal((await post([{ role: 'user', content: 'x' }], betaToken)).statusCode, 404, 'another org\'s');
  t.equal((await call('POST', `${base()}/conversations/${randomUUID()}/messages`, { messages: [{ role: 'user', content: 'x' }] })).statusCode, 404);
  for (const bad of [[], [{ role: 'robot', content: 'x' }], [{ role: 'user', content: 'x'.repeat(32_001) }], Array(101).fill({ role: 'user', content: 'x' })]) {
    t.equal((await post(bad)).statusCode, 400, JSON.stringify(bad).slice(0, 60));
  }
  t.equal((await call('POST', `/api/agents/members/not-a-snowflake/conversations/${id}/messages`, { messages: [{ role: 'user', content: 'x' }] })).statusCode, 400);

  let history = (await call('GET', `${base()}/conversations/${id}/messages`)).json();
  t.same(history.summary, null);
  t.same(history.messages.map((m: { seq: number; role: string }) => [m.seq, m.role]), [[1, 'user'], [2, 'assistant'], [3, 'user'], [4, 'assistant']]);
  t.same((await call('GET', `${base()}/conversations/${id}/messages?limit=2`)).json().messages.map((m: { seq: number }) => m.seq), [3, 4], 'the newest, oldest first');

  const summary = await call('POST', `${base()}/conversations/${id}/summary`, { content: 'Asked about library hours.', covers: 3 });
  t.equal(summary.statusCode, 201);
  t.match(summary.json(), { content: 'Asked about library hours.', covers: 3 });
  history = (await call('GET', `${base()}/conversations/${id}/messages`)).json();
  t.match(history.summary, { content: 'Asked about library hours.', covers: 3 });
  t.same(history.messages.map((m: { seq: number }) => m.seq), [4], 'only the messages after it');
  const past = await call('POST', `${base()}/conversations/${id}/summary`, { content: 'too far', covers: 5 });
  t.equal(past.statusCode, 400);
  t.match(past.json(), { reason: 'covers_past_end', field: 'body.covers' });
  t.equal((await call('GET', `${base(OTHER)}/conversations/${id}/messages`)).statusCode, 404);
});

t.test('concurrent posts never share or skip a seq', async (t) => {
  const id = randomUUID();
  await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'public' });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    call('POST', `${base()}/conversations/${id}/messages`, { messages: [0, 1, 2].map((k) => ({ role: 'user', content: `post ${i} part ${k}` })) })));
  t.ok(answers.every((a) => a.statusCode === 201));
  const seqs = answers.flatMap((a) => a.json().seqs as number[]).sort((a, b) => a - b);
  t.same(seqs, Array.from({ length: 60 }, (_, i) => i + 1), '1 to 60, each once');
  for (const a of answers) {
    const s = a.json().seqs as number[];
    t.same(s, [s[0], s[0] + 1, s[0] + 2], 'one post\'s messages are consecutive');
  }
  const stored = await sql('select count(*)::int as n, max(seq) as top from agents_messages m join agents_conversations c on c.id = m.conversation_id where c.uuid = ? and c.organization_id = ?', [id, acm.id]);
  t.same(stored[0], { n: 60, top: 60 });
});

t.test('channels: the latest open conversation, and ending them', async (t) => {
  const channel = '900000000000000077';
  const first = randomUUID();
  const second = randomUUID();
  await call('PUT', `${base()}/conversations/${first}`, { channel_id: channel, visibility: 'public' });
  await call('PUT', `${base()}/conversations/${second}`, { channel_id: channel, visibility: 'private' });
  await call('POST', `${base()}/conversations/${first}/messages`, { messages: [{ role: 'user', content: 'newer activity' }] });
  t.equal((await call('GET', `${base()}/channels/${channel}/latest`)).json().conversation.id, first, 'the latest update wins');
  t.equal((await call('GET', `${base()}/channels/${channel}/latest?visibility=private`)).json().conversation.id, second);
  t.same((await call('GET', `${base(OTHER)}/channels/${channel}/latest`)).json(), { conversation: null }, 'another member has none');
  t.same((await call('POST', `${base()}/channels/${channel}/end`)).json(), { ended: 2 });
  t.same((await call('GET', `${base()}/channels/${channel}/latest`)).json(), { conversation: null });
  const ended = await call('POST', `${base()}/conversations/${first}/messages`, { messages: [{ role: 'user', content: 'again' }] });
  t.equal(ended.statusCode, 409);
  t.match(ended.json(), { reason: 'conversation_ended' });
  t.same((await call('POST', `${base()}/channels/${channel}/end`)).json(), { ended: 0 });
});

t.test('pending actions: held, claimed once, 404 for unknown, expired, answered or another member\'s', async (t) => {
  const id = randomUUID();
  const hold = { action: 'store.checkout', payload_hash: 'sha256:abc' };
  const held = await call('PUT', `${base()}/pending/${id}`, hold);
  t.equal(held.statusCode, 201);
  t.match(held.json(), { id, action: 'store.checkout', payload_hash: 'sha256:abc' });
  const ttl = (Date.parse(held.json().expires_at) - Date.now()) / 1000;
  t.ok(ttl > 590 && ttl <= 600, `ttl 600 s by default (${ttl})`);
  t.equal((await call('PUT', `${base()}/pending/${id}`, hold)).statusCode, 200, 'the same again');
  t.equal((await call('PUT', `${base()}/pending/${id}`, { ...hold, payload_hash: 'sha256:other' })).statusCode, 409);
  t.equal((await call('PUT', `${base(OTHER)}/pending/${id}`, hold)).statusCode, 409);

  t.equal((await call('POST', `${base(OTHER)}/pending/${id}/claim`, { approved: true })).statusCode, 404, 'another member');
  t.equal((await call('POST', `${base()}/pending/${id}/claim`, { approved: true }, betaToken)).statusCode, 404, 'another org');
  const claimed = await call('POST', `${base()}/pending/${id}/claim`, { approved: true });
  t.equal(claimed.statusCode, 200);
  t.match(claimed.json(), { id, action: 'store.checkout', payload_hash: 'sha256:abc', approved: true });
  const again = await call('POST', `${base()}/pending/${id}/claim`, { approved: false });
  t.equal(again.statusCode, 404, 'answered');
  t.match(again.json(), { reason: 'pending_not_found' });
  t.equal((await call('POST', `${base()}/pending/${randomUUID()}/claim`, { approved: true })).statusCode, 404, 'unknown');

  const expiring = randomUUID();
  await call('PUT', `${base()}/pending/${expiring}`, { ...hold, ttl_seconds: 60 });
  await sql("update agents_pending set expires_at = now() - interval '1 second' where uuid = ?", [expiring]);
  t.equal((await call('POST', `${base()}/pending/${expiring}/claim`, { approved: true })).statusCode, 404, 'expired');
  const audit = await sql("select action, details from audit_log where action = 'agents.pending_claimed'");
  t.equal(audit.length, 1, 'the confirmation is audited');
  // Any JSON value is an action (seed-shapes.test.ts), but one must be given.
  for (const bad of [{ payload_hash: 'x' }, { ...hold, payload_hash: '' }, { ...hold, ttl_seconds: 0 }, { ...hold, ttl_seconds: 86_401 }]) {
    t.equal((await call('PUT', `${base()}/pending/${randomUUID()}`, bad)).statusCode, 400, JSON.stringify(bad));
  }
});

t.test('two simultaneous claims: exactly one wins', async (t) => {
  for (let round = 0; round < 10; round++) {
    const id = randomUUID();
    await call('PUT', `${base()}/pending/${id}`, { action: 'a', payload_hash: 'h' });
    const answers = await Promise.all([true, false].map((approved) => call('POST', `${base()}/pending/${id}/claim`, { approved })));
    t.same(answers.map((a) => a.statusCode).sort(), [200, 404], `round ${round}`);
  }
});

t.test('scopes, tokens and the module switch', async (t) => {
  const id = randomUUID();
  const put = (auth: string) => call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'public' }, auth);
  t.equal((await put(readOnly)).statusCode, 403, 'agents:write is needed to write');
  t.equal((await put(writeOnly)).statusCode, 201);
  t.equal((await call('GET', `${base()}/conversations/${id}`, undefined, writeOnly)).statusCode, 403, 'agents:read is needed to read');
  t.equal((await call('GET', `${base()}/conversations/${id}`, undefined, readOnly)).statusCode, 200);
  t.equal((await quad.api.inject({ url: `${base()}/conversations/${id}` })).statusCode, 401);
  const offAnswer = await call('GET', `${base()}/conversations/${id}`, undefined, offToken);
  t.equal(offAnswer.statusCode, 404);
  t.match(offAnswer.json(), { reason: 'module_off' });
});

t.test('agents.prune: idle conversations with their messages, pending actions a day after expiry', async (t) => {
  const idle = randomUUID();
  const fresh = randomUUID();
  for (const id of [idle, fresh]) {
    await call('PUT', `${base()}/conversations/${id}`, { channel_id: CHANNEL, visibility: 'public' });
    await call('POST', `${base()}/conversations/${id}/messages`, { messages: [{ role: 'user', content: 'hi' }] });
  }
  await sql("update agents_conversations set updated_at = now() - interval '181 days' where uuid = ?", [idle]);
  const oldAction = randomUUID();
  const recentlyExpired = randomUUID();
  for (const id of [oldAction, recentlyExpired]) await call('PUT', `${base()}/pending/${id}`, { action: 'a', payload_hash: 'h' });
  await sql("update agents_pending set expires_at = now() - interval '25 hours' where uuid = ?", [oldAction]);
  await sql("update agents_pending set expires_at = now() - interval '1 hour' where uuid = ?", [recentlyExpired]);

  const done = await prune(quad.services, 180);
  t.same(done, { conversations: 1, pending: 1, memories: 0 });
  t.same((await call('GET', `${base()}/conversations/${idle}`)).json(), { owned: false }, 'gone');
  t.same((await call('GET', `${base()}/conversations/${fresh}`)).json(), { owned: true });
  t.equal((await sql('select count(*)::int as n from agents_messages m left join agents_conversations c on c.id = m.conversation_id where c.id is null'))[0].n, 0, 'no orphan messages');
  t.equal((await sql('select count(*)::int as n from agents_pending where uuid = ?', [recentlyExpired]))[0].n, 1, 'expired less than a day ago: kept');
  t.ok(quad.services.registry.jobs.get('agents.prune'), 'the job is declared');

  // As the daily cron runs it: no org bound, across orgs.
  const idleInBeta = randomUUID();
  await call('PUT', `${base()}/conversations/${idleInBeta}`, { channel_id: CHANNEL, visibility: 'public' }, betaToken);
  await sql("update agents_conversations set updated_at = now() - interval '181 days' where uuid = ?", [idleInBeta]);
  await quad.runJob('agents.prune', {}, null);
  t.same((await call('GET', `${base()}/conversations/${idleInBeta}`, undefined, betaToken)).json(), { owned: false }, 'the cron prunes every org');
  t.same((await call('GET', `${base()}/conversations/${fresh}`)).json(), { owned: true }, 'and keeps what is fresh');
});
