// Search (POST /api/knowledge/search and the tool knowledge.search; spec "Crawl and search behavior"): vector
// search on pgvector (cosine, the model's passages only, max_distance), full-text search on the stored tsvector,
// merged by reciprocal rank fusion with the org's rrf_k; summaries that outrank their rows drop them; a window adds
// neighbour rows to page-text results. An embedder that fails, or the daily embeddings limit, leaves text search
// alone: a search never fails for it (`dense` says whether the vector search ran). The scope (searchScope): the org's
// passages, other orgs' public sources and the shared pages of the submodules the org subscribes to, every one of
// which row-level security shows the org (the tables declare their `public` rows). So a search runs on the org's
// handle, in one transaction of reads after the query is embedded, each statement naming the parts it means. The
// text matches come from knowledge_text_matches (migrations/0007), which can take the GIN index where a statement
// under the policies cannot.
import { HttpError, badRequest, sql, type CoreServices, type EntityManager, type OrgDb, type OrgSnapshot, type SqlFragment } from '@quad/core';
import { EMBEDDING_DIMENSIONS, vectorLiteral, type Embedder } from './embeddings.js';
import { sharedIn } from './owner.js';
import type { KnowledgeSettings, Mode, OrgKnowledge } from './settings.js';
import { subscribedBy } from './subscriptions.js';

export interface SearchInput {
  query: string;
  category?: string;
  top_k?: number;
  window?: number;
  embedding?: number[];
  embedding_model?: string;
}

export interface SearchResult {
  chunk_id: number;
  source_key: string;
  title: string;
  url: string;
  category: string;
  public: boolean;
  /** The passage; with a window, the page-text rows around it too, in order. */
  content: string;
  /** Its reciprocal-rank-fusion score (higher is better). */
  score: number;
  /** When the passage's version was written (or fetched). */
  fetched_at: string;
}

export interface SearchAnswer { results: SearchResult[]; dense: boolean; mode: Mode }

/** The two ranked lists the fusion merged (the officer's test search shows them); rank from 1. */
/** A passage of one ranked list, named by its source and ordinal. */
export interface ExplainedHit { chunk_id: number; rank: number; source_key: string; ordinal: number }

export interface SearchExplain {
  vector: (ExplainedHit & { distance: number })[];
  text: ExplainedHit[];
}

export interface SearchContext {
  em: EntityManager;
  /** The org-bound handle of `em`. */
  db: OrgDb;
  org: OrgSnapshot;
  services: CoreServices;
  settings: OrgKnowledge;
  deployment: Pick<KnowledgeSettings, 'KNOWLEDGE_EXACT_SCAN_MAX'>;
  /** The org's embedder, or null; may throw (treated as a failed embedder). */
  embedder: () => Promise<Embedder | null>;
  /** Does the database have pgvector? */
  vectors: boolean;
}

/**
 * One part of a search's scope: a condition on `c`, which is `knowledge_chunks` or `knowledge_versions` (the scope's
 * size is summed over versions), so it may name only the columns both have: organization_id, shared_scope, public
 * and source_id. Its operators are leakproof (=, <>, = any), so under row-level security the planner may still
 * take the part's index.
 */
export type ScopePart = SqlFragment;

/**
 * The passages a search of `db`'s org reads, as disjoint parts: the org's own, other orgs' public ones, and the
 * shared pages of the submodules it subscribes to (`submodules`; none without the submodules module). The index path
 * ORs the parts; the exact path (exactSearch) reads each part by its own index. Row-level security would show the
 * org all three and more (every shared page): each part says which rows it means. knowledge_text_matches
 * (migrations/0007) reads the same three parts for the text search.
 */
export function searchScope(db: Pick<OrgDb, 'inOrg'>, submodules: string[] = []): ScopePart[] {
  return [
    db.inOrg('c'),
    sql`(c.public and not ${db.inOrg('c')})`,
    ...(submodules.length ? [sharedIn(submodules, 'c')] : []),
  ];
}

const anyOf = (parts: ScopePart[]): SqlFragment => sql`(${sql.join(parts, sql` or `)})`;

/** The optional category condition, shared by both searches. */
const categoryPart = (input: SearchInput): SqlFragment => (input.category === undefined
  ? sql``
  : sql`and c.source_id in (select id from knowledge_sources where category = ${input.category})`);

/** Candidates each list brings to the fusion: enough for top_k after summaries drop their rows. */
const candidatesFor = (topK: number) => Math.min(200, topK * 4 + 20);

export async function search(ctx: SearchContext, input: SearchInput): Promise<SearchAnswer>;
export async function search(ctx: SearchContext, input: SearchInput, options: { explain: true }): Promise<SearchAnswer & { explain: SearchExplain }>;
/** `explain: true` adds the two ranked lists to the answer; the search itself is the same. */
export async function search(ctx: SearchContext, input: SearchInput, options: { explain?: boolean } = {}): Promise<SearchAnswer & { explain?: SearchExplain }> {
  const { settings } = ctx;
  const topK = input.top_k ?? settings.top_k;
  const window = input.window ?? settings.window;
  if (input.embedding !== undefined) {
    if (input.embedding.length !== EMBEDDING_DIMENSIONS) {
      throw badRequest(`body.embedding: ${input.embedding.length} numbers; an embedding has exactly ${EMBEDDING_DIMENSIONS}`, 'bad_embedding', { field: 'body.embedding' });
    }
    if (!input.embedding_model?.trim()) throw badRequest('body.embedding_model: required with embedding (the model it came from)', 'embedding_model_required', { field: 'body.embedding_model' });
  }
  const n = candidatesFor(topK);
  const mode = settings.mode;
  const submodules = await subscribedBy(ctx.services, ctx.em, ctx.org.id);
  const scope = searchScope(ctx.db, submodules);
  // The query is embedded (and counted) before the search's transaction opens: no connection waits on the embedder.
  const query = mode === 'text' || !ctx.vectors ? null : await queryVector(ctx, input);
  const dense = query !== null;
  const { vectorHits, textIds, fused, rows, kept, windows } = await ctx.db.transaction(
    (db) => findPassages(db, ctx, { scope, submodules, input, query, n, topK, window }));
  const answer = {
    mode, dense,
    results: kept.map((r) => ({
      chunk_id: r.id, source_key: r.key, title: r.title, url: r.url, category: r.category, public: r.public,
      content: windows.get(r.id) ?? r.content, score: fused.get(r.id)!, fetched_at: new Date(r.fetched_at).toISOString(),
    })),
  };
  if (!options.explain) return answer;
  // Every hit of both lists is among the fused rows read above: named from them, no second read.
  const byId = new Map(rows.map((r) => [r.id, r]));
  const hit = (id: number, i: number): ExplainedHit => ({ chunk_id: id, rank: i + 1, source_key: byId.get(id)?.key ?? '', ordinal: byId.get(id)?.ordinal ?? 0 });
  return {
    ...answer,
    explain: {
      vector: vectorHits.map((r, i) => ({ ...hit(r.id, i), distance: r.distance })),
      text: textIds.map(hit),
    },
  };
}

interface Lookup {
  scope: ScopePart[];
  /** The subscribed submodules, whose shared pages are the scope's third part. */
  submodules: string[];
  input: SearchInput;
  query: { vector: number[]; model: string } | null;
  /** Candidates of each list. */
  n: number;
  topK: number;
  window: number;
}

/** Both lists, their fusion, the kept rows and their windows: every statement of a search, in one transaction. */
async function findPassages(db: OrgDb, ctx: SearchContext, { scope, submodules, input, query, n, topK, window }: Lookup) {
  const vectorHits = query ? await vectorSearch(db, ctx, scope, input, query, n) : [];
  // Mode vector skips the text search only when the vector search ran.
  const textIds = ctx.settings.mode === 'vector' && query ? [] : await textSearch(db, submodules, input, n);
  const fused = fuse([vectorHits.map((r) => r.id), textIds], ctx.settings.rrf_k);
  const rows = await details(db, [...fused.keys()]);
  const kept = dropOutranked(rows, fused).slice(0, topK);
  const windows = window > 0 ? await neighbours(db, kept.filter((r) => r.level === 0), window) : new Map<number, string>();
  return { vectorHits, textIds, fused, rows, kept, windows };
}

/** The caller's vector, or the org's embedder's answer; null when there is none, it fails or the day's limit is reached. */
async function queryVector(ctx: SearchContext, input: SearchInput): Promise<{ vector: number[]; model: string } | null> {
  if (input.embedding) return { vector: input.embedding, model: input.embedding_model!.trim() };
  try {
    const embedder = await ctx.embedder();
    if (!embedder) return null;
    // Each embedding counts, whichever service (spec "Limits"); over the limit the search is text only.
    await ctx.services.limits.consume(ctx.em, ctx.org.id, 'knowledge.embeddings_per_day', 1);
    const [vector] = await embedder.embed([input.query], 'query');
    return vector ? { vector, model: embedder.model } : null;
  } catch (err) {
    if (err instanceof HttpError && err.statusCode !== 429) throw err;
    // EmbedderFailed, 429 rate_limited, or an unreadable org secret: text only.
    return null;
  }
}

/**
 * Scopes with at most KNOWLEDGE_EXACT_SCAN_MAX passages of the query's model (default 50,000) are searched exactly:
 * every passage, by the Hamming distance of its binary-quantized vector, the best re-ranked by cosine distance
 * (~5 ms per 12,500 passages, recall 1). Larger scopes take the HNSW index, whose filtered (iterative) scans lose
 * recall as the scope becomes a small slice of the table, and which only wins when the scope is large.
 */
async function vectorSearch(db: OrgDb, ctx: SearchContext, parts: ScopePart[], input: SearchInput, query: { vector: number[]; model: string }, n: number): Promise<{ id: number; distance: number }[]> {
  const search: VectorQuery = { parts, category: categoryPart(input), vector: vectorLiteral(query.vector), model: query.model, n };
  const large = await scopeSize(db, search) > ctx.deployment.KNOWLEDGE_EXACT_SCAN_MAX;
  let rows = large ? await indexSearch(db, search) : [];
  // An iterative scan ends at its memory and tuple caps (hnsw.scan_mem_multiplier, max_scan_tuples): when the scope
  // is a far, small slice of a much larger table the index path comes back short, and the exact search answers.
  if (rows.length < n) rows = await exactSearch(db, search);
  // relaxed_order may return rows slightly out of order: sort, then drop the far ones.
  return rows.map((r) => ({ id: Number(r.id), distance: Number(r.distance) }))
    .filter((r) => r.distance <= ctx.settings.max_distance)
    .sort((a, b) => a.distance - b.distance || a.id - b.id);
}

interface VectorQuery { parts: ScopePart[]; category: SqlFragment; vector: string; model: string; n: number }
type VectorRow = { id: string; distance: number };

/** Passages with vectors of the model in scope: summed over the versions (a source has one), not counted. */
async function scopeSize(db: OrgDb, q: VectorQuery): Promise<number> {
  const row = await db.one<{ n: string }>`
    select coalesce(sum(c.chunk_count), 0) as n from knowledge_versions c where c.embedding_model = ${q.model} and ${anyOf(q.parts)} ${q.category}`;
  return Number(row!.n);
}

/**
 * The HNSW search's breadth. Embeddings crowd (many passages nearly as near as each other), and pgvector's default
 * of 40 finds ~92 % of the true top 10 of 200,000 passages; 200 finds ~97 % for ~1 ms more (npm run bench:knowledge).
 */
const efSearch = (n: number) => Math.min(1000, Math.max(200, 4 * n));

async function indexSearch(db: OrgDb, q: VectorQuery): Promise<VectorRow[]> {
  // The settings below last to the end of a transaction; rolled back to this savepoint, they leave the search's
  // later statements (the text search sorts) as they were.
  await db.run`savepoint knowledge_index_search`;
  // Filtered HNSW scans stop at ef_search candidates; iterative scans go on until the filter leaves enough rows.
  await db.run`set local hnsw.iterative_scan = relaxed_order`;
  await db.run`select set_config('hnsw.ef_search', ${String(efSearch(q.n))}, true)`;
  // The planner costs neither TOAST reads nor 1024-d distances, so for a large scope it prefers to sort a scan of
  // every row in it (~10× slower at 200,000 passages). Without a sort to choose, only the HNSW index orders.
  await db.run`set local enable_sort = off`;
  const rows = await db.sql<VectorRow>`
    select c.id, c.embedding <=> ${q.vector}::vector as distance from knowledge_chunks c
    where c.embedding is not null and c.embedding_model = ${q.model} and ${anyOf(q.parts)} ${q.category}
    order by c.embedding <=> ${q.vector}::vector limit ${q.n}`;
  await db.run`rollback to savepoint knowledge_index_search`;
  return rows;
}

/** Candidates (nearest by Hamming distance) the exact search re-ranks by cosine distance. */
const rerankDepth = (n: number) => Math.min(1000, Math.max(100, 2 * n));

/**
 * Every passage in scope ranked by the Hamming distance of its 128-byte binary-quantized vector (stored in the row,
 * so no TOAST reads), each part through its own index; the nearest re-ranked by true cosine distance, which reads
 * their vectors.
 */
async function exactSearch(db: OrgDb, q: VectorQuery): Promise<VectorRow[]> {
  const depth = rerankDepth(q.n);
  const candidates = sql.join(q.parts.map((part) => sql`(select c.id, c.embedding_bits <~> binary_quantize(${q.vector}::vector) as hamming from knowledge_chunks c
     where c.embedding is not null and c.embedding_model = ${q.model} and ${part} ${q.category}
     order by hamming limit ${depth})`), sql` union all `);
  return db.sql<VectorRow>`
    select c.id, c.embedding <=> ${q.vector}::vector as distance
    from (select id from (${candidates}) u order by hamming limit ${depth}) x join knowledge_chunks c on c.id = x.id
    order by distance limit ${q.n}`;
}

/**
 * Matches the text search ranks at most, per part of the scope. ts_rank_cd reads every match's tsvector, so a query
 * of one common word (a fifth of a 200,000-passage org) would cost ~100 ms; past this many matches the words rank
 * poorly anyway, and in hybrid mode the vector list carries such a query.
 */
export const TEXT_RANK_CAP = 10_000;

async function textSearch(db: OrgDb, submodules: string[], input: SearchInput, n: number): Promise<number[]> {
  // The stored, GIN-indexed tsv column: the query's text is parsed once, passages never per query. The function
  // matches each part of the scope on its own, so the planner can take its index (a small org's rows) rather than a
  // common word's matches across every org; the first TEXT_RANK_CAP matches of each part are ranked here. It answers
  // only passages the org may read, and the fused ones are read again under the policies (details).
  const rows = await db.sql<{ id: string }>`
    select m.id from knowledge_text_matches(websearch_to_tsquery('english', ${input.query}), ${submodules}::text[], ${input.category ?? null}::text, ${TEXT_RANK_CAP}) m
    order by ts_rank_cd(m.tsv, websearch_to_tsquery('english', ${input.query})) desc, m.id limit ${n}`;
  return rows.map((r) => Number(r.id));
}

/** Reciprocal rank fusion: each list adds 1 / (k + rank) (rank from 1); best first. */
export function fuse(lists: number[][], k: number): Map<number, number> {
  const scores = new Map<number, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return new Map([...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]));
}

interface Row {
  id: number; version_id: number; ordinal: number; level: number; parent_ordinal: number | null; content: string;
  key: string; title: string; url: string; category: string; public: boolean; fetched_at: Date;
}

async function details(db: OrgDb, ids: number[]): Promise<Row[]> {
  if (!ids.length) return [];
  const rows = await db.sql<Omit<Row, 'id' | 'version_id'> & { id: string; version_id: string }>`
    select c.id, c.version_id, c.ordinal, c.level, c.parent_ordinal, c.content, s.key, s.title, s.url, s.category, s.public, v.created_at as fetched_at
    from knowledge_chunks c join knowledge_sources s on s.id = c.source_id join knowledge_versions v on v.id = c.version_id
    where c.id in (select unnest(string_to_array(${ids.join(',')}, ',')::bigint[]))`;
  return rows.map((r) => ({ ...r, id: Number(r.id), version_id: Number(r.version_id) }));
}

/** In fused order, without the rows whose summary (or a summary above it) ranks higher. */
function dropOutranked(rows: Row[], fused: Map<number, number>): Row[] {
  const position = new Map([...fused.keys()].map((id, i) => [id, i]));
  const byOrdinal = new Map(rows.map((r) => [`${r.version_id}:${r.ordinal}`, r]));
  const ordered = [...rows].sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  return ordered.filter((row) => {
    const seen = new Set<number>();
    for (let up = row.parent_ordinal; up !== null && !seen.has(up); ) {
      seen.add(up);
      const summary = byOrdinal.get(`${row.version_id}:${up}`);
      if (!summary) break;
      if (position.get(summary.id)! < position.get(row.id)!) return false;
      up = summary.parent_ordinal;
    }
    return true;
  });
}

/** For each page-text result, its text with `window` page-text rows on each side, in ordinal order. */
async function neighbours(db: OrgDb, rows: Row[], window: number): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const row of rows) {
    const around = await db.sql<{ ordinal: number; content: string }>`
      (select ordinal, content from knowledge_chunks where version_id = ${row.version_id} and level = 0 and ordinal < ${row.ordinal} order by ordinal desc limit ${window})
      union all
      (select ordinal, content from knowledge_chunks where version_id = ${row.version_id} and level = 0 and ordinal > ${row.ordinal} order by ordinal limit ${window})`;
    const ordered = [...around, { ordinal: row.ordinal, content: row.content }].sort((a, b) => a.ordinal - b.ordinal);
    out.set(row.id, ordered.map((r) => r.content).join('\n'));
  }
  return out;
}
