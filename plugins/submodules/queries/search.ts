// The search service of the web query: a SearXNG-style JSON API, `GET <url>/search?q=&format=json&engines=` answering
// { results: [{ url, title, content }] }. The org's own (the `search` integration, an org-configured URL: fetched with
// the public-address checks) comes first, else the deployment's SEARCH_URL (an operator's: trusted); with neither the
// web query answers 503.
import { safeFetch, SafeFetchError, unavailable, type CoreServices, type EntityManager, type IntegrationContext } from '@quad/core';
import { settingsOf } from '../settings.js';

export const SEARCH_SECRETS = { url: 'search.url' } as const;

export interface SearchService { url: string; trusted: boolean; engines: string }

export interface SearchResult { url: string; title: string; content: string }

/** Results shown in the web query's text. */
export const RESULTS_SHOWN = 10;

export async function searchServiceFor(services: CoreServices, em: EntityManager, orgId: number): Promise<SearchService> {
  const settings = settingsOf(services);
  if (services.secrets.configured && (await services.secrets.names(em, orgId)).has(SEARCH_SECRETS.url)) {
    const own = (await services.secrets.get(em, orgId, SEARCH_SECRETS.url).catch(() => null))?.trim();
    if (own) return { url: own, trusted: false, engines: settings.SEARCH_ENGINES };
  }
  if (!settings.SEARCH_URL) {
    throw unavailable('The web query needs a search service: the deployment has no SEARCH_URL and the org connected none (Integrations tab)', 'search_unconfigured');
  }
  return { url: settings.SEARCH_URL, trusted: true, engines: settings.SEARCH_ENGINES };
}

export function searchRequestUrl(service: SearchService, words: string): URL {
  const url = new URL(`${service.url.replace(/(?<!\/)\/+$/, '')}/search`);
  url.searchParams.set('q', words);
  url.searchParams.set('format', 'json');
  url.searchParams.set('engines', service.engines);
  return url;
}

/** The results of an answer, or null when it is not the API's shape. */
export function searchResults(body: unknown): SearchResult[] | null {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return null;
  return results.flatMap((r) => {
    const { url, title, content } = (r ?? {}) as Record<string, unknown>;
    return typeof url === 'string' && /^https?:\/\//.test(url)
      ? [{ url, title: typeof title === 'string' ? title.trim() : '', content: typeof content === 'string' ? content.replace(/\s+/g, ' ').trim() : '' }]
      : [];
  });
}

export function resultsText(results: SearchResult[]): string {
  if (!results.length) return 'No results.';
  return results.slice(0, RESULTS_SHOWN).map((r) => [r.title || r.url, r.url, r.content].filter(Boolean).join('\n')).join('\n\n');
}

/** Each request of the connection test: well inside the core's deadline for the whole test (20 s). */
const TEST_TIMEOUT_MS = 15_000;
const TEST_WORDS = 'quad';

/**
 * The `search` integration's connection test (Explore → Integrations, Test): one query to the org's search service,
 * as the web query sends it (through the safe fetcher's public-address checks), whose answer must be the API's.
 */
export async function testSearch({ services, values }: IntegrationContext): Promise<string> {
  const service: SearchService = { url: values[SEARCH_SECRETS.url]!, trusted: false, engines: settingsOf(services).SEARCH_ENGINES };
  let host = 'its URL';
  try { host = new URL(service.url).host; } catch { /* the fetch below says the URL is not valid */ }
  const where = `the search service at ${host}`;
  let res;
  try {
    res = await safeFetch(searchRequestUrl(service, TEST_WORDS), {
      headers: { accept: 'application/json', 'user-agent': `Quad/${services.version} (submodules)` }, timeoutMs: TEST_TIMEOUT_MS, maxRedirects: 0, maxBytes: 2 * 1024 * 1024,
    });
  } catch (err) {
    if (err instanceof TypeError) throw new Error('The search URL is not valid: it should look like https://search.example.org');
    if (!(err instanceof SafeFetchError)) throw err;
    if (err.reason === 'refused') throw new Error(`The search URL cannot be used (${err.message}): it should be the service's public http(s) address`);
    if (err.reason === 'timeout') throw new Error(`${where} did not answer within ${TEST_TIMEOUT_MS / 1000} s; try again later`);
    if (err.reason === 'network') throw new Error(`${where} cannot be reached (${err.message}): check the URL`);
    throw new Error(`${where} failed (${err.message})`);
  }
  if (res.status === 403) throw new Error(`403 from ${where}: its JSON format may be off (SearXNG: add json to search.formats in settings.yml)`);
  if (res.status === 404) throw new Error(`404 from ${where}: check the URL (GET <url>/search?q=…&format=json should answer)`);
  if (res.status === 429) throw new Error(`429 from ${where}: it is rate limiting; try again later`);
  if (!res.ok) throw new Error(`${res.status} from ${where}${res.status >= 500 ? '; try again later' : ''}`);
  let body: unknown;
  try { body = res.json(); } catch { throw new Error(`${where} did not answer JSON: is it a SearXNG-style search service?`); }
  const results = searchResults(body);
  if (!results) throw new Error(`${where} answered no results list: is it a SearXNG-style search service?`);
  return `${where.charAt(0).toUpperCase()}${where.slice(1)} answered a test query with ${results.length} result${results.length === 1 ? '' : 's'}`;
}
