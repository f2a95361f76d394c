// Memories through the real routes: kinds, order, expiry, deletes (audited), isolation between members and orgs,
// and sensitive memories — sealed at rest (the plaintext is in no column and no log line), 503 without SECRETS_KEY,
// left out of reads by a process that has no key, and a sealed value moved to another member that does not open.
import t from 'tap';
import { bearer, captureLogs, startTestApp } from '@quad/core/testing';
import { prune } from '../prune.js';

const KEY = Buffer.alloc(32, 5).toString('base64');
const logs = captureLogs('debug');
const quad = await startTestApp(t, { plugins: ['./plugins/agents'], role: 'api', config: { SECRETS_KEY: [KEY] }, logger: logs.logger });
// A second process of the same deployment that has no SECRETS_KEY.
const keyless = await startTestApp(t, { plugins: ['./plugins/agents'], role: 'api', databaseUrl: quad.databaseUrl });
const acm = await quad.createOrg({ prefix: 'acm', modules: { agents: true } });
const beta = await quad.createOrg({ prefix: 'beta', modules: { agents: true } });
const scopes = ['agents:read', 'agents:write'];
const acmToken = (await quad.issueToken(acm.id, { scopes, kind: 'agent' })).token;
const betaToken = (await quad.issueToken(beta.id, { scopes, kind: 'agent' })).token;
const sql = (text: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(text, params as never[]);

const MEMBER = '333333333333333333';
const OTHER = '444444444444444444';
const url = (member = MEMBER, rest = '') => `/api/agents/members/${member}/memories${rest}`;
const post = (body: Record<string, unknown>, member = MEMBER, token = acmToken, app = quad) =>
  app.api.inject({ method: 'POST', url: url(member), headers: bearer(token), payload: body });
const list = async (query = '', member = MEMBER, token = acmToken, app = quad) =>
  (await app.api.inject({ url: url(member, query), headers: bearer(token) })).json();

t.test('memories: kinds, highest confidence first, expired left out', async (t) => {
  const made = await post({ kind: 'semantic', content: 'Prefers Python over Java', confidence: 0.9, source_seq: 12 });
  t.equal(made.statusCode, 201);
  t.match(made.json(), { id: Number, kind: 'semantic', content: 'Prefers Python over Java', sensitivity: 'normal', confidence: 0.9, source_seq: 12, expires_at: null });
  await post({ kind: 'task', content: 'Remind about the hackathon signup', confidence: 0.6, expires_in_days: 7 });
  await post({ kind: 'episodic', content: 'Asked about library hours on Monday' });
  const expired = await post({ kind: 'episodic', content: 'An old memory', confidence: 1, expires_in_days: 1 });
  await sql("update agents_memories set expires_at = now() - interval '1 minute' where id = ?", [expired.json().id]);

  const all = await list();
  t.same(all.memories.map((m: { content: string }) => m.content), ['Prefers Python over Java', 'Remind about the hackathon signup', 'Asked about library hours on Monday'],
    'by confidence (0.9, 0.6, the default 0.5); the expired one left out');
  const task = all.memories[1];
  t.ok(Date.parse(task.expires_at) > Date.now() + 6.9 * 86_400_000, 'expires in 7 days');
  t.same((await list('?kinds=episodic,task')).memories.map((m: { kind: string }) => m.kind), ['task', 'episodic']);
  t.same((await list('?limit=1')).memories.length, 1);
  t.same((await list('?limit=0')).memories, []);
  const bad = await quad.api.inject({ url: url(MEMBER, '?kinds=episodic,dreams'), headers: bearer(acmToken) });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { reason: 'bad_kinds', error: /unknown dreams; kinds are episodic, semantic, profile, task/ });
  for (const body of [{ kind: 'dream', content: 'x' }, { kind: 'task', content: '' }, { kind: 'task', content: 'x', confidence: 1.5 }, { kind: 'task', content: 'x', sensitivity: 'secret' }]) {
    t.equal((await post(body)).statusCode, 400, JSON.stringify(body));
  }

  t.same((await list('', OTHER)).memories, [], 'another member has none');
  t.same((await list('', MEMBER, betaToken)).memories, [], 'the same chat user id in another org has none');

  const del = await quad.api.inject({ method: 'DELETE', url: url(MEMBER, `/${made.json().id}`), headers: bearer(acmToken) });
  t.same([del.statusCode, del.json()], [200, { deleted: made.json().id }]);
  t.equal((await quad.api.inject({ method: 'DELETE', url: url(MEMBER, `/${made.json().id}`), headers: bearer(acmToken) })).statusCode, 404);
  t.equal((await quad.api.inject({ method: 'DELETE', url: url(OTHER, `/${all.memories[1].id}`), headers: bearer(acmToken) })).statusCode, 404, 'another member\'s');
  t.equal((await sql("select count(*)::int as n from audit_log where action = 'agents.memory_deleted'"))[0].n, 1, 'the delete is audited');

  t.same(await prune(quad.services, 180), { conversations: 0, pending: 0, memories: 1 }, 'prune deletes the expired one');
});

t.test('sensitive memories are sealed at rest and opened only with the key', async (t) => {
  const secret = 'Member mentioned a medical condition: asthma';
  const made = await post({ kind: 'profile', content: secret, sensitivity: 'sensitive', confidence: 0.95 });
  t.equal(made.statusCode, 201);
  t.match(made.json(), { content: secret, sensitivity: 'sensitive' });
  const [row] = await sql('select content, sealed, to_jsonb(m)::text as whole from agents_memories m where id = ?', [made.json().id]);
  t.equal(row.content, null, 'no plaintext column');
  t.notMatch(row.whole, /asthma/, 'the plaintext is nowhere in the row');
  t.match(row.sealed, /^v1\.[0-9a-f]{8}\./, 'sealed with a listed key');
  t.notMatch(logs.text(), /asthma/, 'nor in a log line');
  t.equal((await list()).memories[0].content, secret, 'opened for the agent with the key');

  // A process without SECRETS_KEY: sensitive writes are 503 and stored ones are left out.
  const refused = await post({ kind: 'profile', content: 'another secret', sensitivity: 'sensitive' }, MEMBER, acmToken, keyless);
  t.equal(refused.statusCode, 503);
  t.match(refused.json(), { reason: 'secrets_unconfigured' });
  t.equal((await sql("select count(*)::int as n from agents_memories where sealed is not null"))[0].n, 1, 'nothing written');
  const seen = await list('', MEMBER, acmToken, keyless);
  t.notOk(seen.memories.some((m: { sensitivity: string }) => m.sensitivity === 'sensitive'), 'left out without the key');
  t.ok(seen.memories.length > 0, 'normal ones still read');
  t.equal((await post({ kind: 'task', content: 'normal is fine' }, MEMBER, acmToken, keyless)).statusCode, 201);

  // A sealed value moved to another member does not open there: it is left out, and said in the log.
  const other = await post({ kind: 'profile', content: 'placeholder', sensitivity: 'sensitive' }, OTHER);
  await sql('update agents_memories set sealed = (select sealed from agents_memories where id = ?) where id = ?', [made.json().id, other.json().id]);
  const moved = await list('', OTHER);
  t.notOk(moved.memories.some((m: { content: string }) => m.content === secret), 'the moved value does not open');
  t.ok(logs.lines.some((l) => l.msg === 'agents: a sensitive memory cannot be opened and is left out'));
  t.notMatch(logs.text(), /asthma/);
});
