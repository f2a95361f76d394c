// One crawl of one source (spec "Crawl and search behavior", steps 1 to 6): fetch the page (page.ts), stop when
// its hash is unchanged, extract the main text, refuse a text under half of the last one, split it into passages
// with the title on each, and write the new version (embedded when there is an embedder) through writeSource.
// The steps (attemptCrawl, saveAttempt) serve an org's crawl records and the shared pages of submodules alike
// (shared-crawl.ts); what differs is the setup (whose settings, embedder and renderer) and what is kept besides the
// record. For an org's crawl: the crawl record's last_attempt_at, last_error, page hash; a run-log row; and a problem
// notification while the page fails, cleared when it works again. A failure never touches the source's chunks.
import { createHash } from 'node:crypto';
import { HttpError, orgDb, type CoreServices, type EntityManager, type OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { knowledgeContext } from '../context.js';
import { extractDocument, extractHtml, ExtractFailed } from '../extract/index.js';
import { splitPassages } from '../extract/passages.js';
import { recordRun } from '../runs.js';
import { MAX_CHUNKS, ownerDbOf, writeSource, type WriteContext } from '../sources.js';
import { orgOwner, type Handle, type OwnerDb } from '../owner.js';
import type { KnowledgeSettings } from '../settings.js';
import { CrawlFailed, fetchPage, type FetchedPage, type RenderService } from './page.js';
import { findCrawl, type CrawlRow } from './records.js';

/** Below this many characters the last text is too short for the half-size rule to mean anything. */
export const HALF_RULE_MIN_CHARS = 500;

export const RENDER_SECRETS = { url: 'render.url', apiKey: 'render.api_key' } as const;

export const crawlProblemKey = (key: string) => `knowledge.crawl:${key}`;

export interface CrawlOutcome {
  key: string;
  /** Did the source get a new version? */
  changed: boolean;
  passages: number;
  error: string | null;
}

export interface CrawlContext { em: EntityManager; org: OrgSnapshot; services: CoreServices; log: FastifyBaseLogger }

/** Crawl the org's source `key`; null when it has no crawl record (deleted since it was queued). Never throws for the page's failures. */
export async function crawlSource(ctx: CrawlContext, key: string, options: { force: boolean }): Promise<CrawlOutcome | null> {
  const { org, services } = ctx;
  const db = orgDb(ctx.em);
  const owner = orgOwner(db);
  const crawl = await findCrawl(owner, key);
  if (!crawl) return null;
  const attempt = await attemptCrawl(crawl, () => orgSetup(ctx), options.force, ctx.log);
  const { outcome } = attempt;
  await db.transaction(async (tx) => {
    await saveAttempt(tx, owner, crawl.id, attempt);
    await recordRun(tx, { sourceKey: key, kind: 'crawl', startedAt: attempt.startedAt, changed: outcome.changed, passages: outcome.passages, error: outcome.error });
    if (outcome.error === null) {
      await services.clearProblem(tx.em, org.id, crawlProblemKey(key));
    } else {
      await services.raiseProblem(tx.em, {
        orgId: org.id, key: crawlProblemKey(key), kind: 'knowledge.source_unfetchable',
        title: `Knowledge source "${key}" could not be fetched`, message: outcome.error, data: { key, url: crawl.url },
      });
    }
  });
  return outcome;
}

/** The org's passage size, embedder and page-rendering service; the source is written as the org's. */
async function orgSetup(ctx: CrawlContext): Promise<CrawlSetup> {
  const knowledge = await knowledgeContext(ctx.services, ctx.em, ctx.org);
  return {
    write: { ...knowledge, origin: 'crawl' },
    chunkChars: knowledge.settings.chunk_chars, overlap: knowledge.settings.chunk_overlap,
    userAgent: knowledge.deployment.KNOWLEDGE_USER_AGENT,
    render: await renderServiceFor(ctx, knowledge.deployment),
  };
}

/**
 * What a crawl takes from the owner of its record: where the source is written (the org's, or a submodule's shared
 * page with the deployment's embedder), the passage size and the page-rendering service.
 */
export interface CrawlSetup {
  write: WriteContext;
  chunkChars: number;
  overlap: number;
  userAgent: string;
  render: RenderService | null;
}

export interface CrawlAttempt {
  outcome: CrawlOutcome;
  startedAt: Date;
  /** The page fetched and the size of its text (null when the text was not read: an unchanged page); null on failure. */
  page: { hash: string; textChars: number | null } | null;
}

/**
 * Steps 1 to 6 on one crawl record, whoever owns it, with the failure caught: its message is for the officer (or the
 * superadmin, for a shared page); only an unexpected failure is logged.
 */
export async function attemptCrawl(crawl: CrawlRow, setup: () => Promise<CrawlSetup>, force: boolean, log: FastifyBaseLogger): Promise<CrawlAttempt> {
  const startedAt = new Date();
  try {
    const result = await crawlPage(await setup(), crawl, force);
    return {
      startedAt, outcome: { key: crawl.key, changed: result.changed, passages: result.passages, error: null },
      page: { hash: result.hash, textChars: result.textChars },
    };
  } catch (err) {
    if (!isExpected(err)) log.error({ err, key: crawl.key }, 'knowledge crawl failed unexpectedly');
    return { startedAt, outcome: { key: crawl.key, changed: false, passages: 0, error: failureMessage(err) }, page: null };
  }
}

/** Keep an attempt on its crawl record (of `owner`, on its handle `db`): when, its error (the last error stays until a crawl works), the page's hash. */
export async function saveAttempt(db: Handle, owner: OwnerDb, crawlId: number, attempt: CrawlAttempt): Promise<void> {
  const { outcome, page } = attempt;
  await db.run`
    update knowledge_crawls set last_attempt_at = ${attempt.startedAt}::timestamptz, last_error = ${outcome.error}::text,
      -- every attempt (the schedule's, a Run now, a reindex) counts the next one from now
      next_at = now() + make_interval(hours => fetch_every_hours),
      last_success_at = case when ${outcome.error === null}::boolean then now() else last_success_at end,
      page_hash = coalesce(${page?.hash ?? null}::text, page_hash), text_chars = coalesce(${page?.textChars ?? null}::int, text_chars)
    where ${owner.owns()} and id = ${crawlId}`;
}

interface Crawled { changed: boolean; passages: number; hash: string; textChars: number | null }

async function crawlPage(setup: CrawlSetup, crawl: CrawlRow, force: boolean): Promise<Crawled> {
  const { write } = setup;
  const page = await fetchPage(crawl.url, { userAgent: setup.userAgent, render: setup.render });
  const hash = `sha256:${createHash('sha256').update(page.body).digest('hex')}`;
  const owner = ownerDbOf(write);
  const hasSource = (await owner.read((db) => db.one`select 1 from knowledge_sources s where ${owner.owns('s')} and s.key = ${crawl.key}`)) !== null;
  if (!force && hasSource && hash === crawl.page_hash) return { changed: false, passages: 0, hash, textChars: null };

  const { title: pageTitle, text } = await pageText(page, MAX_CHUNKS * setup.chunkChars);
  const last = crawl.text_chars ?? 0;
  if (!force && hasSource && last >= HALF_RULE_MIN_CHARS && text.length < last / 2) {
    throw new CrawlFailed(`The page's text shrank from ${last} to ${text.length} characters (under half): the last version is kept; run the crawl with force to accept it`);
  }
  const title = crawl.title || pageTitle || crawl.url;
  const { chunkChars, overlap } = setup;
  const passages = splitPassages(text, { chunkChars, overlap, title });
  if (passages.length > MAX_CHUNKS) {
    throw new CrawlFailed(`The page splits into ${passages.length} passages; a source holds up to ${MAX_CHUNKS}: raise chunk_chars in the knowledge settings`);
  }
  const written = await writeSource({ ...write, chunkOverlap: overlap }, crawl.key, {
    category: crawl.category, title, url: crawl.url, public: crawl.public,
    // The same text at the same passage size is the same version, whatever the page's markup.
    content_hash: `crawl:${createHash('sha256').update(`${chunkChars}\0${overlap}\0${title}\0${text}`).digest('hex')}`,
    chunks: passages.map((content, ordinal) => ({ ordinal, content })),
  });
  // The run log counts passages written: none when the text was the same version.
  return { changed: written.changed, passages: written.changed ? passages.length : 0, hash, textChars: text.length };
}

/**
 * The page's title and main text by its media type (HTML decoded with its charset), read in a reader thread like
 * an upload (extract/), the text capped at `maxChars`.
 */
async function pageText(page: FetchedPage, maxChars: number): Promise<{ title: string; text: string }> {
  if (page.mediaType === 'text/html' || page.mediaType === 'application/xhtml+xml' || page.mediaType === '') {
    const { title, text } = await extractHtml(page.text(), { maxChars });
    if (!text.trim()) throw new CrawlFailed(page.rendered ? 'The rendered page has no text' : 'The page has no text (if it is built by JavaScript, set a page-rendering service)');
    return { title, text };
  }
  const name = { 'text/plain': 'page.txt', 'text/markdown': 'page.md', 'text/csv': 'page.csv', 'application/pdf': 'page.pdf' }[page.mediaType];
  if (!name) throw new CrawlFailed(`The page is ${page.mediaType}, which is not read (HTML, plain text, Markdown, CSV and PDF are)`);
  return extractDocument(name, page.body, { maxChars, subject: 'page' });
}

/** The deployment's page-rendering service (RENDER_URL, an operator's), or none (a plain GET). */
export const deploymentRenderService = (deployment: KnowledgeSettings): RenderService | null =>
  (deployment.RENDER_URL ? { url: deployment.RENDER_URL, apiKey: deployment.RENDER_API_KEY ?? null, trusted: true } : null);

/** The org's own rendering service (Integrations), else RENDER_URL, else none (a plain GET). */
async function renderServiceFor(ctx: CrawlContext, deployment: KnowledgeSettings): Promise<RenderService | null> {
  const { services, em, org } = ctx;
  if (services.secrets.configured) {
    const names = await services.secrets.names(em, org.id);
    if (names.has(RENDER_SECRETS.url)) {
      const url = await services.secrets.get(em, org.id, RENDER_SECRETS.url).catch(() => null);
      if (!url) throw new CrawlFailed('The org\'s page-rendering secrets cannot be read (was SECRETS_KEY changed?): set them again');
      const apiKey = names.has(RENDER_SECRETS.apiKey) ? await services.secrets.get(em, org.id, RENDER_SECRETS.apiKey).catch(() => null) : null;
      return { url, apiKey, trusted: false };
    }
  }
  return deploymentRenderService(deployment);
}

// Limits (409 knowledge.sources / knowledge.passages, 429), the publisher rule (403) and the embedder (502) are
// HttpErrors with messages for officers, like the page's own failures.
const isExpected = (err: unknown) => err instanceof CrawlFailed || err instanceof ExtractFailed || err instanceof HttpError;

function failureMessage(err: unknown): string {
  return isExpected(err) ? (err as Error).message : 'The crawl failed unexpectedly; it is tried again on schedule';
}
