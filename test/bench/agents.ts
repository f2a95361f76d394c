// Agent turn benchmark (issue 17): POST /api/agents/members/<id>/turn/context and /turn/commit for a member with
// 1,000 messages (a summary covering the first 900), 500 memories (a tenth of them sensitive, so sealed) and a
// 2,000-edge profile, in an org where 200 other members have history of their own, so what is measured is one
// member's turn in a busy org. Latency p50/p95 at concurrency 1 and 8, in the same run as two baselines:
//  - a bare Fastify route (HTTP alone);
//  - "the floor": a bare Fastify route doing the same work with raw pg — the token lookup, the same Discord member
//    lookup on the same fake Discord (a turn asks Discord every time), then the same statements (context: the
//    conversation, the newest summary, the messages after it, the memories, the relations; commit: one transaction
//    writing the conversation, two messages, a memory and a fact).
// Every commit appends to the measured conversation, so the member's history grows during the run.
// Run: npm run bench:agents [-- --requests 300 --hold]  (about a minute on 2 cores); --hold waits for Enter after the
// load, to explore the loaded database.
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { startSignInWorld } from '@quad/core/testing';
import { sha256 } from '../../core/src/auth/secrets.js';
import { postLatency, serveTargets, withServer } from './harness.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '300' }, hold: { type: 'boolean', default: false } }, strict: false });
const REQUESTS = Number(values.requests);
const MESSAGES = 1000;
const SUMMARY_COVERS = 900;
const MEMORIES = 500;
const NODES = 400;
const EDGES = 2000;
const OTHER_MEMBERS = 200;
const CHANNEL = '930000000000000001';
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

interface Served { api: string; floor: string; bare: string; member: string; conversation: string; token: string; databaseUrl: string }

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const w = await startSignInWorld({ teardown }, {
    plugins: ['./plugins/agents'], orgModules: { agents: true }, role: 'api', listen: true,
    config: { SECRETS_KEY: [SECRETS_KEY], DATABASE_POOL_MAX: 10 },
  });
  const { quad, org, member } = w;
  const { token } = await quad.issueToken(org.id, { scopes: ['agents:read', 'agents:write'], kind: 'agent' });
  const pool = new pg.Pool({ connectionString: quad.databaseUrl, max: 10 });
  teardown(() => pool.end());

  const conversation = randomUUID();
  await loadHistory(pool, org.id, member.id, conversation, (text) => quad.services.secrets.seal(`agents.memory:${org.id}:${member.id}`, text));
  const discord = { url: String(w.discordConfig.DISCORD_API_URL), bot: `Bot ${String(w.discordConfig.BOT_TOKEN)}`, guild: w.guildId };

  const bare = Fastify({ bodyLimit: 1 << 20 });
  bare.post('/bare', async () => ({ ok: true }));
  bare.post('/floor/context', (request) => floorContext(pool, discord, request.headers.authorization ?? '', member.id, request.body as { conversation_id: string }));
  bare.post('/floor/commit', async (request, reply) => reply.code(201).send(await floorCommit(pool, discord, request.headers.authorization ?? '', member.id, request.body as CommitBody)));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => bare.close());
  const base = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  return { api: `${quad.url}/api/agents/members/${member.id}/turn`, floor: `${base}/floor`, bare: `${base}/bare`, member: member.id, conversation, token, databaseUrl: quad.databaseUrl };
}

/** The measured member's history, and 200 other members' (a tenth of the sizes each), in set-based inserts. */
async function loadHistory(pool: pg.Pool, orgId: number, memberId: string, conversation: string, seal: (text: string) => string) {
  const started = performance.now();
  const members = [memberId, ...Array.from({ length: OTHER_MEMBERS }, (_, i) => String(400000000000000000n + BigInt(i)))];
  for (const [n, id] of members.entries()) {
    const scale = n === 0 ? 1 : 0.1;
    const uuid = n === 0 ? conversation : randomUUID();
    const messages = Math.round(MESSAGES * scale);
    const { rows: [c] } = await pool.query(
      `insert into agents_conversations (organization_id, uuid, member_id, channel_id, visibility, last_seq)
       values ($1, $2, $3, $4, 'private', $5) returning id`, [orgId, uuid, id, CHANNEL, messages]);
    await pool.query(
      `insert into agents_messages (organization_id, conversation_id, seq, role, content)
       select $3, $1, s, case when s % 2 = 1 then 'user' else 'assistant' end, 'message ' || s || ' of a long talk about robots, courses and club events'
       from generate_series(1, $2) s`, [c.id, messages, orgId]);
    await pool.query(`insert into agents_summaries (organization_id, conversation_id, content, covers) values ($3, $1, 'what was said before', $2)`, [c.id, Math.round(SUMMARY_COVERS * scale), orgId]);
    const memories = Math.round(MEMORIES * scale);
    const sensitive = n === 0 ? Array.from({ length: memories / 10 }, (_, i) => seal(`sensitive memory ${i}`)) : [];
    await pool.query(
      `insert into agents_memories (organization_id, member_id, kind, sensitivity, content, sealed, confidence)
       select $1, $2, (array['episodic','semantic','profile','task'])[1 + s % 4],
              case when s <= $4 then 'sensitive' else 'normal' end,
              case when s <= $4 then null else 'memory ' || s end,
              case when s <= $4 then ($5::text[])[s] end, (s % 97) / 97.0
       from generate_series(1, $3) s`, [orgId, id, memories, sensitive.length, sensitive]);
    const nodes = Math.round(NODES * scale);
    await pool.query(
      `insert into agents_profile_nodes (organization_id, member_id, kind, label)
       select $1, $2, (array['person','club','course','topic'])[1 + s % 4], 'node ' || s from generate_series(1, $3) s`, [orgId, id, nodes]);
    // Edges between distinct node pairs (subject i, object i + k), so the unique key holds.
    await pool.query(
      `insert into agents_profile_edges (organization_id, member_id, subject_id, relation, object_id, confidence)
       select $1, $2, s.id, 'related_' || (e % 5), o.id, (e % 89) / 89.0
       from generate_series(0, $3 - 1) e
       join lateral (select id from agents_profile_nodes where organization_id = $1 and member_id = $2 order by id offset e % $4 limit 1) s on true
       join lateral (select id from agents_profile_nodes where organization_id = $1 and member_id = $2 order by id offset (e % $4 + 1 + e / $4) % $4 limit 1) o on true
       on conflict do nothing`, [orgId, id, Math.round(EDGES * scale), nodes]);
  }
  await pool.query('vacuum analyze');
  const { rows: [count] } = await pool.query(
    `select (select count(*) from agents_messages m join agents_conversations c on c.id = m.conversation_id where c.member_id = $1)::int as messages,
            (select count(*) from agents_memories where member_id = $1)::int as memories,
            (select count(*) from agents_profile_edges where member_id = $1)::int as edges,
            (select count(*) from agents_messages)::int as all_messages`, [memberId]);
  process.stderr.write(`  loaded in ${((performance.now() - started) / 1000).toFixed(0)} s: the member ${count.messages} messages, ${count.memories} memories, ${count.edges} edges; the org ${count.all_messages} messages\n`);
}

// ---- the floor: the same work with raw pg ----

interface DiscordTarget { url: string; bot: string; guild: string }
interface CommitBody { conversation_id: string; channel_id: string; messages: { role: string; content: string }[]; memories: { kind: string; content: string; confidence: number }[]; facts: { subject: { kind: string; label: string }; relation: string; object: { kind: string; label: string }; confidence: number }[] }

async function authorize(pool: pg.Pool, discord: DiscordTarget, authorization: string, memberId: string): Promise<number> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? '';
  const { rows: [t] } = await pool.query({ name: 'tok', text: 'select id, organization_id, scopes, revoked_at, expires_at from machine_tokens where token_hash = $1', values: [sha256(token)] });
  const res = await fetch(`${discord.url}/guilds/${discord.guild}/members/${memberId}`, { headers: { authorization: discord.bot } });
  if (!res.ok) throw new Error(`fake Discord answered ${res.status}`);
  await res.json();
  return t.organization_id as number;
}

async function floorContext(pool: pg.Pool, discord: DiscordTarget, authorization: string, memberId: string, body: { conversation_id: string }) {
  const org = await authorize(pool, discord, authorization, memberId);
  const { rows: [c] } = await pool.query({ name: 'conv', text: 'select id, visibility from agents_conversations where organization_id = $1 and uuid = $2 and member_id = $3', values: [org, body.conversation_id, memberId] });
  const { rows: [summary] } = await pool.query({ name: 'sum', text: 'select content, covers, created_at from agents_summaries where conversation_id = $1 order by id desc limit 1', values: [c.id] });
  const { rows: messages } = await pool.query({
    name: 'msgs', values: [c.id, summary?.covers ?? 0, 50],
    text: 'select * from (select seq, role, content, created_at from agents_messages where conversation_id = $1 and seq > $2 order by seq desc limit $3) m order by seq',
  });
  const { rows: memories } = await pool.query({
    name: 'mems', values: [org, memberId, 20],
    text: `select id, kind, content, sealed, sensitivity, confidence, source_seq, expires_at, created_at from agents_memories
      where organization_id = $1 and member_id = $2 and (expires_at is null or expires_at > now()) order by confidence desc, id desc limit $3`,
  });
  const { rows: relations } = await pool.query({
    name: 'rels', values: [org, memberId, 100],
    text: `select s.kind as sk, s.label as sl, e.relation, o.kind as ok, o.label as ol, e.confidence
      from agents_profile_edges e join agents_profile_nodes s on s.id = e.subject_id join agents_profile_nodes o on o.id = e.object_id
      where e.organization_id = $1 and e.member_id = $2 order by e.confidence desc, e.id desc limit $3`,
  });
  return { conversation: { id: body.conversation_id, owned: true }, summary, messages, memories, relations };
}

async function floorCommit(pool: pg.Pool, discord: DiscordTarget, authorization: string, memberId: string, body: CommitBody) {
  const org = await authorize(pool, discord, authorization, memberId);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query({
      name: 'put', values: [org, body.conversation_id, memberId, body.channel_id],
      text: `insert into agents_conversations (organization_id, uuid, member_id, channel_id, visibility) values ($1, $2, $3, $4, 'private') on conflict (organization_id, uuid) do nothing`,
    });
    const { rows: [c] } = await client.query({
      name: 'seq', values: [body.messages.length, org, body.conversation_id, memberId],
      text: `update agents_conversations set last_seq = last_seq + $1, updated_at = now() where organization_id = $2 and uuid = $3 and member_id = $4 returning id, last_seq`,
    });
    const first = c.last_seq - body.messages.length + 1;
    await client.query({
      name: 'msg', values: [c.id, JSON.stringify(body.messages.map((m, i) => ({ seq: first + i, ...m }))), org],
      // The org the service's row takes from its transaction's binding, named here (the floor binds nothing).
      text: `insert into agents_messages (organization_id, conversation_id, seq, role, content) select $3, $1, r.seq, r.role, r.content from json_to_recordset($2::json) as r(seq integer, role text, content text)`,
    });
    const { rows: memories } = await client.query({
      name: 'mem', values: [org, memberId, JSON.stringify(body.memories)],
      text: `insert into agents_memories (organization_id, member_id, kind, sensitivity, content, confidence)
        select $1, $2, r.kind, 'normal', r.content, r.confidence from json_to_recordset($3::json) as r(kind text, content text, confidence real) returning id`,
    });
    const fact = body.facts[0];
    await client.query({
      name: 'nodes', values: [org, memberId, JSON.stringify([fact.subject, fact.object])],
      text: `insert into agents_profile_nodes (organization_id, member_id, kind, label) select $1, $2, r.kind, r.label from json_to_recordset($3::json) as r(kind text, label text) on conflict do nothing`,
    });
    const { rows: edges } = await client.query({
      name: 'edge', values: [org, memberId, fact.subject.kind, fact.subject.label, fact.relation, fact.object.kind, fact.object.label, fact.confidence],
      text: `insert into agents_profile_edges (organization_id, member_id, subject_id, relation, object_id, confidence)
        select $1, $2, s.id, $5, o.id, $8 from agents_profile_nodes s, agents_profile_nodes o
        where s.organization_id = $1 and s.member_id = $2 and s.kind = $3 and s.label = $4 and o.organization_id = $1 and o.member_id = $2 and o.kind = $6 and o.label = $7
        on conflict (subject_id, relation, object_id) do update set confidence = greatest(agents_profile_edges.confidence, excluded.confidence), updated_at = now()
        returning confidence`,
    });
    await client.query('commit');
    return { seqs: body.messages.map((_, i) => first + i), memory_ids: memories.map((m) => Number(m.id)), facts: edges };
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
}

// ---- the parent: measures ----

/** The n-th commit of a run: a question and its answer, a memory and a fact between nodes the member has. */
function commitBody(served: Served, n: number): CommitBody & { visibility: 'private' } {
  return {
    conversation_id: served.conversation, channel_id: CHANNEL, visibility: 'private',
    messages: [{ role: 'user', content: `question ${n} about the robotics club` }, { role: 'assistant', content: `answer ${n}: it meets on Thursdays` }],
    memories: [{ kind: 'episodic', content: `asked question ${n}`, confidence: 0.6 }],
    facts: [{ subject: { kind: 'club', label: `node ${1 + (n % 50) * 4}` }, relation: 'asked_about', object: { kind: 'topic', label: `node ${3 + (n % 7) * 4}` }, confidence: 0.7 }],
  };
}

/** `REQUESTS` POSTs at `concurrency` with the member's agent token (after a tenth as many unmeasured). */
function latency(url: string, served: Served, body: (n: number) => object, concurrency: number, status: number) {
  return postLatency(url, (n) => ({ body: body(n), token: served.token }), { concurrency, requests: REQUESTS, status });
}

const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`;

async function measure(served: Served) {
  if (values.hold) {
    console.log(`--hold: the loaded database is ${served.databaseUrl} (the member ${served.member}); press Enter to measure`);
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.pause();
  }
  console.log(`turn latency over HTTP, ${REQUESTS} requests per row; the member: ${MESSAGES} messages, ${MEMORIES} memories, ${EDGES} profile edges; ${OTHER_MEMBERS} other members`);
  console.log('route     conc  path         p50         p95      p50/floor');
  const context = { conversation_id: served.conversation, visibility: 'private' };
  for (const concurrency of [1, 8]) {
    const bare = await latency(served.bare, served, () => context, concurrency, 200);
    console.log(`-         ${String(concurrency).padEnd(5)} bare route ${ms(bare.p50)} ${ms(bare.p95)}`);
    for (const [route, body, status] of [['context', () => context, 200], ['commit', (n: number) => commitBody(served, n), 201]] as const) {
      const floor = await latency(`${served.floor}/${route}`, served, body, concurrency, status);
      const ours = await latency(`${served.api}/${route}`, served, body, concurrency, status);
      const row = `${route.padEnd(10)}${String(concurrency).padEnd(6)}`;
      console.log(`${row}floor      ${ms(floor.p50)} ${ms(floor.p95)}`);
      console.log(`${row}Quad       ${ms(ours.p50)} ${ms(ours.p95)}   ${(ours.p50 / floor.p50).toFixed(2)}`);
    }
  }
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  await withServer<Served, void>(new URL(import.meta.url).pathname, measure, process.argv.slice(2));
}
