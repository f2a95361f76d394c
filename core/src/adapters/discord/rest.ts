// The bot's and the webhooks' transport: @discordjs/rest (one request queue per rate-limit bucket and major
// parameter, waits taken from Discord's X-RateLimit-* headers before a request is sent, the global 50/s limit), with
// our policy on top and every failure turned into DiscordUnavailable or DiscordRequestError.
//
// What REST does on its own, and how it is set here:
// - 429: REST never counts it as a retry; it waits Retry-After / X-RateLimit-Reset-After and sends again, forever,
//   unless `rejectOnRateLimit` says to throw. Ours (`giveUp`) lets one 429 per call be retried when the wait is at
//   most MAX_RETRY_WAIT_S, and turns a second 429, or a longer wait (also a wait REST would take before sending,
//   because the bucket is spent), into DiscordUnavailable with the wait in `retryAfter` (→ 503 bot_unavailable).
// - 5xx, a timeout (`timeout`, per attempt) and ECONNRESET: REST retries them `retries` times at once. We set 0, as
//   before: the caller (an access check, a job with its own backoff) is better served by a fast 503.
// - 401 on a request REST authenticated: REST forgets its token, failing every later call. We send the bot's
//   Authorization header ourselves (`auth: false`), so a 401 stays one refused call.
// - Redirects: `send` never follows them (an Authorization header must not travel to another host).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { REST, RateLimitData, RequestData, RouteLike } from '@discordjs/rest';
import { DiscordRequestError, DiscordUnavailable } from './errors.js';
import { describeNetworkError, discordErrorOf, MAX_RETRY_WAIT_S, redact, retryAfterOf, USER_AGENT } from './policy.js';

/** One call's rate-limit history; REST runs its callbacks inside the call's async context. */
interface CallState {
  /** 429 answers this call has had. */
  limited: number;
  /** A 429 arrived and its `rejectOnRateLimit` question has not been asked yet. */
  unanswered429: boolean;
  /** Discord's own wait from the last 429 (seconds). */
  retryAfter?: number;
  /** The wait that made us give up (seconds). */
  gaveUpAt?: number;
}

const calls = new AsyncLocalStorage<CallState>();

type RestLibrary = typeof import('@discordjs/rest');
let restLibrary: Promise<RestLibrary> | undefined;
/** @discordjs/rest, loaded with the first call: a process that never calls Discord (most CLI commands) skips it. */
const loadRestLibrary = () => (restLibrary ??= import('@discordjs/rest'));

export interface RestCall {
  method: 'GET' | 'POST';
  /** Path below the base, e.g. Routes.guildRoles(id). */
  route: RouteLike;
  query?: URLSearchParams;
  body?: unknown;
  /** What error messages call this request; never holds a secret. */
  label: string;
  /** Extra strings to scrub from error messages (webhook tokens). */
  secrets?: string[];
}

export interface RestSettings {
  /** Base URL, version included (DISCORD_API_URL, or a webhook URL's prefix). */
  api: string;
  timeoutMs: number;
  /** `Bot <token>` for the bot; none for webhooks (their token is in the path). */
  authorization?: string;
  /** Strings no error message may hold (the bot token). */
  secrets: readonly (string | undefined)[];
}

export class DiscordRest {
  private rest: { library: RestLibrary; client: REST } | null = null;
  /** The longest one call may take, its time in a bucket's queue included: two attempts and one rate-limit wait. */
  private readonly budgetMs: number;

  constructor(private readonly settings: RestSettings) {
    this.budgetMs = 2 * settings.timeoutMs + MAX_RETRY_WAIT_S * 1000;
  }

  private async restClient(): Promise<{ library: RestLibrary; client: REST }> {
    if (this.rest) return this.rest;
    const library = await loadRestLibrary();
    this.rest ??= {
      library,
      client: new library.REST({
        api: this.settings.api,
        timeout: this.settings.timeoutMs,
        retries: 0,
        rejectOnRateLimit: giveUp,
        makeRequest: send as unknown as REST['options']['makeRequest'],
      }),
    };
    return this.rest;
  }

  /** The parsed JSON answer (undefined for an empty one, such as a webhook's 204). */
  async request(call: RestCall): Promise<unknown> {
    const state: CallState = { limited: 0, unanswered429: false };
    const budget = AbortSignal.timeout(this.budgetMs);
    const data: RequestData = {
      // The setting holds the version (…/api/v10), so REST must not add its own.
      versioned: false,
      auth: false,
      headers: this.settings.authorization ? { Authorization: this.settings.authorization } : {},
      signal: budget,
      ...(call.query && { query: call.query }),
      ...(call.body !== undefined && { body: call.body }),
    };
    const { library, client } = await this.restClient();
    let answer: unknown;
    try {
      answer = await calls.run(state, () => (call.method === 'GET' ? client.get(call.route, data) : client.post(call.route, data)));
    } catch (err) {
      throw this.failure(library, err, call, state, budget.aborted);
    }
    // REST hands back the raw bytes when the answer is not JSON.
    if (answer instanceof ArrayBuffer) {
      if (answer.byteLength === 0) return undefined;
      throw new DiscordUnavailable(`Discord sent an unreadable answer to ${call.label}`);
    }
    return answer;
  }

  /** Stops REST's sweep timers (they are unref'd, so this only matters to a client dropped early). */
  close(): void {
    this.rest?.client.clearHashSweeper();
    this.rest?.client.clearHandlerSweeper();
  }

  private failure({ DiscordAPIError, HTTPError, RateLimitError }: RestLibrary, err: unknown, call: RestCall, state: CallState, overBudget: boolean): Error {
    const scrub = (message: string) => redact(message, [...this.settings.secrets, ...(call.secrets ?? [])]);
    if (err instanceof RateLimitError) {
      const wait = state.gaveUpAt;
      return new DiscordUnavailable(`Discord rate-limited ${call.label}${wait !== undefined ? ` (retry after ${wait}s)` : ''}`, wait);
    }
    if (err instanceof DiscordAPIError) {
      const { message, code } = discordErrorOf(err.rawError);
      return new DiscordRequestError(scrub(`Discord answered ${err.status} to ${call.label}${message ? `: ${message}` : ''}`), err.status, code);
    }
    if (err instanceof HTTPError) return new DiscordUnavailable(`Discord answered ${err.status} to ${call.label}`);
    if (err instanceof UnexpectedStatus) return new DiscordUnavailable(`Discord answered an unexpected ${err.status} to ${call.label}`);
    if (err instanceof SyntaxError) return new DiscordUnavailable(`Discord sent an unreadable answer to ${call.label}`);
    // The budget ends a wait in a bucket's queue ("Request aborted manually") or the attempt in flight.
    if (overBudget) return new DiscordUnavailable(`Discord did not answer ${call.label} within ${this.budgetMs} ms`);
    return new DiscordUnavailable(scrub(`Discord did not answer ${call.label}: ${describeNetworkError(err, this.settings.timeoutMs)}`));
  }
}

/** REST's question on every rate limit, before it waits: true throws a RateLimitError instead. */
function giveUp(data: RateLimitData): boolean {
  const state = calls.getStore();
  if (!state) return true;
  const after429 = state.unanswered429;
  state.unanswered429 = false;
  // After a 429, Discord's own number; before sending, the wait REST computed from the bucket's headers (ms).
  const wait = after429 && state.retryAfter !== undefined ? state.retryAfter : Math.max(data.retryAfter, data.timeToReset, data.sublimitTimeout) / 1000;
  if (state.limited > 1 || wait > MAX_RETRY_WAIT_S) {
    state.gaveUpAt = Math.round(wait * 1000) / 1000;
    return true;
  }
  return false;
}

class UnexpectedStatus extends Error {
  constructor(readonly status: number) {
    super(`unexpected HTTP status ${status}`);
  }
}

/**
 * REST's HTTP call: fetch without following redirects, the whole body read inside REST's timeout (which otherwise
 * ends when the headers arrive), and each 429 noted on the call for `giveUp`.
 */
async function send(url: string, init: RequestInit): Promise<Response> {
  const headers = { ...(init.headers as Record<string, string>), 'User-Agent': USER_AGENT };
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) {
    await res.body?.cancel();
    throw new UnexpectedStatus(res.status);
  }
  const text = await res.clone().text();
  if (res.status === 429) {
    const state = calls.getStore();
    if (state) {
      state.limited++;
      state.unanswered429 = true;
      state.retryAfter = retryAfterOf(text, res.headers);
    }
  }
  return res;
}
