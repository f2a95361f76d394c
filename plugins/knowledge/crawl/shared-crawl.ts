// A crawl of one shared page of a submodule (spec "Crawl and search behavior": "A crawl of a shared page is not in
// an org's run log; its last error stays on the page"; "Shared pages use the deployment's page-rendering service,
// passage size and embedder"). The same steps as an org's crawl (crawl-source.ts) with the deployment's setup; the
// page is written as the submodule's (no org, no limits) and only its crawl record keeps the outcome. Rows of no
// org are read and written on the cross-org path (this job has no org), in short transactions around the fetch and
// the embedding, which run outside any.
import { Type, defineJob, type CoreServices } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { settingsOf } from '../context.js';
import { defaultEmbedder } from '../embeddings.js';
import { SUBMODULE_PATTERN, sharedOwner } from '../owner.js';
import { SHARED_WRITE_REASON } from '../sources.js';
import { attemptCrawl, deploymentRenderService, saveAttempt, type CrawlOutcome, type CrawlSetup } from './crawl-source.js';
import { findCrawl } from './records.js';

export const CRAWL_SHARED_JOB = 'knowledge.crawl_shared';

export interface SharedCrawlContext { services: CoreServices; log: FastifyBaseLogger }

/** Crawl the shared page `key` of `submodule`; null when it is gone or turned off since it was queued. Never throws for the page's failures. */
export async function crawlSharedPage(ctx: SharedCrawlContext, submodule: string, key: string, options: { force: boolean }): Promise<CrawlOutcome | null> {
  const owner = sharedOwner(ctx.services, submodule, SHARED_WRITE_REASON);
  const crawl = await findCrawl(owner, key);
  if (!crawl?.enabled) return null;
  const attempt = await attemptCrawl(crawl, async () => sharedSetup(ctx, submodule), options.force, ctx.log);
  await owner.transaction((db) => saveAttempt(db, owner, crawl.id, attempt));
  return attempt.outcome;
}

/** The deployment's passage size (KNOWLEDGE_CHUNK_CHARS, no overlap), embedder (EMBEDDINGS_URL) and renderer (RENDER_URL). */
function sharedSetup(ctx: SharedCrawlContext, submodule: string): CrawlSetup {
  const deployment = settingsOf(ctx.services);
  return {
    write: {
      submodule, services: ctx.services, deployment, origin: 'crawl',
      embedder: async () => defaultEmbedder(deployment),
      vectors: ctx.services.extensions.vector === true,
    },
    chunkChars: deployment.KNOWLEDGE_CHUNK_CHARS, overlap: 0,
    userAgent: deployment.KNOWLEDGE_USER_AGENT,
    render: deploymentRenderService(deployment),
  };
}

export const crawlSharedJob = defineJob({
  name: CRAWL_SHARED_JOB,
  description: 'Crawls one shared page of a submodule with the deployment\'s rendering service, passage size and embedder (in no org\'s run log)',
  payload: Type.Object({
    submodule: Type.String({ pattern: SUBMODULE_PATTERN.source }),
    key: Type.String({ minLength: 1, maxLength: 255 }),
    force: Type.Boolean({ default: false }),
  }, { additionalProperties: false }),
  once: (payload) => `${payload.submodule}:${payload.key}`,
  // A page's failure stays on the page, not retried: the schedule tries again.
  maxAttempts: 2,
  async handler({ payload, services, log }) {
    const outcome = await crawlSharedPage({ services, log }, payload.submodule, payload.key, { force: payload.force });
    log.info({ submodule: payload.submodule, ...outcome }, outcome ? 'knowledge shared crawl done' : 'knowledge shared crawl: the page was removed or turned off');
  },
});
