// Running a live query (spec "Live query rules"): an unknown submodule or query is 404, a bad parameter 422 with
// the accepted values, a failed fetch 502 (the message names what failed, never an address), the web query without a
// search service 503; the text is cut at SUBMODULE_QUERY_MAX_CHARS. Every fetch goes through the core's safe fetcher:
// a submodule's base URLs are the deployment's (trusted), an org's own search service is not. After an answer of an
// indexable query the job submodules.index_result adds it to the org's knowledge (when the org has knowledge on).
import { HttpError, notFound, safeFetch, SafeFetchError, type CoreServices, type EntityManager, type SafeResponse } from '@quad/core';
import { placeholders, type QueryDecl } from 'quad-submodule-kit';
import type { Catalog, Submodule } from '../catalog.js';
import { knowledgeOn, orgSources } from '../knowledge-link.js';
import { indexed } from '../records.js';
import { queryMaxChars, settingsOf } from '../settings.js';
import { INDEX_RESULT_JOB } from '../index-result.js';
import { accepted, checkParams, wireParams } from './params.js';
import { parseAnswer } from './parse.js';
import { cut, jsonToText, UnexpectedAnswer } from './text.js';
import { resultsText, searchRequestUrl, searchResults, searchServiceFor } from './search.js';

const MAX_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;

export interface QueryAnswer { submodule: string; source: string; url: string; text: string }

export interface QueryContext {
  em: EntityManager;
  services: CoreServices;
  org: { id: number; modules: Readonly<Record<string, boolean>> };
  /** The time of the query (transforms and parsers read it). Default: now. */
  now?: Date;
}

export function findSubmodule(catalog: Catalog, name: string): Submodule {
  const found = catalog.get(name);
  if (!found) throw notFound(`No submodule "${name}" (known: ${catalog.list.map((s) => s.name).join(', ') || 'none'})`, 'unknown_submodule');
  return found;
}

export function findQuery(submodule: Submodule, name: string): QueryDecl {
  const found = submodule.queries.find((q) => q.name === name);
  if (!found) {
    const known = submodule.queries.map((q) => q.name).join(', ');
    throw notFound(`${submodule.name} has no live query "${name}"${known ? ` (its queries: ${known})` : ' (it has no live queries)'}`, 'unknown_query');
  }
  return found;
}

const failed = (query: QueryDecl, why: string) => new HttpError(502, `The live query ${query.name} failed: ${why}`, 'query_failed');

/** What a fetch failure says: its kind, never the host or address. */
const fetchFailure: Record<string, string> = {
  refused: 'the address is not allowed', too_many_redirects: 'too many redirects', too_large: 'the answer is too large',
  timeout: 'no answer in time', network: 'the site could not be reached',
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET `url`, following redirects here: `trusted` (the deployment's own base URL: any address) holds only while the
 * answer stays on the URL's origin; a hop to another origin is fetched with the public-address checks, so a site the
 * deployment trusts cannot redirect a query into its private network.
 */
async function get(
  query: QueryDecl, url: URL, trusted: boolean, userAgent: string, accept: string, what = 'its site', extraHeaders: Record<string, string> = {},
): Promise<SafeResponse> {
  let current = url;
  let trust = trusted;
  for (let hop = 0; ; hop++) {
    let res: SafeResponse;
    // The declared headers go to the base's own origin only, never to a site it redirects to.
    const headers = { ...(current.origin === url.origin ? extraHeaders : {}), 'user-agent': userAgent, accept };
    try {
      res = await safeFetch(current, { headers, maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS, maxRedirects: 0, trusted: trust });
    } catch (err) {
      if (err instanceof SafeFetchError) throw failed(query, fetchFailure[err.reason] ?? 'the fetch failed');
      throw err;
    }
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location) {
      if (!res.ok) throw failed(query, `${what} answered ${res.status}`);
      return res;
    }
    if (hop >= MAX_REDIRECTS) throw failed(query, fetchFailure.too_many_redirects!);
    const next = URL.canParse(location, current) ? new URL(location, current) : null;
    if (!next) throw failed(query, `${what} redirected to an address that is not valid`);
    if (next.origin !== url.origin) trust = false;
    current = next;
  }
}

/**
 * The URL of an http query: the base, the path with its parameters, the query parameters whose values are all given
 * and not empty. `params` are the values the site takes (wireParams).
 */
export function queryUrl(submodule: Submodule, query: QueryDecl & { source: { kind: 'http' } }, params: Record<string, string>): URL {
  const fill = (template: string, encode: (v: string) => string) => template.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, n: string) => encode(params[n]!));
  for (const name of placeholders(query.source.path)) {
    // URLs resolve "." and ".." (encoded or not) as path steps: a value may not climb out of the query's path.
    if (/^(\.|%2e){1,2}$/i.test(params[name]!)) {
      throw new HttpError(422, `Parameter "${name}" is not a valid value`, 'bad_parameter', { parameter: name, accepted: accepted(query.params[name]!) });
    }
  }
  const url = new URL(`${submodule.bases[query.source.base]}${fill(query.source.path, encodeURIComponent)}`);
  for (const [name, template] of Object.entries(query.source.query ?? {})) {
    const needs = [...template.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!);
    if (needs.every((n) => params[n] !== undefined && params[n] !== '')) url.searchParams.set(name, fill(template, (v) => v));
  }
  return url;
}

const ACCEPT: Record<string, string> = {
  json: 'application/json', html: 'text/html,application/xhtml+xml', xml: 'application/rss+xml,application/atom+xml,application/xml,text/xml;q=0.9',
  text: 'text/plain,*/*;q=0.5',
};

async function answerHttp(
  ctx: QueryContext, submodule: Submodule, query: QueryDecl & { source: { kind: 'http' } }, params: Record<string, string>, now: Date,
) {
  const sent = wireParams(query, params, submodule.code, now);
  const url = queryUrl(submodule, query, sent);
  const answer = query.answer!;
  const site = submodule.siteNames[query.source.base] ?? 'its site';
  const format = answer.kind === 'parser' ? answer.format : answer.kind;
  const res = await get(query, url, true, `Quad/${ctx.services.version} (submodules)`, ACCEPT[format]!, site, query.source.headers);
  try {
    if (answer.kind === 'json') return { url: res.url, text: jsonToText(res.json(), answer) };
    if (answer.kind === 'html') return { url: res.url, text: (await import('./html-text.js')).htmlToText(res.text(), answer.select) };
    if (answer.kind === 'parser') {
      const text = await parseAnswer(submodule.code.parsers![answer.parser]!, answer.format, res.text(), { params, sent, url: res.url, now });
      return { url: res.url, text };
    }
    return { url: res.url, text: res.text().trim() };
  } catch (err) {
    if (err instanceof SyntaxError) throw failed(query, `${site} did not answer JSON`);
    if (err instanceof UnexpectedAnswer) throw failed(query, `${site} answered in a shape it cannot read (${err.message}); the site may have changed`);
    throw err;
  }
}

async function answerSearch(ctx: QueryContext, query: QueryDecl & { source: { kind: 'search' } }, params: Record<string, string>) {
  const service = await searchServiceFor(ctx.services, ctx.em, ctx.org.id);
  const words = query.source.query.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, n: string) => params[n] ?? '').trim();
  const res = await get(query, searchRequestUrl(service, words), service.trusted, `Quad/${ctx.services.version} (submodules)`, 'application/json', 'the search service');
  let body: unknown;
  try {
    body = res.json();
  } catch {
    throw failed(query, 'the search service did not answer JSON');
  }
  const results = searchResults(body);
  if (!results) throw failed(query, 'the search service answered no results list');
  // Never the search service's own address: the first result's, or none.
  return { url: results[0]?.url ?? '', text: resultsText(results) };
}

/** Run one live query for an org and, for an indexable one, start submodules.index_result. */
export async function runQuery(ctx: QueryContext, catalog: Catalog, submoduleName: string, source: string, given?: Record<string, unknown>): Promise<QueryAnswer> {
  const submodule = findSubmodule(catalog, submoduleName);
  const query = findQuery(submodule, source);
  const params = checkParams(query, given);
  const now = ctx.now ?? new Date();
  const { url, text: full } = query.source.kind === 'http'
    ? await answerHttp(ctx, submodule, query as QueryDecl & { source: { kind: 'http' } }, params, now)
    : await answerSearch(ctx, query as QueryDecl & { source: { kind: 'search' } }, params);
  const text = cut(full, queryMaxChars(settingsOf(ctx.services)));
  if (indexed(query) && orgSources(ctx.services) && knowledgeOn(ctx.services, ctx.org.modules)) {
    await ctx.services.startJob(ctx.em, INDEX_RESULT_JOB, { submodule: submodule.name, query: query.name, params, text, url }, { orgId: ctx.org.id });
  }
  return { submodule: submodule.name, source: query.name, url, text };
}
