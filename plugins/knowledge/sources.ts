// Writing a source (PUT /api/knowledge/sources/<key>): the checks of the spec on the chunks, the content hash, the
// embedding of chunks sent without vectors, and the one transaction that replaces the source's version and chunks.
// The same write serves an org's sources and the shared pages of submodules (no org: no limits, never public).
// Reads of one source and of the org's list are here too, so the route files only shape requests and answers.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError, badRequest, conflict, forbidden, notFound, sql, type CoreServices, type OrgDb, type OrgSnapshot } from '@quad/core';
import { EMBEDDING_DIMENSIONS, EmbedderFailed, vectorLiteral, type Embedder } from './embeddings.js';
import { isPublisher, type KnowledgeSettings } from './settings.js';
import { crawlView, type CrawlRow, type CrawlView } from './crawl/records.js';
import { orgOwner, sharedOwner, type Handle, type OwnerDb } from './owner.js';

export const KEY_PATTERN = /^[A-Za-z0-9._:/-]{1,255}$/;
export const MAX_CHUNKS = 5000;
export const MAX_CHUNK_CHARS = 20000;

export interface ChunkInput {
  ordinal: number;
  content: string;
  embedding?: number[];
  level?: number;
  parent_ordinal?: number | null;
}

export interface SourceInput {
  category?: string;
  title?: string;
  url?: string;
  public?: boolean;
  content_hash?: string;
  embedding_model?: string;
  chunks?: ChunkInput[];
}

/** A source as lists and reads show it (spec: key, title, url, category, public, current version, crawl). */
export interface SourceView {
  key: string;
  title: string;
  url: string;
  category: string;
  public: boolean;
  origin: SourceOrigin;
  current_version: { id: number; content_hash: string; embedding_model: string | null; chunks: number; created_at: string } | null;
  /** The crawl record of the key, when there is one. */
  crawl: CrawlView | null;
  created_at: string;
  updated_at: string;
}

/** The key from a wildcard route, checked against the spec's rule (400 otherwise). */
export function sourceKey(raw: string | undefined, field = 'params.key'): string {
  const key = raw ?? '';
  if (!KEY_PATTERN.test(key)) {
    throw badRequest(`${field}: letters, digits and ._:/- only, 1 to 255 characters`, 'bad_key', { field });
  }
  return key;
}

const fieldOf = (i: number, name: string) => `body.chunks[${i}].${name}`;

/** Every rule of the spec on a body's chunks; 400 with the field and a reason a client can branch on. */
export function checkChunks(input: SourceInput): void {
  // An empty list is a client bug, not content (the seed refuses it too); leaving `chunks` out is the metadata-only
  // update of the spec, checked against the current version's hash by writeSource.
  if (input.chunks?.length === 0) {
    throw badRequest('body.chunks: empty; a source has at least one chunk (leave chunks out to change only title, url, category and public)', 'no_chunks', { field: 'body.chunks' });
  }
  const chunks = input.chunks ?? [];
  if (chunks.length > MAX_CHUNKS) throw badRequest(`A source holds up to ${MAX_CHUNKS} chunks (got ${chunks.length})`, 'too_many_chunks', { field: 'body.chunks' });
  const byOrdinal = new Map<number, ChunkInput>();
  let withVectors = 0;
  chunks.forEach((c, i) => {
    if (byOrdinal.has(c.ordinal)) throw badRequest(`${fieldOf(i, 'ordinal')}: ordinal ${c.ordinal} appears twice; ordinals are unique in a source`, 'duplicate_ordinal', { field: fieldOf(i, 'ordinal') });
    byOrdinal.set(c.ordinal, c);
    if (c.content.length > MAX_CHUNK_CHARS) throw badRequest(`${fieldOf(i, 'content')}: up to ${MAX_CHUNK_CHARS} characters (got ${c.content.length})`, 'chunk_too_long', { field: fieldOf(i, 'content') });
    if ((c.level ?? 0) < 0) throw badRequest(`${fieldOf(i, 'level')}: 0 (page text) or higher`, 'bad_level', { field: fieldOf(i, 'level') });
    if (c.embedding !== undefined) {
      withVectors++;
      if (c.embedding.length !== EMBEDDING_DIMENSIONS) {
        throw badRequest(`${fieldOf(i, 'embedding')}: ${c.embedding.length} numbers; an embedding has exactly ${EMBEDDING_DIMENSIONS}`, 'bad_embedding', { field: fieldOf(i, 'embedding') });
      }
    }
  });
  if (withVectors && withVectors !== chunks.length) {
    throw badRequest(`${withVectors} of ${chunks.length} chunks carry an embedding: all of them or none must`, 'embeddings_all_or_none', { field: 'body.chunks' });
  }
  if (withVectors && !input.embedding_model?.trim()) {
    throw badRequest('body.embedding_model: required when chunks carry embeddings (the model they came from)', 'embedding_model_required', { field: 'body.embedding_model' });
  }
  chunks.forEach((c, i) => {
    if (c.parent_ordinal === undefined || c.parent_ordinal === null) return;
    const parent = byOrdinal.get(c.parent_ordinal);
    if (!parent) throw badRequest(`${fieldOf(i, 'parent_ordinal')}: no chunk of this body has ordinal ${c.parent_ordinal}`, 'bad_parent', { field: fieldOf(i, 'parent_ordinal') });
    if ((parent.level ?? 0) <= (c.level ?? 0)) {
      throw badRequest(`${fieldOf(i, 'parent_ordinal')}: the summary (ordinal ${c.parent_ordinal}, level ${parent.level ?? 0}) must have a higher level than its row (level ${c.level ?? 0})`, 'bad_parent', { field: fieldOf(i, 'parent_ordinal') });
    }
  });
}

/**
 * The content hash a writer did not send: sha256 of a canonical form (chunks by ordinal as [ordinal, level,
 * parent_ordinal, content], and the embedding model when the body carries vectors), so the same text written
 * again is the same version whatever the order of the chunks or the JSON spacing.
 */
export function contentHash(input: SourceInput): string {
  const chunks = [...(input.chunks ?? [])].sort((a, b) => a.ordinal - b.ordinal)
    .map((c) => [c.ordinal, c.level ?? 0, c.parent_ordinal ?? null, c.content]);
  const vectors = (input.chunks ?? []).some((c) => c.embedding !== undefined);
  const canonical = JSON.stringify({ v: 1, model: vectors ? input.embedding_model ?? null : null, chunks });
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

interface SourceRow {
  id: number; key: string; title: string; url: string; category: string; public: boolean; origin: SourceOrigin; created_at: Date; updated_at: Date;
  version_id: string | number | null; content_hash: string | null; embedding_model: string | null; chunk_count: number | null; version_created_at: Date | null;
  crawl?: CrawlRow | null;
}

const SOURCE_SELECT = sql`select s.id, s.key, s.title, s.url, s.category, s.public, s.origin, s.created_at, s.updated_at,
  v.id as version_id, v.content_hash, v.embedding_model, v.chunk_count, v.created_at as version_created_at,
  (select to_jsonb(c) from knowledge_crawls c where c.organization_id = s.organization_id and c.key = s.key) as crawl
  from knowledge_sources s left join knowledge_versions v on v.id = s.current_version_id`;

export function sourceView(row: SourceRow): SourceView {
  return {
    key: row.key, title: row.title, url: row.url, category: row.category, public: row.public, origin: row.origin ?? 'api',
    current_version: row.version_id === null ? null : {
      id: Number(row.version_id), content_hash: row.content_hash!, embedding_model: row.embedding_model,
      chunks: row.chunk_count ?? 0, created_at: new Date(row.version_created_at!).toISOString(),
    },
    crawl: row.crawl ? crawlView(row.crawl) : null,
    created_at: new Date(row.created_at).toISOString(), updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The org's sources (only its own), by key; optionally one category. */
export async function listSources(db: OrgDb, category?: string): Promise<SourceView[]> {
  const rows = await db.sql<SourceRow>`${SOURCE_SELECT} where ${db.inOrg('s')}${category === undefined ? sql`` : sql` and s.category = ${category}`} order by s.key`;
  return rows.map(sourceView);
}

export type FoundSource = SourceView & { id: number; version_id: number | null };

/** The org's own source of `key`. */
export async function findSource(db: OrgDb, key: string): Promise<FoundSource | null> {
  return findOwnedSource(db, orgOwner(db), key);
}

/** The source of `key` of an org, or of a submodule's shared pages, read on `db` (the owner's handle). */
async function findOwnedSource(db: Handle, owner: OwnerDb, key: string): Promise<FoundSource | null> {
  const row = await db.one<SourceRow>`${SOURCE_SELECT} where ${owner.owns('s')} and s.key = ${key}`;
  return row ? { ...sourceView(row), id: row.id, version_id: row.version_id === null ? null : Number(row.version_id) } : null;
}

export interface ChunkView { id: number; ordinal: number; level: number; parent_ordinal: number | null; content: string }

/** The chunks of a version of one of the org's sources. */
export async function chunksOf(db: OrgDb, versionId: number): Promise<ChunkView[]> {
  const rows = await db.sql<{ id: string; ordinal: number; level: number; parent_ordinal: number | null; content: string }>`
    select id, ordinal, level, parent_ordinal, content from knowledge_chunks where ${db.inOrg()} and version_id = ${versionId} order by ordinal`;
  return rows.map((r) => ({ id: Number(r.id), ordinal: r.ordinal, level: r.level, parent_ordinal: r.parent_ordinal, content: r.content }));
}

/** Delete one of the request's org's sources, audited, in one transaction; 404 when it has none of the key. */
export async function deleteSource(request: FastifyRequest, key: string): Promise<{ deleted: string }> {
  const gone = await request.db.transaction(async (tx) => {
    // Versions and chunks go with it (on delete cascade), and its crawl record: a deleted source is not crawled back.
    const deleted = await tx.run`delete from knowledge_sources where ${tx.inOrg()} and key = ${key}`;
    if (deleted) await tx.run`delete from knowledge_crawls where ${tx.inOrg()} and key = ${key}`;
    if (deleted) await request.audit(tx.em, 'knowledge.source_deleted', { key });
    return deleted > 0;
  });
  if (!gone) throw notFound(`No source "${key}"`, 'source_not_found');
  return { deleted: key };
}

/**
 * The writer: an org (its org-bound handle; its limits, the publisher rule, its embeddings count) or a submodule's
 * shared page (written on the cross-org path; none of them).
 */
export type WriteOwner = { org: OrgSnapshot; db: OrgDb; submodule?: never } | { submodule: string; org?: never; db?: never };

/** The cross-org path's reason for the reads and writes of a shared page's crawl. */
export const SHARED_WRITE_REASON = 'knowledge.shared_crawl';

/** Where a writer's rows are, and how they are reached. */
export const ownerDbOf = (writer: WriteOwner & { services: CoreServices }): OwnerDb =>
  (writer.db ? orgOwner(writer.db) : sharedOwner(writer.services, writer.submodule!, SHARED_WRITE_REASON));

export type WriteContext = WriteOwner & {
  services: CoreServices;
  deployment: KnowledgeSettings;
  /** The org's embedder, or the deployment's for a shared page (null: text only), asked only when chunks come without vectors. */
  embedder: () => Promise<Embedder | null>;
  /** Does the database have pgvector (the embedding column)? */
  vectors: boolean;
  /** Who split the text: a client (`api`, the default) or the service (`crawl`, `upload`: rows start with the title line). */
  origin?: SourceOrigin;
  /**
   * The chunk_overlap the service cut the chunks with (crawls, uploads, text a module writes), kept on the version
   * for the reader to strip. Absent: a client's own chunks, which repeat nothing the reader should take out (0).
   */
  chunkOverlap?: number;
};

export type SourceOrigin = 'api' | 'crawl' | 'upload';

export interface WriteResult { source: SourceView; changed: boolean }

/**
 * Create or replace a source. Unchanged content (the hash of the current version) changes only title, url, category
 * and public; new content is embedded first (when it has no vectors and the org has an embedder: 502 and nothing
 * written when that fails), then replaces the old version and its chunks in one transaction.
 */
export async function writeSource(ctx: WriteContext, key: string, input: SourceInput): Promise<WriteResult> {
  // Once more when another write changed the source between the first look and the lock (see writeOnce).
  return (await writeOnce(ctx, key, input)) ?? (await writeOnce(ctx, key, input)) ?? conflictingWrites();
}

const conflictingWrites = (): never => {
  throw conflict('The source changed while it was written; send it again', 'concurrent_write');
};

/** One attempt; null when the source changed under it after it decided not to embed (the caller tries again). */
async function writeOnce(ctx: WriteContext, key: string, input: SourceInput): Promise<WriteResult | null> {
  const { org, services } = ctx;
  const owner = ownerDbOf(ctx);
  if (input.public === true && !(org && isPublisher(ctx.deployment, org))) {
    throw forbidden('Only publisher orgs may write public sources (KNOWLEDGE_PUBLISHERS, or the superadmin\'s publisher switch)', 'not_publisher');
  }
  checkChunks(input);
  const hash = input.content_hash?.trim() || (input.chunks ? contentHash(input) : null);
  const current = await owner.read((db) => findOwnedSource(db, owner, key));
  if (!input.chunks && (!hash || hash !== current?.current_version?.content_hash)) {
    throw badRequest('body.chunks: required unless content_hash equals the current version\'s hash (a metadata-only update)', 'chunks_required', { field: 'body.chunks' });
  }
  const chunks = input.chunks ?? [];
  const unchanged = current?.current_version?.content_hash === hash;

  // Embed before the transaction opens: no connection is held while the service answers.
  let vectors: number[][] | null = null;
  let model: string | null = null;
  let embedded = 0;
  if (!unchanged && chunks.length) {
    if (chunks[0].embedding !== undefined) {
      vectors = chunks.map((c) => c.embedding!);
      model = input.embedding_model!.trim();
    } else if (ctx.vectors) {
      const embedder = await ctx.embedder().catch((err: unknown) => { throw embedFailure(err); });
      if (embedder) {
        // A shared page is the deployment's: no org's embeddings count.
        if (ctx.db) await services.limits.checkRate(ctx.db.em, ctx.db.org, 'knowledge.embeddings_per_day', chunks.length);
        vectors = await embedder.embed(chunks.map((c) => c.content), 'passage').catch((err: unknown) => { throw embedFailure(err); });
        model = embedder.model;
        embedded = org ? chunks.length : 0;
      }
    }
  }

  return owner.transaction(async (tx) => {
    let row = await tx.one<{ id: number; content_hash: string | null }>`
      select s.id, v.content_hash from knowledge_sources s left join knowledge_versions v on v.id = s.current_version_id
      where ${owner.owns('s')} and s.key = ${key} for update of s`;
    const meta = {
      category: input.category, title: input.title, url: input.url, public: input.public, origin: ctx.origin ?? 'api',
    };
    if (row && row.content_hash === hash) {
      await updateMeta(tx, owner, row.id, meta);
      return { source: (await findOwnedSource(tx, owner, key))!, changed: false };
    }
    // It was unchanged at the first look (so nothing was embedded) and another write has changed it since.
    if (unchanged) return null;
    if (!row) {
      if (org) await services.limits.reserve(tx.em, org.id, 'knowledge.sources');
      // No conflict target: the key is unique per org or per submodule, by two indexes.
      row = await tx.one<{ id: number; content_hash: string | null }>`
        insert into knowledge_sources (organization_id, shared_scope, key, category, title, url, public, origin)
        values (${owner.ownerValues}, ${key}, ${meta.category ?? ''}, ${meta.title ?? ''}, ${meta.url ?? ''}, ${meta.public ?? false}, ${meta.origin ?? 'api'})
        on conflict do nothing returning id, null as content_hash`;
      // A concurrent write made it first: replace its version like any other.
      row ??= await tx.one<{ id: number; content_hash: string | null }>`
        select id, null as content_hash from knowledge_sources s where ${owner.owns('s')} and s.key = ${key} for update`;
    }
    const sourceId = row!.id;
    // The old version goes with its chunks (cascade) before the new one counts against knowledge.passages.
    await tx.run`delete from knowledge_versions where ${owner.owns()} and source_id = ${sourceId}`;
    if (chunks.length && org) await services.limits.reserve(tx.em, org.id, 'knowledge.passages', chunks.length);
    // The source's flag first, so the new version and chunks are written with their copy of it (the foreign keys
    // refuse any other) and a change of it has no rows to carry over.
    const isPublic = await updateMeta(tx, owner, sourceId, meta);
    const version = await tx.one<{ id: string }>`
      insert into knowledge_versions (organization_id, shared_scope, source_id, public, content_hash, embedding_model, chunk_count, chunk_overlap)
      values (${owner.ownerValues}, ${sourceId}, ${isPublic}, ${hash!}, ${vectors && ctx.vectors ? model : null}::text, ${chunks.length}, ${ctx.chunkOverlap ?? 0}::int) returning id`;
    const versionId = Number(version!.id);
    if (chunks.length) await insertChunks(tx, { owner, sourceId, isPublic, versionId, chunks, vectors: ctx.vectors ? vectors : null, model });
    await tx.run`update knowledge_sources set current_version_id = ${versionId} where ${owner.owns()} and id = ${sourceId}`;
    // Counted with the write: a rolled-back write is not counted (spec "Limits": consume before, not committed).
    if (embedded) await services.limits.consume(tx.em, org!.id, 'knowledge.embeddings_per_day', embedded);
    return { source: (await findOwnedSource(tx, owner, key))!, changed: true };
  });
}

function embedFailure(err: unknown): unknown {
  if (err instanceof EmbedderFailed) {
    return new HttpError(502, `The embeddings service failed, so nothing was written: ${err.message}`, 'embedder_failed');
  }
  return err;
}

/** The fields given, changed; answers whether the source is public now. A changed flag reaches the source's version
 *  and chunks in the same statement (their foreign keys cascade it, migrations/0006). */
async function updateMeta(db: Handle, owner: OwnerDb, sourceId: number, meta: { category?: string; title?: string; url?: string; public?: boolean; origin?: SourceOrigin }): Promise<boolean> {
  const row = await db.one<{ public: boolean }>`
    update knowledge_sources set category = coalesce(${meta.category ?? null}::text, category), title = coalesce(${meta.title ?? null}::text, title),
      url = coalesce(${meta.url ?? null}::text, url), public = coalesce(${meta.public ?? null}::boolean, public),
      origin = coalesce(${meta.origin ?? null}::text, origin), updated_at = now()
    where ${owner.owns()} and id = ${sourceId} returning public`;
  return row!.public;
}

/** All chunks in one statement: a JSON array turned into rows (vectors as pgvector text), each with the source's flag. */
async function insertChunks(db: Handle, args: { owner: OwnerDb; sourceId: number; isPublic: boolean; versionId: number; chunks: ChunkInput[]; vectors: number[][] | null; model: string | null }) {
  const rows = args.chunks.map((c, i) => ({
    ordinal: c.ordinal, level: c.level ?? 0, parent_ordinal: c.parent_ordinal ?? null, content: c.content,
    embedding: args.vectors ? vectorLiteral(args.vectors[i]) : null,
  }));
  const withVectors = args.vectors !== null;
  await db.run`
    insert into knowledge_chunks (organization_id, shared_scope, source_id, public, version_id, ordinal, level, parent_ordinal, content, embedding_model${withVectors ? sql`, embedding` : sql``})
    select ${args.owner.ownerValues}, ${args.sourceId}::int, ${args.isPublic}::boolean, ${args.versionId}::bigint, r.ordinal, r.level, r.parent_ordinal, r.content, ${withVectors ? args.model : null}::text${withVectors ? sql`, r.embedding::vector` : sql``}
    from json_to_recordset(${JSON.stringify(rows)}::json) as r(ordinal integer, level integer, parent_ordinal integer, content text, embedding text)`;
}
