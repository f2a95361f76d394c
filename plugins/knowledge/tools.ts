// The knowledge tools (spec: knowledge.search, knowledge.read_source, knowledge.embeddings), for machine tokens
// with knowledge:read, over MCP and /api/tools. The core checks the scope and binds the token's org.
import { Type, badRequest, defineTool } from '@quad/core';
import { knowledgeContext } from './context.js';
import { readSource } from './reader.js';
import { subscribedBy } from './subscriptions.js';
import { REEMBED_JOB, startReembed, staleSources } from './reembed.js';
import { search } from './search.js';
import { sourceKey } from './sources.js';
import { CrawlOut, CrawlRunBody, JobStartedOut, RunOut, SearchBody, SearchOut } from './schemas.js';
import { listCrawls } from './crawl/records.js';
import { startCrawl } from './crawl/jobs.js';
import { listRuns, RUNS_KEPT } from './runs.js';

export const searchTool = defineTool({
  name: 'knowledge.search',
  title: 'Search the knowledge base',
  description: 'Finds passages of the org\'s knowledge (its own sources, public sources and subscribed submodules) that answer a question, '
    + 'by meaning and by words. Use it before answering questions about the org, its events or its handbook. Each result has the passage, '
    + 'its source key, title and url, and a chunk_id to read the whole source with knowledge.read_source. '
    + 'Example: {"query": "when does the library open on Sunday", "top_k": 5}',
  scope: 'knowledge:read',
  input: SearchBody,
  output: SearchOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, org, services }, input) {
    return search(await knowledgeContext(services, em, org), input);
  },
});

export const readSourceTool = defineTool({
  name: 'knowledge.read_source',
  title: 'Read a knowledge source',
  description: 'Reads the full text of one source, a page at a time (up to 500 passages or 200,000 characters), without summaries. '
    + 'Give the source key, or a chunk_id from knowledge.search (the page then opens at that passage); pass next_offset as offset for the next page. '
    + 'Example: {"chunk": 1234} or {"key": "handbook/rules", "offset": 500}',
  scope: 'knowledge:read',
  input: Type.Object({
    key: Type.Optional(Type.String({ maxLength: 255 })),
    chunk: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })), // a bigserial id
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  }, { additionalProperties: false }),
  output: Type.Object({
    key: Type.String(), title: Type.String(), url: Type.String(), own: Type.Boolean(), text: Type.String(),
    offset: Type.Integer(), next_offset: Type.Union([Type.Integer(), Type.Null()]), total: Type.Integer(),
  }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, org, services }, input) {
    if (input.key === undefined && input.chunk === undefined) throw badRequest('Give key or chunk', 'key_or_chunk_required');
    const key = input.chunk === undefined ? sourceKey(input.key) : undefined;
    const ctx = await knowledgeContext(services, em, org);
    const page = await readSource(ctx.db, ctx.settings.chunk_overlap, { key, chunk: input.chunk, offset: input.offset }, await subscribedBy(services, em, org.id));
    return {
      key: page.source.key, title: page.source.title, url: page.source.url, own: page.source.own,
      text: page.passages.map((p) => p.text).join('\n'), offset: page.offset, next_offset: page.next_offset, total: page.total,
    };
  },
});

export const embeddingsTool = defineTool({
  name: 'knowledge.embeddings',
  title: 'Count passages by embedding model',
  description: 'Counts the org\'s passages by the model of their vectors, and names the model its searches use now. Passages of another model '
    + '(or with no vector) are found by text search only until they are embedded again. Example: {}',
  scope: 'knowledge:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    current_model: Type.Union([Type.String(), Type.Null()]),
    models: Type.Array(Type.Object({ model: Type.String(), passages: Type.Integer() })),
    without_vector: Type.Integer(),
  }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ em, db, org, services }) {
    const ctx = await knowledgeContext(services, em, org);
    const embedder = await ctx.embedder().catch(() => null);
    const rows = await db.sql<{ model: string | null; n: number }>`
      select embedding_model as model, count(*)::int as n from knowledge_chunks where ${db.inOrg()} group by embedding_model order by embedding_model nulls last`;
    return {
      current_model: embedder?.model ?? null,
      models: rows.filter((r) => r.model !== null).map((r) => ({ model: r.model!, passages: r.n })),
      without_vector: rows.find((r) => r.model === null)?.n ?? 0,
    };
  },
});

export const reembedTool = defineTool({
  name: 'knowledge.reembed',
  title: 'Embed the knowledge again',
  description: 'Starts the job knowledge.reembed: the org\'s passages that the current embeddings model has not embedded (written under another '
    + 'model, or with no vector) are embedded again from their stored text, one source at a time; until then they are found by text search only. '
    + 'Without confirm it answers what it would do. Example: {"confirm": true}',
  scope: 'knowledge:write',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ run_id: Type.Integer(), job: Type.String() }),
  confirm: true,
  async preview({ em, db, org, services }) {
    const embedder = await (await knowledgeContext(services, em, org)).embedder().catch(() => null);
    if (!embedder) return { job: REEMBED_JOB, model: null, note: 'the org has no embedder: there is nothing to embed with' };
    const stale = await staleSources(db, embedder.model);
    return { job: REEMBED_JOB, model: embedder.model, sources: stale.length, passages: stale.reduce((n, s) => n + s.passages, 0) };
  },
  async handler({ db, services }) {
    return { ...(await startReembed(db, services)), job: REEMBED_JOB };
  },
});

export const crawlsTool = defineTool({
  name: 'knowledge.crawls',
  title: 'List crawled pages',
  description: 'Lists the org\'s crawl records: the URLs fetched on a schedule into knowledge sources, with how often, when next, '
    + 'the last attempt and its error (for example a page that answers 404 or that robots.txt forbids). Example: {}',
  scope: 'knowledge:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ crawls: Type.Array(CrawlOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }) {
    return { crawls: await listCrawls(db) };
  },
});

export const crawlRunTool = defineTool({
  name: 'knowledge.crawl',
  title: 'Crawl a page now',
  description: 'Starts a crawl of one crawl record now (its key as knowledge.crawls lists it); the source is updated when the page changed. '
    + 'force crawls an unchanged page and accepts a text under half of the last one. The result shows in knowledge.runs. '
    + 'Example: {"key": "library/hours"}',
  scope: 'knowledge:write',
  input: CrawlRunBody,
  output: JobStartedOut,
  async handler({ db, services }, input) {
    return startCrawl(db, services, sourceKey(input.key, 'key'), input.force ?? false);
  },
});

export const runsTool = defineTool({
  name: 'knowledge.runs',
  title: 'Read the knowledge run log',
  description: 'The org\'s latest crawls and uploads, newest first: source key, kind, when, how long, whether the source changed, '
    + 'passages written and the error of a failed one. Example: {"failed": true, "limit": 20}',
  scope: 'knowledge:read',
  input: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RUNS_KEPT, default: 50 })),
    failed: Type.Optional(Type.Boolean({ description: 'only runs that failed' })),
  }, { additionalProperties: false }),
  output: Type.Object({ runs: Type.Array(RunOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    return { runs: await listRuns(db, { limit: input.limit ?? 50, failed: input.failed === true }) };
  },
});

export const knowledgeTools = [searchTool, readSourceTool, embeddingsTool, reembedTool, crawlsTool, crawlRunTool, runsTool];
