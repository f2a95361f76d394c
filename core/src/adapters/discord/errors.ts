// The two ways a Discord call fails: Discord could not answer (DiscordUnavailable → 503 / bot_unavailable)
// or Discord answered with a client error (DiscordRequestError, status and Discord's JSON code kept).

/** Discord could not answer: network error, timeout, 5xx, a 429 with a long wait, or no bot token. Callers map it to 503 / bot_unavailable. */
export class DiscordUnavailable extends Error {
  /** Seconds Discord asked us to wait, when the cause was a rate limit. */
  readonly retryAfter?: number;

  constructor(message: string, retryAfter?: number) {
    super(message);
    this.name = 'DiscordUnavailable';
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/** Discord answered with a client error (bad code, unknown guild, missing permission…): status and Discord's JSON code kept. */
export class DiscordRequestError extends Error {
  readonly status: number;
  readonly code?: number;

  constructor(message: string, status: number, code?: number) {
    super(message);
    this.name = 'DiscordRequestError';
    this.status = status;
    if (code !== undefined) this.code = code;
  }
}
