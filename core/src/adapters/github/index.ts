// GitHub REST client: the latest GitHub Actions runs of a repository (dashboard CI) and the token check of the
// integration's connection test (GET /rate_limit). Base URL is the setting
// GITHUB_API_URL, so tests point it at the fake in test/fakes/github. Redirects are never followed (a renamed
// repository answers 301: reported as `moved`), and the token never appears in a message.
import { GitHubRequestError, GitHubUnavailable } from './errors.js';

export { GitHubRequestError, GitHubUnavailable, type GitHubRefusal } from './errors.js';

export interface GitHubSettings {
  /** REST base, e.g. https://api.github.com (GITHUB_API_URL). */
  apiUrl: string;
  /** Per call; default 5000. */
  timeoutMs?: number;
}

/** One workflow run, trimmed to what the dashboard shows. */
export interface WorkflowRun {
  name: string | null;
  branch: string | null;
  event: string | null;
  /** queued, in_progress, completed… */
  status: string | null;
  /** success, failure, cancelled… (null while running) */
  conclusion: string | null;
  title: string | null;
  url: string | null;
  started_at: string | null;
}

/** `owner/name` as GitHub allows them (owner: letters, digits, -; name: letters, digits, ., -, _). */
export const REPO_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$';
const REPO = new RegExp(REPO_PATTERN);

export function isRepoName(repo: string): boolean {
  return REPO.test(repo) && !repo.endsWith('/.') && !repo.endsWith('/..');
}

const USER_AGENT = 'quad-dashboard';

export class GitHubClient {
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  constructor(settings: GitHubSettings) {
    this.apiUrl = settings.apiUrl.replace(/(?<!\/)\/+$/, '');
    this.timeoutMs = settings.timeoutMs ?? 5000;
  }

  /**
   * GET /rate_limit with `token` (Explore's connection test): GitHub checks the token and counts nothing. Answers the
   * core quota; GitHubRequestError `bad_credentials` when the token is refused.
   */
  async rateLimit(token: string): Promise<{ limit: number; remaining: number }> {
    const label = 'GET /rate_limit';
    const res = await this.get('/rate_limit', token, label);
    if (res.status === 401) throw new GitHubRequestError(`GitHub answered 401 to ${label}: the token was refused`, 401, 'bad_credentials');
    if (res.status === 403) throw new GitHubRequestError(`GitHub answered 403 to ${label}: the token may not be used here`, 403, 'forbidden');
    if (res.status >= 500) throw new GitHubUnavailable(`GitHub answered ${res.status} to ${label}`);
    if (res.status !== 200) throw new GitHubRequestError(`GitHub answered ${res.status} to ${label}`, res.status, 'invalid');
    let body: unknown;
    try { body = JSON.parse(res.text); } catch { throw new GitHubUnavailable(`GitHub sent an unreadable answer to ${label}`); }
    const core = (body as { resources?: { core?: { limit?: unknown; remaining?: unknown } } } | null)?.resources?.core;
    if (typeof core?.limit !== 'number' || typeof core.remaining !== 'number') throw new GitHubUnavailable(`GitHub sent an unexpected answer to ${label}`);
    return { limit: core.limit, remaining: core.remaining };
  }

  /** One GET below the base URL: its status and body, or GitHubUnavailable. Redirects are answered, not followed. */
  private async get(path: string, token: string | null | undefined, label: string): Promise<{ status: number; text: string; headers: Headers }> {
    const headers: Record<string, string> = {
      Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28', 'User-Agent': USER_AGENT,
    };
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const res = await fetch(`${this.apiUrl}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
      return { status: res.status, text: await res.text(), headers: res.headers };
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const code = (err instanceof Error ? (err.cause as { code?: unknown } | undefined)?.code : undefined);
      throw new GitHubUnavailable(`GitHub did not answer ${label}: ${timedOut ? `timed out after ${this.timeoutMs} ms` : typeof code === 'string' ? code : 'network error'}`);
    }
  }

  /** The latest runs of `owner/name`, newest first; `token` reads private repositories. */
  async workflowRuns(repo: string, options: { token?: string | null; perPage?: number } = {}): Promise<WorkflowRun[]> {
    if (!isRepoName(repo)) throw new TypeError('workflowRuns: repo must be owner/name');
    const perPage = Math.min(100, Math.max(1, Math.trunc(options.perPage ?? 10)));
    const label = `GET /repos/${repo}/actions/runs`;
    const res = await this.get(`/repos/${repo}/actions/runs?per_page=${perPage}`, options.token, label);
    const { status, text } = res;
    if (status >= 300 && status < 400) throw new GitHubRequestError(`GitHub answered ${status} to ${label}: the repository moved (renamed?)`, status, 'moved');
    if (status === 404) throw new GitHubRequestError(`GitHub answered 404 to ${label}: no such repository, or it is private and the token cannot read it`, status, 'not_found');
    if (status === 401) throw new GitHubRequestError(`GitHub answered 401 to ${label}: the token was refused`, status, 'bad_credentials');
    if (status === 429 || (status === 403 && res.headers.get('x-ratelimit-remaining') === '0')) {
      throw new GitHubRequestError(`GitHub answered ${status} to ${label}: rate limited`, status, 'rate_limited');
    }
    if (status === 403) throw new GitHubRequestError(`GitHub answered 403 to ${label}: the token may not read workflow runs`, status, 'forbidden');
    if (status >= 500) throw new GitHubUnavailable(`GitHub answered ${status} to ${label}`);
    if (status < 200 || status >= 300) throw new GitHubRequestError(`GitHub answered ${status} to ${label}`, status, 'invalid');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new GitHubUnavailable(`GitHub sent an unreadable answer to ${label}`);
    }
    const runs = (body as { workflow_runs?: unknown } | null)?.workflow_runs;
    if (!Array.isArray(runs)) throw new GitHubUnavailable(`GitHub sent an unexpected answer to ${label}`);
    return runs.map(toRun);
  }
}

const text = (o: Record<string, unknown>, key: string) => (typeof o[key] === 'string' ? (o[key] as string) : null);

function toRun(value: unknown): WorkflowRun {
  const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return {
    name: text(o, 'name'), branch: text(o, 'head_branch'), event: text(o, 'event'), status: text(o, 'status'),
    conclusion: text(o, 'conclusion'), title: text(o, 'display_title'), url: text(o, 'html_url'),
    started_at: text(o, 'run_started_at'),
  };
}
