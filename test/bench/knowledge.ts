// Knowledge search benchmark (issue 15): 250,000 passages with 1024-d vectors across 5 orgs (one holding 80 %), then
// in the same run, for hybrid and vector search through POST /api/knowledge/search:
//  - latency p50/p95/p99 at concurrency 1 and 8, for the large org and the small ones, against two baselines of the
//    same run: a bare Fastify route (HTTP alone) and "the floor", a bare Fastify route sending the search's SQL with
//    raw pg (token lookup, settings read, the scope's size, the vector search — exact, or the HNSW index in its
//    transaction — the text search, the details read), unnamed like the ORM's so each gets a custom plan;
//  - recall@10 of the vector search as served (the small orgs' scopes exact, by binary-quantized scan and re-rank;
//    the large org's by HNSW with iterative scans) against exact search (a scan ordered by true distance), per org;
//  - the size and build time of the HNSW and GIN indexes (built after the load, as a restore would).
// Queries carry their own vector (`embedding` + `embedding_model`, which the spec allows), so no embedding service
// sits in the timings: what is measured is Quad and PostgreSQL. The data set: test/bench/knowledge-data.ts.
// Run: npm run bench:knowledge [-- --passages 250000 --requests 300 --seed 7 --hold]  (~6 minutes on 2 cores, ~6 GB of
// disk while it runs). --hold waits for Enter after the load, to explore the loaded database.
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import { startTestApp } from '@quad/core/testing';
import { sha256 } from '../../core/src/auth/secrets.js';
import { postLatency, serveTargets, withServer, type Latency } from './harness.js';
import { TEXT_RANK_CAP } from '../../plugins/knowledge/search.js';
import { createVectorBasis, loadPassages, makeQueries, MODEL, type BenchQuery } from './knowledge-data.js';

const { values } = parseArgs({
  options: { hold: { type: 'boolean', default: false }, passages: { type: 'string', default: '250000' }, requests: { type: 'string', default: '300' }, seed: { type: 'string', default: '7' } },
  strict: false,
});
const PASSAGES = Number(values.passages);
const REQUESTS = Number(values.requests);
const SEED = Number(values.seed);
const ORGS = 5;
const LARGE_SHARE = 0.8;
const QUERIES_PER_ORG = 60;
const TOP_K = 10;
/** candidatesFor(top_k) of plugins/knowledge/search.ts: what each list brings to the fusion. */
const CANDIDATES = Math.min(200, TOP_K * 4 + 20);
/** KNOWLEDGE_EXACT_SCAN_MAX's default. */
const EXACT_SCAN_MAX = 50_000;

interface BenchOrg { id: number; prefix: string; token: string; passages: number }
interface Served {
  api: string; floor: string; bare: string; databaseUrl: string;
  orgs: BenchOrg[]; queries: BenchQuery[];
  load: { seconds: number; gin: { seconds: number; bytes: number }; hnsw: { seconds: number; bytes: number; definition: string }; tableBytes: number; maintenanceWorkMem: string };
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

async function serve(teardown: (fn: () => unknown) => void): Promise<Served> {
  const quad = await startTestApp({ teardown }, {
    plugins: ['./plugins/knowledge'], role: 'api', listen: true,
    config: { EMBEDDINGS_MODEL: MODEL, DATABASE_POOL_MAX: 10 },
  });
  const pool = new pg.Pool({ connectionString: quad.databaseUrl, max: 10 });
  teardown(() => pool.end());
  const orgs: BenchOrg[] = [];
  const large = Math.round(PASSAGES * LARGE_SHARE);
  for (let i = 0; i < ORGS; i++) {
    const org = await quad.createOrg({ prefix: `k${i}`, modules: { knowledge: true } });
    const { token } = await quad.issueToken(org.id, { scopes: ['knowledge:read'] });
    orgs.push({ id: org.id, prefix: org.prefix, token, passages: i === 0 ? large : Math.round((PASSAGES - large) / (ORGS - 1)) });
  }

  // Load without the indexes, then build them (as a restore or a re-index would), each timed.
  const index = async (name: string) => (await pool.query<{ indexdef: string }>('select indexdef from pg_indexes where indexname = $1', [name])).rows[0]!.indexdef;
  const hnswDefinition = await index('knowledge_chunks_embedding');
  const ginDefinition = await index('knowledge_chunks_tsv');
  await pool.query('drop index knowledge_chunks_embedding; drop index knowledge_chunks_tsv');
  const loadStart = process.hrtime.bigint();
  await createVectorBasis(pool, SEED);
  await loadPassages(pool, orgs.map((o) => ({ orgId: o.id, passages: o.passages })), {
    seed: SEED, publicSources: 10,
    progress: (done) => { if (done % 25_000 === 0 || done === PASSAGES) process.stderr.write(`  loaded ${done} passages (${seconds(loadStart).toFixed(0)} s)\n`); },
  });
  const loadSeconds = seconds(loadStart);
  const maintenanceWorkMem = '2GB';
  const build = async (definition: string) => {
    const client = await pool.connect();
    try {
      // The graph must fit in maintenance_work_mem, or the build slows down many times over (see the README).
      await client.query(`set maintenance_work_mem = '${maintenanceWorkMem}'`);
      const start = process.hrtime.bigint();
      await client.query(definition);
      return seconds(start);
    } finally { client.release(); }
  };
  process.stderr.write('  building the GIN index\n');
  const ginSeconds = await build(ginDefinition);
  process.stderr.write('  building the HNSW index\n');
  const hnswSeconds = await build(hnswDefinition);
  await pool.query('vacuum analyze');
  const size = async (relation: string, total = false) => Number((await pool.query(`select pg_${total ? 'total_' : ''}relation_size($1) as b`, [relation])).rows[0].b);
  const queries = await makeQueries(pool, orgs.map((o) => o.id), QUERIES_PER_ORG, SEED);

  const bare = Fastify({ bodyLimit: 1 << 20 });
  bare.post('/bare', async () => ({ results: [], dense: true, mode: 'hybrid' }));
  bare.post('/floor', (request) => floorSearch(pool, request.headers.authorization ?? '', request.body as FloorBody));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  teardown(() => bare.close());
  const base = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  return {
    api: `${quad.url}/api/knowledge/search`, floor: `${base}/floor`, bare: `${base}/bare`, databaseUrl: quad.databaseUrl, orgs, queries,
    load: {
      seconds: loadSeconds, maintenanceWorkMem, tableBytes: await size('knowledge_chunks', true),
      gin: { seconds: ginSeconds, bytes: await size('knowledge_chunks_tsv') },
      hnsw: { seconds: hnswSeconds, bytes: await size('knowledge_chunks_embedding'), definition: hnswDefinition },
    },
  };
}

interface FloorBody { query: string; embedding: number[]; embedding_model: string; top_k: number }

/**
 * The statements plugins/knowledge/search.ts sends for a search of the bench's shape, with raw pg; its text matches
 * as knowledge_text_matches (the knowledge plugin's migration 0007) runs them, by the GIN index.
 */
async function floorSearch(pool: pg.Pool, authorization: string, body: FloorBody) {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? '';
  const { rows: [t] } = await pool.query({ name: 'tok', text: 'select id, organization_id, scopes, revoked_at, expires_at from machine_tokens where token_hash = $1', values: [sha256(token)] });
  const org = t.organization_id as number;
  const { rows: [config] } = await pool.query({ name: 'cfg', text: `select config -> 'knowledge' as value from organizations where id = $1`, values: [org] });
  const mode = config.value?.mode ?? 'hybrid';
  const v = JSON.stringify(body.embedding);
  const scope = `(c.organization_id = $3 or (c.public and c.organization_id <> $3))`;
  const { rows: [size] } = await pool.query({
    text: `select coalesce(sum(c.chunk_count), 0) as n from knowledge_versions c where c.embedding_model = $1 and ${scope.replaceAll('$3', '$2')}`,
    values: [body.embedding_model, org],
  });
  let vector: { id: string }[] = [];
  if (Number(size.n) > EXACT_SCAN_MAX) {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('set local hnsw.iterative_scan = relaxed_order');
      await client.query(`set local hnsw.ef_search = ${Math.min(1000, Math.max(200, 4 * CANDIDATES))}`);
      await client.query('set local enable_sort = off');
      vector = (await client.query({
        text: `select c.id, c.embedding <=> $1::vector as distance from knowledge_chunks c
          where c.embedding is not null and c.embedding_model = $2 and ${scope} order by c.embedding <=> $1::vector limit $4`,
        values: [v, body.embedding_model, org, CANDIDATES],
      })).rows;
      await client.query('commit');
    } finally { client.release(); }
  }
  if (vector.length < CANDIDATES) {
    const candidates = (part: string) => `(select c.id, c.embedding_bits <~> binary_quantize($1::vector) as hamming from knowledge_chunks c
      where c.embedding is not null and c.embedding_model = $2 and ${part} order by hamming limit $5)`;
    vector = (await pool.query({
        text: `select c.id, c.embedding <=> $1::vector as distance
        from (select id from (
          ${candidates('c.organization_id = $3')} union all
          ${candidates('(c.public and c.organization_id <> $3)')}
        ) u order by hamming limit $5) x join knowledge_chunks c on c.id = x.id order by distance limit $4`,
      values: [v, body.embedding_model, org, CANDIDATES, Math.min(1000, Math.max(100, 2 * CANDIDATES))],
    })).rows;
  }
  const matches = (part: string) => `(select c.id, c.tsv from knowledge_chunks c where c.tsv @@ websearch_to_tsquery('english', $1) and ${part} limit $3)`;
  const text = mode === 'vector' ? [] : (await pool.query({
    text: `select m.id from (
        ${matches('c.organization_id = $2')} union all
        ${matches('(c.public and c.organization_id <> $2)')}
      ) m order by ts_rank_cd(m.tsv, websearch_to_tsquery('english', $1)) desc, m.id limit $4`,
    values: [body.query, org, TEXT_RANK_CAP, CANDIDATES],
  })).rows;
  const ids = [...new Set([...vector, ...text].map((r) => r.id))];
  const { rows } = await pool.query({
    text: `select c.id, c.version_id, c.ordinal, c.level, c.parent_ordinal, c.content, s.key, s.title, s.url, s.category, s.public, v.created_at as fetched_at
      from knowledge_chunks c join knowledge_sources s on s.id = c.source_id join knowledge_versions v on v.id = c.version_id
      where c.id in (select unnest(string_to_array($1, ',')::bigint[]))`,
    values: [ids.join(',')],
  });
  return { results: rows.slice(0, body.top_k), dense: true, mode };
}

// ---- the parent: measures ----

/** `requests` searches at `concurrency`, each the next query of `queries`, after a tenth as many unmeasured. */
function latency(url: string, queries: BenchQuery[], tokenOf: (orgId: number) => string, concurrency: number, requests: number): Promise<Latency> {
  return postLatency(url, (n) => {
    const q = queries[n % queries.length];
    return { token: tokenOf(q.orgId), body: { query: q.text, embedding: q.embedding, embedding_model: MODEL, top_k: TOP_K } };
  }, { concurrency, requests });
}

async function setMode(db: pg.Client, mode: 'hybrid' | 'vector') {
  // top_k and max_distance so that every search returns ten passages (recall compares whole lists).
  await db.query(`update organizations set config = jsonb_set(config, '{knowledge}', $1::jsonb) where prefix like 'k%'`,
    [JSON.stringify({ mode, top_k: TOP_K, max_distance: 2 })]);
}

/** recall@10 of the served vector search against exact search, per org. */
async function recall(served: Served, db: pg.Client, tokenOf: (orgId: number) => string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const org of served.orgs) {
    let found = 0, total = 0;
    for (const q of served.queries.filter((x) => x.orgId === org.id).slice(0, 30)) {
      const res = await fetch(served.api, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenOf(org.id)}` },
        body: JSON.stringify({ query: q.text, embedding: q.embedding, embedding_model: MODEL, top_k: TOP_K }),
      });
      const got = new Set(((await res.json()) as { results: { chunk_id: number }[] }).results.map((r) => r.chunk_id));
      // `+ 0`: ordered by the true distance, so no index can serve it: a scan of every passage in scope.
      const { rows } = await db.query<{ id: string }>(
        `select c.id from knowledge_chunks c where c.embedding is not null and c.embedding_model = $2
           and (c.organization_id = $3 or (c.public and c.organization_id <> $3))
         order by (c.embedding <=> $1::vector) + 0 limit $4`, [JSON.stringify(q.embedding), MODEL, org.id, TOP_K]);
      found += rows.filter((r) => got.has(Number(r.id))).length;
      total += rows.length;
    }
    out.set(org.id, found / total);
  }
  return out;
}

const ms = (x: number) => `${x.toFixed(1).padStart(6)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

async function measure(served: Served) {
  const { load } = served;
  const db = new pg.Client({ connectionString: served.databaseUrl });
  await db.connect();
  try {
    const tokenOf = (orgId: number) => served.orgs.find((o) => o.id === orgId)!.token;
    console.log(`${PASSAGES} passages, 1024-d, ${ORGS} orgs (${served.orgs.map((o) => o.passages).join(' / ')})`);
    console.log(`load ${load.seconds.toFixed(0)} s; table with its indexes and TOAST ${mb(load.tableBytes)}`);
    console.log(`HNSW index: ${mb(load.hnsw.bytes)}, built in ${load.hnsw.seconds.toFixed(1)} s (maintenance_work_mem ${load.maintenanceWorkMem}; ${load.hnsw.definition.replace(/^.* USING /, 'USING ')})`);
    console.log(`GIN index:  ${mb(load.gin.bytes)}, built in ${load.gin.seconds.toFixed(1)} s`);

    if (values.hold) {
      console.log(`\n--hold: the loaded database is ${served.databaseUrl}; press Enter to go on and measure`);
      await new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdin.pause();
    }
    await setMode(db, 'vector');
    const recalls = await recall(served, db, tokenOf);
    console.log('\nrecall@10 of the served vector search against exact search (30 queries per org):');
    for (const org of served.orgs) console.log(`  ${org.prefix} (${org.passages} passages, ${org.passages > EXACT_SCAN_MAX ? 'HNSW index' : 'exact scan'})  ${recalls.get(org.id)!.toFixed(3)}`);

    const largeQueries = served.queries.filter((q) => q.orgId === served.orgs[0].id);
    const smallQueries = served.queries.filter((q) => q.orgId !== served.orgs[0].id);
    console.log(`\nlatency over HTTP, ${REQUESTS} searches per row (top_k ${TOP_K}; the floor: the same SQL with raw pg)`);
    console.log('mode    conc  orgs    path           p50       p95       p99     p50/floor');
    for (const concurrency of [1, 8]) {
      const bare = await latency(served.bare, largeQueries, tokenOf, concurrency, REQUESTS);
      console.log(`-       ${String(concurrency).padEnd(5)} -       bare route  ${ms(bare.p50)} ${ms(bare.p95)} ${ms(bare.p99)}`);
    }
    for (const mode of ['hybrid', 'vector'] as const) {
      await setMode(db, mode);
      for (const concurrency of [1, 8]) {
        for (const [label, queries] of [['large', largeQueries], ['small', smallQueries]] as const) {
          const floor = await latency(served.floor, queries, tokenOf, concurrency, REQUESTS);
          const ours = await latency(served.api, queries, tokenOf, concurrency, REQUESTS);
          const row = `${mode.padEnd(8)}${String(concurrency).padEnd(6)}${label.padEnd(8)}`;
          console.log(`${row}floor       ${ms(floor.p50)} ${ms(floor.p95)} ${ms(floor.p99)}`);
          console.log(`${row}Quad        ${ms(ours.p50)} ${ms(ours.p95)} ${ms(ours.p99)}   ${(ours.p50 / floor.p50).toFixed(2)}`);
        }
      }
    }
  } finally {
    await db.end();
  }
}

if (process.argv.includes('--serve')) {
  await serveTargets(serve);
} else {
  await withServer<Served, void>(new URL(import.meta.url).pathname, measure, process.argv.slice(2));
}
