// One crawl of one source (spec "Crawl and search behavior", steps 1 to 6): fetch the page (page.ts), stop when
// its hash is unchanged, extract the main text, refuse a text under half of the last one, split it into passages
// with the title on each, and write the new version (embedded when the org has an embedder) through writeSource.
// Whatever happens is kept: the crawl record's last_attempt_at, last_error, page hash; a run-log row; and a problem
// notification while the page fails, cleared when it works again. A failure never touches the source's chunks.
import { createHash } from 'node:crypto';
import { HttpError, type CoreServices, type EntityManager, type OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { knowledgeContext } from '../context.js';
import { extractDocument, ExtractFailed } from '../extract/index.js';
import { splitPassages } from '../extract/passages.js';
import { recordRun } from '../runs.js';
import { MAX_CHUNKS, writeSource } from '../sources.js';
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
  const { em, org, services } = ctx;
  const crawl = await findCrawl(em, org.id, key);
  if (!crawl) return null;
  const startedAt = new Date();
  let outcome: CrawlOutcome;
  let pageState: { hash: string; textChars: number | null } | null = null;
  try {
    const result = await crawlOnce(ctx, crawl, options.force);
    outcome = { key, changed: result.changed, passages: result.passages, error: null };
    pageState = { hash: result.hash, textChars: result.textChars };
  } catch (err) {
    outcome = { key, changed: false, passages: 0, error: failureMessage(err) };
    if (!isExpected(err)) ctx.log.error({ err, key }, 'knowledge crawl failed unexpectedly');
  }
  await em.transactional(async (tx) => {
    await tx.execute(
      `update knowledge_crawls set last_attempt_at = ?, last_error = ?,
         -- every attempt (the schedule's, a Run now, a reindex) counts the next one from now
         next_at = now() + make_interval(hours => fetch_every_hours),
         last_success_at = case when ?::boolean then now() else last_success_at end,
         page_hash = coalesce(?, page_hash), text_chars = coalesce(?, text_chars)
       where id = ?`,
      [startedAt, outcome.error, outcome.error === null, pageState?.hash ?? null, pageState?.textChars ?? null, crawl.id]);
    await recordRun(tx, org.id, { sourceKey: key, kind: 'crawl', startedAt, changed: outcome.changed, passages: outcome.passages, error: outcome.error });
    if (outcome.error === null) {
      await services.clearProblem(tx, org.id, crawlProblemKey(key));
    } else {
      await services.raiseProblem(tx, {
        orgId: org.id, key: crawlProblemKey(key), kind: 'knowledge.source_unfetchable',
        title: `Knowledge source "${key}" could not be fetched`, message: outcome.error, data: { key, url: crawl.url },
      });
    }
  });
  return outcome;
}

interface Crawled { changed: boolean; passages: number; hash: string; textChars: number | null }

async function crawlOnce(ctx: CrawlContext, crawl: CrawlRow, force: boolean): Promise<Crawled> {
  const knowledge = await knowledgeContext(ctx.services, ctx.em, ctx.org);
  const page = await fetchPage(crawl.url, { userAgent: knowledge.deployment.KNOWLEDGE_USER_AGENT, render: await renderServiceFor(ctx, knowledge.deployment) });
  const hash = `sha256:${createHash('sha256').update(page.body).digest('hex')}`;
  const hasSource = (await ctx.em.execute('select 1 from knowledge_sources where organization_id = ? and key = ?', [ctx.org.id, crawl.key])).length > 0;
  if (!force && hasSource && hash === crawl.page_hash) return { changed: false, passages: 0, hash, textChars: null };

  const { title: pageTitle, text } = await pageText(page);
  const last = crawl.text_chars ?? 0;
  if (!force && hasSource && last >= HALF_RULE_MIN_CHARS && text.length < last / 2) {
    throw new CrawlFailed(`The page's text shrank from ${last} to ${text.length} characters (under half): the last version is kept; run the crawl with force to accept it`);
  }
  const title = crawl.title || pageTitle || crawl.url;
  const { chunk_chars: chunkChars, chunk_overlap: overlap } = knowledge.settings;
  const passages = splitPassages(text, { chunkChars, overlap, title });
  if (passages.length > MAX_CHUNKS) {
    throw new CrawlFailed(`The page splits into ${passages.length} passages; a source holds up to ${MAX_CHUNKS}: raise chunk_chars in the knowledge settings`);
  }
  const written = await writeSource({ ...knowledge, origin: 'crawl' }, crawl.key, {
    category: crawl.category, title, url: crawl.url, public: crawl.public,
    // The same text at the same passage size is the same version, whatever the page's markup.
    content_hash: `crawl:${createHash('sha256').update(`${chunkChars}\0${overlap}\0${title}\0${text}`).digest('hex')}`,
    chunks: passages.map((content, ordinal) => ({ ordinal, content })),
  });
  // The run log counts passages written: none when the text was the same version.
  return { changed: written.changed, passages: written.changed ? passages.length : 0, hash, textChars: text.length };
}

/** The page's title and main text by its media type; HTML decoded with its charset. */
async function pageText(page: FetchedPage): Promise<{ title: string; text: string }> {
  if (page.mediaType === 'text/html' || page.mediaType === 'application/xhtml+xml' || page.mediaType === '') {
    // Loaded on first use, like the upload readers: cheerio costs the server's start nothing.
    const { htmlText } = await import('../extract/html.js');
    const { title, text } = htmlText(page.text());
    if (!text.trim()) throw new CrawlFailed(page.rendered ? 'The rendered page has no text' : 'The page has no text (if it is built by JavaScript, set a page-rendering service)');
    return { title, text };
  }
  const name = { 'text/plain': 'page.txt', 'text/markdown': 'page.md', 'text/csv': 'page.csv', 'application/pdf': 'page.pdf' }[page.mediaType];
  if (!name) throw new CrawlFailed(`The page is ${page.mediaType}, which is not read (HTML, plain text, Markdown, CSV and PDF are)`);
  return extractDocument(name, page.body);
}

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
  return deployment.RENDER_URL ? { url: deployment.RENDER_URL, apiKey: deployment.RENDER_API_KEY ?? null, trusted: true } : null;
}

// Limits (409 knowledge.sources / knowledge.passages, 429), the publisher rule (403) and the embedder (502) are
// HttpErrors with messages for officers, like the page's own failures.
const isExpected = (err: unknown) => err instanceof CrawlFailed || err instanceof ExtractFailed || err instanceof HttpError;

function failureMessage(err: unknown): string {
  return isExpected(err) ? (err as Error).message : 'The crawl failed unexpectedly; it is tried again on schedule';
}
