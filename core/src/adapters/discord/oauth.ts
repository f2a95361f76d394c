// The sign-in calls: the code exchange (client id and secret, form-encoded) and "who signed in" (the user's own
// bearer token). They stay on fetch, not @discordjs/rest: REST holds one credential per instance and keeps one
// request queue per route, so every sign-in of the process would wait in line behind the others (a class signing in
// at once) and one user's rate limit would hold back the next user, while Discord limits these calls per user. The
// policy is the bot's: the timeout setting, one retry of a short 429, the same errors and scrubbing.
import { setTimeout as sleep } from 'node:timers/promises';
import { DiscordRequestError, DiscordUnavailable } from './errors.js';
import { describeNetworkError, discordErrorOf, MAX_RETRY_WAIT_S, parseJson, redact, retryAfterOf, USER_AGENT } from './policy.js';

export interface OAuthCall {
  method: 'GET' | 'POST';
  /** Path below DISCORD_API_URL. */
  path: string;
  /** What error messages call this request; never holds a secret. */
  label: string;
  bearer?: string;
  form?: Record<string, string>;
  /** Strings no error message may hold (the client secret, the code, the user's token). */
  secrets: (string | undefined)[];
}

export async function oauthRequest(apiUrl: string, timeoutMs: number, call: OAuthCall): Promise<unknown> {
  const headers: Record<string, string> = { 'User-Agent': USER_AGENT, Accept: 'application/json' };
  if (call.bearer) headers.Authorization = `Bearer ${call.bearer}`;
  let body: string | undefined;
  if (call.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  const scrub = (message: string) => redact(message, [call.bearer, ...call.secrets]);

  for (let attempt = 0; ; attempt++) {
    let status: number;
    let resHeaders: Headers;
    let text: string;
    try {
      // redirect: 'manual' so a 3xx can never carry a credential to another host.
      const res = await fetch(`${apiUrl}${call.path}`, { method: call.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      status = res.status;
      resHeaders = res.headers;
      text = await res.text();
    } catch (err) {
      throw new DiscordUnavailable(scrub(`Discord did not answer ${call.label}: ${describeNetworkError(err, timeoutMs)}`));
    }

    if (status === 429) {
      const wait = retryAfterOf(text, resHeaders);
      if (attempt === 0 && wait !== undefined && wait <= MAX_RETRY_WAIT_S) {
        await sleep(Math.ceil(wait * 1000));
        continue;
      }
      throw new DiscordUnavailable(`Discord rate-limited ${call.label}${wait !== undefined ? ` (retry after ${wait}s)` : ''}`, wait);
    }
    if (status >= 200 && status < 300) {
      const data = parseJson(text);
      if (data === undefined) throw new DiscordUnavailable(`Discord sent an unreadable answer to ${call.label}`);
      return data;
    }
    if (status >= 500) throw new DiscordUnavailable(`Discord answered ${status} to ${call.label}`);
    if (status >= 400) {
      const { message, code } = discordErrorOf(parseJson(text));
      throw new DiscordRequestError(scrub(`Discord answered ${status} to ${call.label}${message ? `: ${message}` : ''}`), status, code);
    }
    throw new DiscordUnavailable(`Discord answered an unexpected ${status} to ${call.label}`);
  }
}
