// The knowledge tables as MikroORM entities (migrations/0001): sources, their versions and chunks. The routes read
// and write them with SQL (bulk chunk inserts, vectors, the stored tsvector, other orgs' public rows); these
// definitions keep the tables known to the ORM and its org filter for simple reads. Shared pages of submodules
// (migrations/0005) are rows of these tables with no org: the org filter never selects them, and only SQL reads them.
import { defineOrgEntity, p } from '@quad/core';

export const KnowledgeSource = defineOrgEntity({
  name: 'KnowledgeSource',
  tableName: 'knowledge_sources',
  properties: {
    id: p.integer().primary().autoincrement(),
    key: p.string(),
    category: p.string().default(''),
    title: p.string().default(''),
    url: p.string().default(''),
    public: p.boolean().default(false),
    currentVersionId: p.bigint('number').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const KnowledgeVersion = defineOrgEntity({
  name: 'KnowledgeVersion',
  tableName: 'knowledge_versions',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    sourceId: p.integer(),
    /** Its source's flag (migrations/0006: the foreign key on (source_id, public) keeps it equal). */
    public: p.boolean().default(false),
    contentHash: p.string(),
    embeddingModel: p.string().nullable(),
    chunkCount: p.integer(),
    /** The overlap its passages were cut with, which the reader strips (migrations/0008; null: unknown, the org's setting). */
    chunkOverlap: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** A passage. Its `embedding` (vector) and `tsv` (generated) columns are read and written by SQL only. */
export const KnowledgeChunk = defineOrgEntity({
  name: 'KnowledgeChunk',
  tableName: 'knowledge_chunks',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    sourceId: p.integer(),
    /** Its source's flag, like the version's. */
    public: p.boolean().default(false),
    versionId: p.bigint('number'),
    ordinal: p.integer(),
    level: p.integer().default(0),
    parentOrdinal: p.integer().nullable(),
    content: p.text(),
    embeddingModel: p.string().nullable(),
  },
});
