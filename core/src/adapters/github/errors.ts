// The two ways a GitHub call fails: GitHub answered with a refusal (GitHubRequestError: not found, bad
// credentials, rate limited, moved) or could not answer (GitHubUnavailable: network, timeout, 5xx, bad JSON).
// Messages never carry the token.

export type GitHubRefusal = 'not_found' | 'bad_credentials' | 'forbidden' | 'rate_limited' | 'moved' | 'invalid';

/** GitHub answered, but not with what we asked for. */
export class GitHubRequestError extends Error {
  override name = 'GitHubRequestError';
  constructor(message: string, readonly status: number, readonly reason: GitHubRefusal) {
    super(message);
  }
}

/** GitHub could not answer: network error, timeout, 5xx or an unreadable answer. */
export class GitHubUnavailable extends Error {
  override name = 'GitHubUnavailable';
}
