// The profile graph through the real routes, with the knowledge module's embedder (the fake embeddings service) and
// without one: exact nodes, the higher confidence kept, case-insensitive matching, similar nodes by embedding (503
// without an embedder, 502 when it fails, nothing written), audited deletes, a member's data deleted whole, and
// isolation between members and orgs.
import t from 'tap';
import { bearer, startFakeEmbeddings, startTestApp, type TestApp } from '@quad/core/testing';

const fake = await startFakeEmbeddings(t);
const quad = await startTestApp(t, {
  plugins: ['./plugins/knowledge', './plugins/agents'], role: 'api',
  config: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1', SECRETS_KEY: [Buffer.alloc(32, 8).toString('base64')] },
});
const acm = await quad.createOrg({ prefix: 'acm', modules: { agents: true } });
const beta = await quad.createOrg({ prefix: 'beta', modules: { agents: true } });
const scopes = ['agents:read', 'agents:write'];
const acmToken = (await quad.issueToken(acm.id, { scopes, kind: 'agent' })).token;
const betaToken = (await quad.issueToken(beta.id, { scopes, kind: 'agent' })).token;
const sql = (app: TestApp, text: string, params: unknown[] = []) => app.orm.em.fork().getConnection().execute(text, params as never[]);

const MEMBER = '555555555555555555';
const OTHER = '666666666666666666';
const base = (member = MEMBER) => `/api/agents/members/${member}`;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, token = acmToken, app = quad) =>
  app.api.inject({ method, url, headers: bearer(token), ...(payload !== undefined && { payload: payload as object }) });

const me = { kind: 'person', label: 'Ada' };
const facts = [
  { subject: me, relation: 'studies', object: { kind: 'course', label: 'Machine Learning' }, confidence: 0.7 },
  { subject: me, relation: 'member_of', object: { kind: 'club', label: 'Robotics Club' }, confidence: 0.9 },
  { subject: me, relation: 'likes', object: { kind: 'food', label: 'Spicy ramen' } },
];

t.test('facts make exact nodes; a relation keeps its highest confidence', async (t) => {
  const res = await call('POST', `${base()}/profile/facts`, { facts });
  t.equal(res.statusCode, 201, res.body);
  t.same(res.json().facts.map((f: { relation: string; confidence: number }) => [f.relation, Math.round(f.confidence * 100) / 100]).sort(),
    [['likes', 0.5], ['member_of', 0.9], ['studies', 0.7]]);
  t.equal(fake.requests.flatMap((r) => r.input).filter((x) => x.startsWith('person: Ada')).length, 1, 'each new node embedded once, as "kind: label"');

  const lower = await call('POST', `${base()}/profile/facts`, { facts: [{ ...facts[1], confidence: 0.2 }, { ...facts[0], confidence: 0.95 }] });
  t.same(lower.json().facts.map((f: { relation: string; confidence: number }) => [f.relation, Math.round(f.confidence * 100) / 100]).sort(),
    [['member_of', 0.9], ['studies', 0.95]], 'the higher of the two is kept');
  t.equal(fake.requests.length, 1, 'known nodes are not embedded again');

  const profile = (await call('GET', `${base()}/profile`)).json();
  t.same(profile.relations.map((r: { relation: string }) => r.relation), ['studies', 'member_of', 'likes'], 'highest confidence first');
  t.equal(profile.nodes.length, 4);
  t.same((await call('GET', `${base()}/profile?limit=1`)).json().relations.length, 1);

  // Exact kind and label: "ada" is another node; similar nodes are not merged.
  await call('POST', `${base()}/profile/facts`, { facts: [{ subject: { kind: 'person', label: 'ada' }, relation: 'knows', object: { kind: 'person', label: 'Grace' } }] });
  t.equal((await sql(quad, "select count(*)::int as n from agents_profile_nodes where lower(label) = 'ada'"))[0].n, 2);

  const matched = (await call('GET', `${base()}/profile/matching?subject=ADA&relation=STUDIES`)).json();
  t.same(matched.relations.map((r: { object: { label: string } }) => r.object.label), ['Machine Learning'], 'case is not minded');
  t.equal((await call('GET', `${base()}/profile/matching?subject=ada`)).json().relations.length, 4, 'both nodes labelled ada, any case');

  t.same((await call('GET', `${base(OTHER)}/profile`)).json(), { nodes: [], relations: [] }, 'another member has none');
  t.same((await call('GET', `${base()}/profile`, undefined, betaToken)).json(), { nodes: [], relations: [] }, 'the same id in another org has none');
  for (const bad of [{ facts: [] }, { facts: [{ ...facts[0], confidence: 2 }] }, { facts: [{ ...facts[0], relation: '' }] }, { facts: [{ ...facts[0], subject: { kind: 'person' } }] }]) {
    t.equal((await call('POST', `${base()}/profile/facts`, bad)).statusCode, 400, JSON.stringify(bad).slice(0, 80));
  }
});

t.test('similar nodes by embedding; the embedder failing is 502 and writes nothing', async (t) => {
  const res = await call('GET', `${base()}/profile/similar?text=${encodeURIComponent('club: robotics')}&limit=2`);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().nodes[0].label, 'Robotics Club', 'the nearest node first');
  t.ok(res.json().nodes[0].distance < res.json().nodes[1].distance);
  t.equal(res.json().nodes.length, 2);

  fake.failNext(500);
  const failed = await call('POST', `${base()}/profile/facts`, { facts: [{ subject: me, relation: 'plays', object: { kind: 'sport', label: 'Chess' } }] });
  t.equal(failed.statusCode, 502);
  t.match(failed.json(), { reason: 'embedder_failed', error: /nothing was written/ });
  t.equal((await sql(quad, "select count(*)::int as n from agents_profile_nodes where label = 'Chess'"))[0].n, 0);
});

t.test('deletes: a relation, nodes by label, a member\'s data (audited)', async (t) => {
  t.equal((await call('DELETE', `${base()}/profile/relations`, { subject: me, relation: 'likes', object: { kind: 'food', label: 'Spicy ramen' } })).statusCode, 200);
  t.equal((await call('DELETE', `${base()}/profile/relations`, { subject: me, relation: 'likes', object: { kind: 'food', label: 'Spicy ramen' } })).statusCode, 404);
  const nodes = await call('DELETE', `${base()}/profile/nodes?label=GRACE`);
  t.same(nodes.json(), { deleted: 1 });
  t.notOk((await call('GET', `${base()}/profile`)).json().relations.some((r: { relation: string }) => r.relation === 'knows'), 'its relations went with it');
  t.equal((await call('DELETE', `${base()}/profile/nodes?label=nobody`)).statusCode, 404);

  await call('POST', `${base()}/memories`, { kind: 'semantic', content: 'Likes robotics' });
  await call('POST', `${base(OTHER)}/memories`, { kind: 'semantic', content: 'Someone else' });
  const all = await call('DELETE', `${base()}/data`);
  t.equal(all.statusCode, 200);
  t.match(all.json(), { memories: 1, relations: 2 });
  t.same((await call('GET', `${base()}/profile`)).json(), { nodes: [], relations: [] });
  t.same((await call('GET', `${base()}/memories`)).json(), { memories: [] });
  t.equal((await call('GET', `${base(OTHER)}/memories`)).json().memories.length, 1, 'another member keeps theirs');
  const audited = await sql(quad, "select action from audit_log where action like 'agents.%' order by id");
  t.same(audited.map((a) => a.action), ['agents.relation_deleted', 'agents.nodes_deleted', 'agents.member_data_deleted']);
});

t.test('without the knowledge module: facts without vectors, similar is 503', async (t) => {
  const bare = await startTestApp(t, { plugins: ['./plugins/agents'], role: 'api' });
  const org = await bare.createOrg({ prefix: 'solo', modules: { agents: true } });
  const token = (await bare.issueToken(org.id, { scopes, kind: 'agent' })).token;
  t.equal((await call('POST', `${base()}/profile/facts`, { facts }, token, bare)).statusCode, 201);
  const res = await call('GET', `${base()}/profile/similar?text=robotics`, undefined, token, bare);
  t.equal(res.statusCode, 503);
  t.match(res.json(), { reason: 'no_embedder' });
});
