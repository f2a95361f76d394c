// Getting one page for a crawl (spec "Crawl and search behavior", steps 1 to 3): the URL must be http(s) on public
// addresses, robots.txt must allow KNOWLEDGE_USER_AGENT, and the page comes from the page-rendering service when
// there is one (the org's, else RENDER_URL), else from a plain GET of up to 10 MB. Every request to a user-given or
// org-configured URL goes through the core's safe fetcher; only the deployment's RENDER_URL is trusted.
import { assertPublicUrl, safeFetch, SafeFetchError, type SafeResponse } from '@quad/core';
import robotsParserModule from 'robots-parser';

// CommonJS: its module.exports is the parser, which TypeScript's NodeNext reading of its typings calls `.default`.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** A crawl that did not get a page; the message is for the officer (it is kept in last_error and the run log). */
export class CrawlFailed extends Error {
  override name = 'CrawlFailed';
}

/** A page-rendering service: `POST <url>/content {url}` answers the page's HTML after its scripts ran (browserless's API). */
export interface RenderService {
  url: string;
  apiKey: string | null;
  /** The deployment's RENDER_URL (an operator's), not an org's. */
  trusted: boolean;
}

export interface FetchedPage {
  body: Buffer;
  /** Lower-case media type without parameters, e.g. `text/html`. */
  mediaType: string;
  /** The body as text in its charset (HTML and plain text). */
  text: () => string;
  rendered: boolean;
}

export const PAGE_MAX_BYTES = 10 * 1024 * 1024;
const ROBOTS_MAX_BYTES = 512 * 1024;
const ROBOTS_TIMEOUT_MS = 10_000;
const PAGE_TIMEOUT_MS = 30_000;
const RENDER_TIMEOUT_MS = 60_000;

/** Steps 1 to 3 for one URL. Throws CrawlFailed. */
export async function fetchPage(rawUrl: string, options: { userAgent: string; render: RenderService | null }): Promise<FetchedPage> {
  const url = await checked(() => assertPublicUrl(rawUrl));
  await robotsAllow(url, options.userAgent);
  return options.render ? renderPage(url, options.render) : getPage(url, options.userAgent);
}

/**
 * RFC 9309: a robots.txt that is missing (4xx) allows everything; one that cannot be read (5xx, network) allows
 * nothing for now, so the crawl fails and is tried again on schedule.
 */
async function robotsAllow(url: URL, userAgent: string): Promise<void> {
  const robotsUrl = new URL('/robots.txt', url.origin);
  const res = await checked(() => safeFetch(robotsUrl, { headers: { 'user-agent': userAgent }, maxBytes: ROBOTS_MAX_BYTES, timeoutMs: ROBOTS_TIMEOUT_MS }), 'robots.txt');
  if (res.status >= 400 && res.status < 500) return;
  if (!res.ok) throw new CrawlFailed(`robots.txt of ${url.host} answered ${res.status}; the page is not fetched until it can be read`);
  const robots = robotsParser(robotsUrl.href, res.text());
  if (robots.isAllowed(url.href, userAgent) === false) {
    throw new CrawlFailed(`robots.txt of ${url.host} does not allow ${productToken(userAgent)} to fetch ${url.pathname}`);
  }
}

/** `QuadBot/0.1 (+https://…)` → `QuadBot`: the token robots.txt groups name. */
const productToken = (userAgent: string) => userAgent.split(/[\s/]/)[0] || userAgent;

async function getPage(url: URL, userAgent: string): Promise<FetchedPage> {
  const res = await checked(() => safeFetch(url, {
    headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5' },
    maxBytes: PAGE_MAX_BYTES, timeoutMs: PAGE_TIMEOUT_MS,
  }));
  if (!res.ok) throw new CrawlFailed(`${url.host} answered ${res.status} for ${url.pathname}`);
  return page(res, false);
}

async function renderPage(url: URL, render: RenderService): Promise<FetchedPage> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/html' };
  if (render.apiKey) headers.authorization = `Bearer ${render.apiKey}`;
  const endpoint = `${render.url.replace(/(?<!\/)\/+$/, '')}/content`;
  const res = await checked(() => safeFetch(endpoint, {
    method: 'POST', headers, body: JSON.stringify({ url: url.href }), maxBytes: PAGE_MAX_BYTES, timeoutMs: RENDER_TIMEOUT_MS,
    maxRedirects: 0, trusted: render.trusted,
  }), 'the page-rendering service');
  if (res.status === 401 || res.status === 403) throw new CrawlFailed(`The page-rendering service answered ${res.status}: check its key`);
  if (!res.ok) throw new CrawlFailed(`The page-rendering service answered ${res.status} for ${url.href}`);
  const fetched = page(res, true);
  if (fetched.mediaType !== 'text/html') throw new CrawlFailed(`The page-rendering service answered ${fetched.mediaType || 'no content type'}, not HTML`);
  return fetched;
}

function page(res: SafeResponse, rendered: boolean): FetchedPage {
  const mediaType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return { body: res.body, mediaType, text: () => res.text(), rendered };
}

/** A SafeFetchError in the officer's words (it names hosts, never resolved addresses). */
async function checked<T>(step: () => Promise<T>, what?: string): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof SafeFetchError) throw new CrawlFailed(what ? `${what}: ${err.message}` : err.message);
    throw err;
  }
}
