// The knowledge benchmark's data set, written straight into the tables (the write path is not what it measures):
// passages of made-up words and 1024-d vectors with the structure of real embeddings — topics, subtopics within
// them, and noise — so that nearest neighbours mean something and HNSW recall is not trivially 1.
//   vector  = normalize(topic + 0.6·subtopic + 0.5·noise)  (cosine ≈ 0.85 within a subtopic, ≈ 0.6 within a topic)
//   content = 3 words of its subtopic, 8 of its topic and 24 common words (Zipf)
// The text is made here with a seeded generator (deterministic); the vectors are computed by the database from
// topic and subtopic tables (a 250,000 × 1024 array need not cross the wire); their noise is PostgreSQL's random().
import type pg from 'pg';

export const TOPICS = 500;
export const SUBTOPICS_PER_TOPIC = 20;
export const MODEL = 'bench-1';
const CHUNKS_PER_SOURCE = 100;
const COMMON_WORDS = 1000;
const TOPIC_WORDS = 20;
const SUBTOPIC_WORDS = 3;
const BATCH = 5000;
/** Per-dimension noise amplitude a: a uniform(-a, a) vector of 1024 dimensions has norm a·√(1024/3) ≈ 0.5. */
const NOISE = 0.027;

/** mulberry32: a small seeded generator, so every run writes the same text. */
export function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'vel', 'dor', 'pa', 'qui', 'zen', 'bra', 'fi', 'gol', 'hu', 'jas', 'ne', 'os', 'pri', 'sa', 'tov', 'ul', 'vy', 'wex', 'yo', 'zu', 'cor', 'dex', 'fen', 'gri', 'hal', 'im', 'jo', 'kel', 'lum', 'mor', 'nix', 'ol', 'pex', 'rud', 'sim'];

/** Word number n: three syllables, distinct for every n below 40³. */
export function word(n: number): string {
  const b = SYLLABLES.length;
  return SYLLABLES[Math.floor(n / (b * b)) % b] + SYLLABLES[Math.floor(n / b) % b] + SYLLABLES[n % b];
}
const commonWord = (rank: number) => word(rank);
const topicWord = (topic: number, i: number) => word(COMMON_WORDS + topic * TOPIC_WORDS + i);
const subtopicWord = (subtopic: number, i: number) => word(COMMON_WORDS + TOPICS * TOPIC_WORDS + subtopic * SUBTOPIC_WORDS + i);

/** A common word's rank drawn from a Zipf-like distribution (rank r has weight 1/(r+1)). */
function zipf(random: () => number): number {
  return Math.min(COMMON_WORDS - 1, Math.floor(Math.exp(random() * Math.log(COMMON_WORDS + 1)) - 1));
}

function passageText(random: () => number, topic: number, subtopic: number): string {
  const words: string[] = [];
  for (let i = 0; i < 3; i++) words.push(subtopicWord(subtopic, Math.floor(random() * SUBTOPIC_WORDS)));
  for (let i = 0; i < 8; i++) words.push(topicWord(topic, Math.floor(random() * TOPIC_WORDS)));
  for (let i = 0; i < 24; i++) words.push(commonWord(zipf(random)));
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [words[i], words[j]] = [words[j], words[i]];
  }
  return words.join(' ');
}

/**
 * A query as users type them: two words of a topic and a common one (60 %), a subtopic's word and a topic's (30 %),
 * or one frequent word alone (10 %, the broad query whose matches are many).
 */
export function queryText(random: () => number, topic: number, subtopic: number): string {
  const r = random();
  if (r < 0.6) return `${topicWord(topic, Math.floor(random() * TOPIC_WORDS))} ${topicWord(topic, Math.floor(random() * TOPIC_WORDS))} ${commonWord(Math.floor(random() * 100))}`;
  if (r < 0.9) return `${subtopicWord(subtopic, Math.floor(random() * SUBTOPIC_WORDS))} ${topicWord(topic, Math.floor(random() * TOPIC_WORDS))}`;
  return commonWord(Math.floor(random() * 20));
}

const randomUnitVector = `l2_normalize((select array_agg(random() - 0.5) from generate_series(1, 1024) where g > 0)::vector)`;

/** The topic and (scaled) subtopic vectors the passages and queries are made from. */
export async function createVectorBasis(db: pg.Pool | pg.PoolClient, seed: number) {
  await db.query('select setseed($1)', [(seed % 1000) / 1000]);
  await db.query(`create unlogged table bench_topics as select g - 1 as id, ${randomUnitVector} as v from generate_series(1, ${TOPICS}) g`);
  await db.query(`create unlogged table bench_subtopics as
    select id, (select array_agg(x * 0.6) from unnest(v::real[]) x)::vector as v
    from (select g - 1 as id, ${randomUnitVector} as v from generate_series(1, ${TOPICS * SUBTOPICS_PER_TOPIC}) g) s`);
  await db.query('create unique index on bench_topics (id); create unique index on bench_subtopics (id)');
}

/** The vector of a passage or query of (topic, subtopic) in SQL: its own noise each time it is evaluated. */
const vectorOf = (topic: string, subtopic: string, row: string) => `l2_normalize(
  (select v from bench_topics where id = ${topic}) + (select v from bench_subtopics where id = ${subtopic})
  + (select array_agg((random() * 2 - 1) * ${NOISE}) from generate_series(1, 1024) where ${row} is not null)::vector)`;

export interface OrgShare { orgId: number; passages: number }

/**
 * Write each org's passages as sources of 100 chunks (one version each), in batches; `publicSources` of the first
 * small org's sources are public (read by every org's search).
 */
export async function loadPassages(pool: pg.Pool, orgs: OrgShare[], options: { seed: number; publicSources: number; progress(done: number): void }) {
  const random = seeded(options.seed);
  let done = 0;
  for (const [index, { orgId, passages }] of orgs.entries()) {
    const sources = Math.ceil(passages / CHUNKS_PER_SOURCE);
    const publicCount = index === 1 ? options.publicSources : 0;
    const { rows: sourceRows } = await pool.query<{ id: number }>(
      `insert into knowledge_sources (organization_id, key, category, title, public)
       select $1, 'bench/' || g, 'bench', 'Bench source ' || g, g <= $3 from generate_series(1, $2) g order by g returning id`,
      [orgId, sources, publicCount]);
    const { rows: versionRows } = await pool.query<{ id: string; source_id: number }>(
      `insert into knowledge_versions (organization_id, source_id, public, content_hash, embedding_model, chunk_count)
       select $1, s.id, s.public, 'bench', $3, 0 from knowledge_sources s where s.id = any($2::int[]) order by s.id returning id, source_id`,
      [orgId, sourceRows.map((r) => r.id), MODEL]);
    await pool.query(`update knowledge_sources s set current_version_id = v.id from knowledge_versions v where v.source_id = s.id and s.organization_id = $1`, [orgId]);
    const versionOf = new Map(versionRows.map((r) => [r.source_id, r.id]));
    for (let start = 0; start < passages; start += BATCH) {
      const n = Math.min(BATCH, passages - start);
      const source: number[] = [], version: string[] = [], ordinal: number[] = [], topic: number[] = [], subtopic: number[] = [], content: string[] = [];
      // A passage carries its source's flag (the foreign key on (source_id, public) holds them equal).
      const shown: boolean[] = [];
      for (let i = start; i < start + n; i++) {
        const t = Math.floor(random() * TOPICS);
        const s = t * SUBTOPICS_PER_TOPIC + Math.floor(random() * SUBTOPICS_PER_TOPIC);
        const sourceIndex = Math.floor(i / CHUNKS_PER_SOURCE);
        const sourceId = sourceRows[sourceIndex].id;
        shown.push(sourceIndex < publicCount);
        source.push(sourceId); version.push(versionOf.get(sourceId)!); ordinal.push(i % CHUNKS_PER_SOURCE);
        topic.push(t); subtopic.push(s); content.push(passageText(random, t, s));
      }
      await pool.query(
        `insert into knowledge_chunks (organization_id, source_id, public, version_id, ordinal, content, embedding_model, embedding)
         select $1, p.source, p.shown, p.version, p.ordinal, p.content, $2, ${vectorOf('p.topic', 'p.subtopic', 'p.ordinal')}
         from unnest($3::int[], $4::bigint[], $5::int[], $6::int[], $7::int[], $8::text[], $9::boolean[]) as p(source, version, ordinal, topic, subtopic, content, shown)`,
        [orgId, MODEL, source, version, ordinal, topic, subtopic, content, shown]);
      done += n;
      options.progress(done);
    }
    await pool.query(`update knowledge_versions v set chunk_count = (select count(*) from knowledge_chunks c where c.version_id = v.id) where v.organization_id = $1`, [orgId]);
  }
}

export interface BenchQuery { orgId: number; text: string; embedding: number[] }

/** `perOrg` queries for each org: a topic and subtopic drawn at random, its text, and a fresh vector near them. */
export async function makeQueries(pool: pg.Pool, orgIds: number[], perOrg: number, seed: number): Promise<BenchQuery[]> {
  const random = seeded(seed + 1);
  const out: BenchQuery[] = [];
  for (const orgId of orgIds) {
    const topics: number[] = [], subtopics: number[] = [], texts: string[] = [];
    for (let i = 0; i < perOrg; i++) {
      const t = Math.floor(random() * TOPICS);
      const s = t * SUBTOPICS_PER_TOPIC + Math.floor(random() * SUBTOPICS_PER_TOPIC);
      topics.push(t); subtopics.push(s); texts.push(queryText(random, t, s));
    }
    const { rows } = await pool.query<{ v: string }>(
      `select ${vectorOf('q.topic', 'q.subtopic', 'q.i')}::text as v
       from unnest($1::int[], $2::int[]) with ordinality as q(topic, subtopic, i) order by q.i`, [topics, subtopics]);
    rows.forEach((r, i) => out.push({ orgId, text: texts[i], embedding: JSON.parse(r.v) }));
  }
  return out;
}
