// A fake search service for the submodules' web query: SearXNG's JSON API on OUTSIDE_HOST (random port),
// `GET /search?q=&format=json&engines=` → { query, number_of_results, results: [{ url, title, content, engine }] }.
// Without `format=json` it answers 403 as SearXNG does when the JSON format is not enabled. A test can set the results,
// make it fail (a status, a body that is not JSON, no answer) and read the requests. Test code, not production code.
import { createServer, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export interface FakeSearchResult { url: string; title: string; content: string }
export type FakeSearchFailure = { status: number } | 'garbage' | 'hang';
export interface FakeSearchRequest { path: string; q: string | null; format: string | null; engines: string | null }

export interface FakeSearch {
  /** `http://127.0.0.2:PORT`: the service's base URL (SEARCH_URL). */
  readonly url: string;
  /** Answer these results from now on; null: the default, three results made from the query. */
  setResults(results: FakeSearchResult[] | null): void;
  fail(failure: FakeSearchFailure | null): void;
  readonly requests: FakeSearchRequest[];
  close(): Promise<void>;
}

const defaultResults = (q: string): FakeSearchResult[] => [1, 2, 3].map((i) => ({
  url: `https://result${i}.example/${encodeURIComponent(q.toLowerCase().replace(/\s+/g, '-'))}`,
  title: `Result ${i} for ${q}`,
  content: `Snippet ${i} about ${q}.`,
}));

export async function startFakeSearch(t?: { teardown(fn: () => unknown): void }): Promise<FakeSearch> {
  let results: FakeSearchResult[] | null = null;
  let failure: FakeSearchFailure | null = null;
  const requests: FakeSearchRequest[] = [];
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://fake');
    const q = url.searchParams.get('q');
    requests.push({ path: url.pathname, q, format: url.searchParams.get('format'), engines: url.searchParams.get('engines') });
    if (failure === 'hang') return;
    if (failure === 'garbage') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end('<html>Too many requests</html>'); }
    if (failure) return json(res, failure.status, { error: 'fake failure' });
    if (url.pathname !== '/search') return json(res, 404, { error: 'not found' });
    if (url.searchParams.get('format') !== 'json') { res.writeHead(403); return res.end('Forbidden'); }
    const answer = (results ?? defaultResults(q ?? '')).map((r) => ({ ...r, engine: 'fake' }));
    json(res, 200, { query: q, number_of_results: answer.length, results: answer, answers: [], suggestions: [] });
  });
  const { origin, close } = await listenOutside(server, t);
  return {
    url: origin,
    setResults: (r) => { results = r ? [...r] : null; },
    fail: (f) => { failure = f; },
    requests,
    close,
  };
}
