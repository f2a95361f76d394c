// The knowledge routes' TypeBox schemas: bodies as the spec words them, answers as the routes send them.
import { Type } from '@quad/core';
import { MAX_CHUNKS, MAX_CHUNK_CHARS } from './sources.js';
import { MODES, ORG_SETTING_RANGES } from './settings.js';

/** A source key is the rest of the path (it may hold `/`); sourceKey() checks it. */
export const WildcardParams = Type.Object({ '*': Type.String({ description: 'the source key: letters, digits and ._:/-, up to 255 characters' }) });

export const ChunkIn = Type.Object({
  ordinal: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
  content: Type.String({ maxLength: MAX_CHUNK_CHARS }),
  embedding: Type.Optional(Type.Array(Type.Number(), { description: 'exactly 1024 numbers; all chunks carry one or none does' })),
  level: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0, description: '0 is page text; 1 and higher summarize the rows below' })),
  parent_ordinal: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], { description: 'the ordinal of this row\'s summary (a row of the same body with a higher level)' })),
}, { additionalProperties: false });

export const SourceBody = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 200 })),
  title: Type.Optional(Type.String({ maxLength: 1000 })),
  url: Type.Optional(Type.String({ maxLength: 2000 })),
  public: Type.Optional(Type.Boolean({ description: 'only publisher orgs may write public sources' })),
  content_hash: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'computed from the chunks when missing' })),
  embedding_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'required when chunks carry embeddings' })),
  chunks: Type.Optional(Type.Array(ChunkIn, { maxItems: MAX_CHUNKS, description: '1 or more; required unless content_hash equals the current version\'s (a metadata-only update: leave chunks out; an empty list is refused)' })),
}, { additionalProperties: false });

const Version = Type.Object({
  id: Type.Integer(), content_hash: Type.String(), embedding_model: Type.Union([Type.String(), Type.Null()]),
  chunks: Type.Integer(), created_at: Type.String({ format: 'date-time' }),
});

const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const CrawlOut = Type.Object({
  key: Type.String(), url: Type.String(), category: Type.String(), title: Type.String(), public: Type.Boolean(),
  fetch_every_hours: Type.Integer(), enabled: Type.Boolean(),
  next_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the schedule crawls it next; null while disabled' }),
  last_attempt_at: Time, last_success_at: Time, last_error: Type.Union([Type.String(), Type.Null()]),
});

export const CrawlBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'http(s); required for a new crawl' })),
  category: Type.Optional(Type.String({ maxLength: 200 })),
  title: Type.Optional(Type.String({ maxLength: 500, description: 'default: the page\'s title' })),
  public: Type.Optional(Type.Boolean({ description: 'only publisher orgs may write public sources' })),
  fetch_every_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'default 24' })),
  enabled: Type.Optional(Type.Boolean({ description: 'false: the schedule leaves it alone (Run now still crawls it)' })),
}, { additionalProperties: false });

export const CrawlRunBody = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 255 }),
  force: Type.Optional(Type.Boolean({ default: false, description: 'crawl even when the page is unchanged, and accept a text under half of the last' })),
}, { additionalProperties: false });

export const RunOut = Type.Object({
  id: Type.Integer(), source_key: Type.String(), kind: Type.Union([Type.Literal('crawl'), Type.Literal('upload')]),
  started_at: Type.String({ format: 'date-time' }), duration_ms: Type.Integer(), changed: Type.Boolean(), passages: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const JobStartedOut = Type.Object({ run_id: Type.Integer({ description: 'the job run (GET /api/jobs/runs/<id>)' }) });

export const SourceOut = Type.Object({
  key: Type.String(), title: Type.String(), url: Type.String(), category: Type.String(), public: Type.Boolean(),
  origin: Type.Union([Type.Literal('api'), Type.Literal('crawl'), Type.Literal('upload')], { description: 'written by a client as chunks, crawled, or uploaded' }),
  current_version: Type.Union([Version, Type.Null()]),
  crawl: Type.Union([CrawlOut, Type.Null()], { description: 'the crawl record of the key, when there is one' }),
  created_at: Type.String({ format: 'date-time' }), updated_at: Type.String({ format: 'date-time' }),
});

export const ChunkOut = Type.Object({
  id: Type.Integer(), ordinal: Type.Integer(), level: Type.Integer(), parent_ordinal: Type.Union([Type.Integer(), Type.Null()]), content: Type.String(),
});

export const SourceWithChunksOut = Type.Composite([SourceOut, Type.Object({ chunks: Type.Array(ChunkOut) })]);

export const SearchBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 2000 }),
  category: Type.Optional(Type.String({ maxLength: 200 })),
  top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'default: the org setting (8)' })),
  window: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'page-text rows on each side of a result; default: the org setting (0)' })),
  embedding: Type.Optional(Type.Array(Type.Number(), { description: 'the caller\'s own query vector (1024 numbers), with embedding_model' })),
  embedding_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
}, { additionalProperties: false });

export const SearchResultOut = Type.Object({
  chunk_id: Type.Integer(), source_key: Type.String(), title: Type.String(), url: Type.String(), category: Type.String(),
  public: Type.Boolean(), content: Type.String(), score: Type.Number(), fetched_at: Type.String({ format: 'date-time' }),
});

export const SearchOut = Type.Object({
  results: Type.Array(SearchResultOut),
  dense: Type.Boolean({ description: 'whether the vector search ran' }),
  mode: Type.Union(MODES.map((m) => Type.Literal(m))),
});

const nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Number>>(s: T) => Type.Optional(Type.Union([s, Type.Null()]));

/** PUT settings: each field optional; null returns it to its default. */
export const SettingsBody = Type.Object({
  chunk_chars: nullable(Type.Integer(ORG_SETTING_RANGES.chunk_chars)),
  chunk_overlap: nullable(Type.Integer({ ...ORG_SETTING_RANGES.chunk_overlap, description: 'at most half of chunk_chars' })),
  mode: Type.Optional(Type.Union([...MODES.map((m) => Type.Literal(m)), Type.Null()])),
  top_k: nullable(Type.Integer(ORG_SETTING_RANGES.top_k)),
  window: nullable(Type.Integer(ORG_SETTING_RANGES.window)),
  max_distance: nullable(Type.Number(ORG_SETTING_RANGES.max_distance)),
  rrf_k: nullable(Type.Integer(ORG_SETTING_RANGES.rrf_k)),
}, { additionalProperties: false });

const SettingsValues = Type.Object({
  chunk_chars: Type.Integer(), chunk_overlap: Type.Integer(), mode: Type.Union(MODES.map((m) => Type.Literal(m))),
  top_k: Type.Integer(), window: Type.Integer(), max_distance: Type.Number(), rrf_k: Type.Integer(),
});

export const SettingsOut = Type.Object({
  settings: SettingsValues,
  defaults: SettingsValues,
  /** Whether the org has an embedder (its own integration or the deployment's): without one every mode is text. */
  embedder: Type.Union([Type.Object({ model: Type.String() }), Type.Null()]),
});

export const ReadQuery = Type.Object({
  chunk: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'a chunk_id from search: its source is read, and the page opens at it' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'the first page-text row (0 first)' })),
}, { additionalProperties: false });

export const ReadOut = Type.Object({
  source: Type.Composite([SourceOut, Type.Object({ own: Type.Boolean(), text_chars: Type.Integer() })]),
  passages: Type.Array(Type.Object({ id: Type.Integer(), ordinal: Type.Integer(), text: Type.String() })),
  focus: Type.Union([Type.Integer(), Type.Null()]),
  offset: Type.Integer(),
  next_offset: Type.Union([Type.Integer(), Type.Null()]),
  total: Type.Integer(),
});
