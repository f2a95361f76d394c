// Fake GitHub REST API for tests: a real HTTP server on 127.0.0.1 (random port) answering
// GET /repos/{owner}/{repo}/actions/runs like GitHub does: public repos for everyone, private repos only with a
// valid token (404 otherwise, as GitHub hides them), 401 for a token it does not know, 301 for a renamed repo; and
// GET /rate_limit (the token check of the integration's test: 5000 an hour with the token, 60 without).
// It records every request and can be made to fail. Test code, not production code.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface FakeRun {
  id: number;
  name: string;
  head_branch: string;
  event: string;
  status: string;
  conclusion: string | null;
  display_title: string;
  html_url: string;
  run_started_at: string;
}

export interface RecordedGitHubRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** `none`, `token` (a token the fake knows) or `invalid`. */
  auth: 'none' | 'token' | 'invalid';
  headers: IncomingHttpHeaders;
}

export interface FakeGitHub {
  /** http://127.0.0.1:PORT — use as GITHUB_API_URL. */
  readonly url: string;
  /** A token that reads every private repo. */
  readonly token: string;
  readonly requests: RecordedGitHubRequest[];
  /** Add a repo `owner/name` with runs (newest first); fields left out get defaults. */
  addRepo(fullName: string, options?: { private?: boolean; runs?: Partial<FakeRun>[] }): void;
  setRuns(fullName: string, runs: Partial<FakeRun>[]): void;
  /** The old name answers 301 to the new one from now on. */
  renameRepo(from: string, to: string): void;
  /** Requests for one repo's runs. */
  runRequests(fullName: string): RecordedGitHubRequest[];
  /** While on, every request is answered 503. */
  down(on: boolean): void;
  /** The next `count` requests are answered 403 with X-RateLimit-Remaining: 0. */
  rateLimitNext(count?: number): void;
  close(): Promise<void>;
}

let nextRunId = 9_000_000;

export async function startFakeGitHub(options: { token?: string } = {}): Promise<FakeGitHub> {
  const token = options.token ?? `ghp_${randomBytes(18).toString('hex')}`;
  const repos = new Map<string, { name: string; private: boolean; runs: FakeRun[] }>();
  const renamed = new Map<string, string>();
  const requests: RecordedGitHubRequest[] = [];
  let isDown = false;
  let rateLimited = 0;

  const run = (repo: string, r: Partial<FakeRun>, i: number): FakeRun => {
    const id = r.id ?? nextRunId++;
    return {
      id, name: r.name ?? 'CI', head_branch: r.head_branch ?? 'main', event: r.event ?? 'push', status: r.status ?? 'completed',
      conclusion: r.conclusion === undefined ? 'success' : r.conclusion, display_title: r.display_title ?? `Commit ${i + 1}`,
      html_url: r.html_url ?? `https://github.com/${repo}/actions/runs/${id}`,
      run_started_at: r.run_started_at ?? new Date(Date.now() - i * 60_000).toISOString(),
    };
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const header = req.headers.authorization ?? '';
    const given = /^(?:Bearer|token) (.+)$/.exec(header)?.[1];
    const auth: RecordedGitHubRequest['auth'] = !header ? 'none' : given === token ? 'token' : 'invalid';
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query, auth, headers: req.headers });
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { ...(body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' }), ...headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (isDown) return send(503, { message: 'Service Unavailable' });
    if (rateLimited > 0) {
      rateLimited--;
      return send(403, { message: 'API rate limit exceeded' }, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Limit': '60' });
    }
    if (auth === 'invalid') return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (url.pathname === '/rate_limit' && req.method === 'GET') {
      const core = auth === 'token' ? { limit: 5000, used: 1, remaining: 4999 } : { limit: 60, used: 1, remaining: 59 };
      const rate = { ...core, reset: Math.floor(Date.now() / 1000) + 3600, resource: 'core' };
      return send(200, { resources: { core: rate }, rate });
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return send(404, { message: 'Not Found' });
    const key = `${m[1]}/${m[2]}`.toLowerCase();
    const moved = renamed.get(key);
    if (moved) return send(301, { message: 'Moved Permanently', url: `/repos/${moved}/actions/runs` }, { Location: `/repos/${moved}/actions/runs${url.search}` });
    const repo = repos.get(key);
    if (!repo || (repo.private && auth !== 'token')) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const perPage = Math.min(100, Math.max(1, Number(query.per_page ?? 30) || 30));
    return send(200, { total_count: repo.runs.length, workflow_runs: repo.runs.slice(0, perPage) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url, token, requests,
    addRepo(fullName, opts = {}) {
      repos.set(fullName.toLowerCase(), { name: fullName, private: opts.private ?? false, runs: (opts.runs ?? [{}]).map((r, i) => run(fullName, r, i)) });
    },
    setRuns(fullName, runs) {
      const repo = repos.get(fullName.toLowerCase());
      if (!repo) throw new Error(`fake github: no repo ${fullName}`);
      repo.runs = runs.map((r, i) => run(fullName, r, i));
    },
    renameRepo(from, to) {
      const repo = repos.get(from.toLowerCase());
      if (repo) {
        repos.delete(from.toLowerCase());
        repos.set(to.toLowerCase(), { ...repo, name: to });
      }
      renamed.set(from.toLowerCase(), to);
    },
    runRequests(fullName) {
      const path = `/repos/${fullName}/actions/runs`.toLowerCase();
      return requests.filter((r) => r.path.toLowerCase() === path);
    },
    down(on) {
      isDown = on;
    },
    rateLimitNext(count = 1) {
      rateLimited = count;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
