// The GitHub integration's connection test (Explore → Integrations, Test): GET /rate_limit at GITHUB_API_URL (the
// deployment's base URL, not an org's) with the org's token. GitHub checks the token there and counts nothing
// against its quota, whatever kind of token it is.
import { GitHubClient, GitHubRequestError, GitHubUnavailable } from '../adapters/github/index.js';
import type { IntegrationContext } from '../modules/types.js';
import { GITHUB_TOKEN_SECRET } from './ci.js';

export async function testGitHub({ services, values }: IntegrationContext): Promise<string> {
  const { GITHUB_API_URL, GITHUB_TIMEOUT_MS } = services.settings;
  const client = new GitHubClient({ apiUrl: GITHUB_API_URL, timeoutMs: GITHUB_TIMEOUT_MS });
  try {
    const { limit, remaining } = await client.rateLimit(values[GITHUB_TOKEN_SECRET] ?? '');
    return `GitHub accepted the token (${remaining} of ${limit} requests left this hour)`;
  } catch (err) {
    if (err instanceof GitHubRequestError && err.status === 401) throw new Error('401 from GitHub: check the token (it may be mistyped, expired or revoked)');
    if (err instanceof GitHubRequestError && err.status === 403) throw new Error('403 from GitHub: the token is not allowed to call the API (an organization may block it)');
    if (err instanceof GitHubRequestError) throw new Error(err.message);
    if (err instanceof GitHubUnavailable) throw new Error(`GitHub cannot be reached now; try again later (${err.message})`);
    throw err;
  }
}
