// @quad/plugin-knowledge: the knowledge module (spec document 3, "Knowledge"). Sources written as chunks by machine
// tokens, embedded by an OpenAI-compatible service (embeddings.ts), found by PostgreSQL full-text search and
// pgvector merged by reciprocal rank fusion (search.ts); URLs crawled on a schedule through the core's safe fetcher
// (crawl/), documents uploaded by officers (documents.ts, extract/), the run log of both (runs.ts); officers read
// sources and set the org's knowledge settings. The shared pages of submodules (shared-pages.ts, owner.ts) are crawled
// once for every subscriber and searched by the orgs that subscribe (subscriptions.ts).
import { defineModule, provide } from '@quad/core';
import { orgEmbeddings, orgEmbeddingsFor } from './embeddings-service.js';
import { KnowledgeChunk, KnowledgeSource, KnowledgeVersion } from './entities.js';
import { EMBEDDINGS_SECRETS } from './embeddings.js';
import { CLAIMED_SETTINGS, KnowledgeSettingsSchema } from './settings.js';
import { knowledgeTools } from './tools.js';
import { reembedJob } from './reembed.js';
import { crawlDueJob, crawlSourceJob, reindexJob } from './crawl/jobs.js';
import { crawlSharedJob } from './crawl/shared-crawl.js';
import { sharedPagesFor, sharedPagesRef } from './shared-pages.js';
import { orgSourcesFor, orgSourcesRef } from './org-sources.js';
import { RENDER_SECRETS } from './crawl/crawl-source.js';
import { onEmbeddingsChange, testEmbeddings, testRender } from './integrations.js';

export { search, searchScope, fuse, type SearchInput, type SearchResult, type SearchAnswer } from './search.js';
export { contentHash, checkChunks, KEY_PATTERN, type SourceInput, type ChunkInput } from './sources.js';
export { EmbedderFailed, EMBEDDING_DIMENSIONS, type Embedder } from './embeddings.js';
export { sharedPagesRef, type SharedPages, type SharedPageDecl, type SharedPagesStatus, type SharedPageStatus } from './shared-pages.js';
export { orgSourcesRef, type OrgSources, type OrgSourceText } from './org-sources.js';

export default defineModule({
  name: 'knowledge',
  title: 'Knowledge',
  description: 'The org\'s knowledge that agents search: sources of text found by words and by meaning.',
  category: 'AI',
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'knowledge:read', description: 'List and read the org\'s sources, search the org\'s and public knowledge, call knowledge.* read tools', uses: ['embeddings'] },
    { name: 'knowledge:write', description: 'Write and delete the org\'s sources', uses: ['embeddings'] },
  ],
  limits: [
    {
      key: 'knowledge.sources', kind: 'count', default: 1000, paidBy: 'org', description: 'sources (crawled, uploaded or client-written)',
      // The limits engine binds the count's org filter: the org's own rows (a shared page is no org's).
      count: (em) => em.count(KnowledgeSource, {}),
    },
    {
      key: 'knowledge.passages', kind: 'count', default: 250_000, paidBy: 'org', description: 'passages of current versions of all sources',
      // Old versions are deleted with their chunks when a new one is written: every chunk is current.
      count: (em) => em.count(KnowledgeChunk, {}),
    },
    {
      key: 'knowledge.embeddings_per_day', kind: 'rate', window: 'day', default: 500_000, paidBy: 'metered',
      description: 'texts embedded a day (knowledge and agent memory), whichever service the org uses', integrations: ['embeddings'],
    },
    { key: 'knowledge.uploads_per_day', kind: 'rate', window: 'day', default: 500, paidBy: 'org', description: 'files uploaded a day' },
    { key: 'knowledge.jobs_per_day', kind: 'rate', window: 'day', default: 200, paidBy: 'org', description: 'crawls, re-indexes and re-embeds started by an officer or token, a day' },
  ],
  integrations: [{
    key: 'embeddings',
    title: 'Embeddings',
    description: 'An OpenAI-compatible embeddings service (POST <url>/embeddings) of 1024-number vectors for the org\'s knowledge; without it the deployment\'s (EMBEDDINGS_URL) is used, or text search only.',
    secrets: [
      { name: EMBEDDINGS_SECRETS.url, label: 'Base URL (ending /v1)', readable: true },
      { name: EMBEDDINGS_SECRETS.model, label: 'Model', readable: true },
      { name: EMBEDDINGS_SECRETS.apiKey, label: 'API key', optional: true },
      { name: EMBEDDINGS_SECRETS.queryPrefix, label: 'Query prefix', optional: true, readable: true },
    ],
    // integrations.ts: embeds one short text; a save or clear starts knowledge.reembed.
    test: testEmbeddings,
    onChange: onEmbeddingsChange,
  }, {
    key: 'render',
    title: 'Page rendering',
    description: 'A page-rendering service (POST <url>/content {url} answers the HTML after the page\'s scripts ran, as browserless does) for crawls of JavaScript pages; without it the deployment\'s (RENDER_URL) is used, or a plain GET.',
    secrets: [
      { name: RENDER_SECRETS.url, label: 'Base URL', readable: true },
      { name: RENDER_SECRETS.apiKey, label: 'API key', optional: true },
    ],
    // integrations.ts: renders https://example.com/.
    test: testRender,
  }],
  // Public sources, with their versions and passages (each carries the source's flag), are read by every org.
  tables: {
    knowledge_sources: { tenancy: 'shared', public: 'public' },
    knowledge_versions: { tenancy: 'shared', public: 'public' },
    knowledge_chunks: { tenancy: 'shared', public: 'public' },
    knowledge_crawls: 'shared',
    knowledge_runs: 'org',
  },
  entities: [KnowledgeSource, KnowledgeVersion, KnowledgeChunk],
  migrations: new URL('./migrations/', import.meta.url),
  // routes/api.ts: the machine API under /api/knowledge; routes/dashboard.ts: the officer routes.
  routes: new URL('./routes/', import.meta.url),
  tools: knowledgeTools,
  jobs: [reembedJob, crawlSourceJob, crawlDueJob, reindexJob, crawlSharedJob],
  provides: [
    // The org's embedder for other modules (the agents module's profile nodes).
    provide(orgEmbeddings, orgEmbeddingsFor),
    // For the submodules module: the shared pages of a submodule, and text written as an org's own source.
    provide(sharedPagesRef, sharedPagesFor),
    provide(orgSourcesRef, orgSourcesFor),
  ],
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'knowledge', title: 'Knowledge', icon: 'book', component: 'KnowledgePage' }],
    activityTabs: [{ id: 'knowledge-runs', label: 'Knowledge runs', component: 'KnowledgeRunsTab' }],
  },
  databaseExtensions: [{ name: 'vector', without: 'knowledge search runs text only and stores no vectors' }],
  settings: KnowledgeSettingsSchema,
  // Settings the spec names outside KNOWLEDGE_*.
  claims: { settings: CLAIMED_SETTINGS },
});
