// The search service of the web query: a SearXNG-style JSON API, `GET <url>/search?q=&format=json&engines=` answering
// { results: [{ url, title, content }] }. The org's own (the `search` integration, an org-configured URL: fetched with
// the public-address checks) comes first, else the deployment's SEARCH_URL (an operator's: trusted); with neither the
// web query answers 503.
import { unavailable, type CoreServices, type EntityManager } from '@quad/core';
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
  const url = new URL(`${service.url.replace(/\/+$/, '')}/search`);
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
