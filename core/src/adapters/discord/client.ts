// DiscordClient: every REST call Quad makes to Discord (OAuth sign-in, the bot's guild/member/role reads,
// bot messages, webhooks), with one policy for timeouts, rate limits, error classes and secret hygiene.
import { setTimeout as sleep } from 'node:timers/promises';
import { DiscordRequestError, DiscordUnavailable } from './errors.js';
import type { DiscordGuild, DiscordMember, DiscordRole, DiscordSettings, DiscordTokens, DiscordUser } from './types.js';

export { DiscordRequestError, DiscordUnavailable } from './errors.js';
export type { DiscordGuild, DiscordMember, DiscordRole, DiscordSettings, DiscordTokens, DiscordUser } from './types.js';

const USER_AGENT = 'DiscordBot (quad, 0.1)';
const DEFAULT_TIMEOUT_MS = 5000;
/** A 429 asking for a longer wait than this is reported as unavailable instead of holding the caller. */
const MAX_RETRY_WAIT_S = 2;
const MEMBERS_PAGE_MAX = 1000;
const GUILDS_PAGE_MAX = 200;
const UNKNOWN_MEMBER = 10007;

/** nick || global_name || username (Discord's own precedence). */
export function displayName(member: { nick?: string | null; user: { global_name?: string | null; username: string } }): string {
  return member.nick || member.user.global_name || member.user.username;
}

// Strict on purpose: a stored webhook URL is later POSTed to by the server, so anything that could point
// elsewhere (other scheme, host, port, userinfo, extra path, query) is refused.
const WEBHOOK_URL = /^https:\/\/(?:discord|discordapp)\.com\/api\/(?:v\d{1,2}\/)?webhooks\/\d{1,20}\/[A-Za-z0-9_-]{1,200}$/;

/** True for https://discord.com/api/webhooks/<digits>/<token> (also discordapp.com and /api/v<n>/). */
export function isDiscordWebhookUrl(url: string): boolean {
  return typeof url === 'string' && WEBHOOK_URL.test(url);
}

type Auth = { kind: 'bot' } | { kind: 'bearer'; token: string } | { kind: 'none' };

interface Call {
  method: 'GET' | 'POST';
  /** Full URL. */
  url: string;
  /** What error messages call this request; never holds a secret. */
  label: string;
  auth: Auth;
  json?: unknown;
  form?: Record<string, string>;
  /** Extra strings to scrub from error messages (codes, webhook tokens). */
  secrets?: string[];
}

type Json = Record<string, unknown>;

export class DiscordClient {
  private readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly membersPage: number;
  private readonly guildsPage: number;

  constructor(private readonly settings: DiscordSettings) {
    this.apiUrl = settings.apiUrl.replace(/\/+$/, '');
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.membersPage = clampInt(settings.pageSize ?? MEMBERS_PAGE_MAX, 1, MEMBERS_PAGE_MAX);
    this.guildsPage = clampInt(settings.pageSize ?? GUILDS_PAGE_MAX, 1, GUILDS_PAGE_MAX);
  }

  get hasBot(): boolean {
    return Boolean(this.settings.botToken);
  }

  /** The Discord sign-in URL to send the browser to. */
  authorizeRedirect(opts: { redirectUri: string; state: string; scope?: string }): string {
    const clientId = this.settings.clientId;
    if (!clientId) throw new DiscordUnavailable('Discord sign-in is not configured (no client id)');
    const url = new URL(this.settings.authorizeUrl);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', opts.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', opts.scope ?? 'identify guilds');
    url.searchParams.set('state', opts.state);
    // URLSearchParams writes spaces as '+'; Discord documents scopes joined by %20.
    url.search = url.searchParams.toString().replace(/\+/g, '%20');
    return url.toString();
  }

  async exchangeCode(code: string, redirectUri: string): Promise<DiscordTokens> {
    const { clientId, clientSecret } = this.settings;
    if (!clientId || !clientSecret) throw new DiscordUnavailable('Discord sign-in is not configured (no client id or secret)');
    const data = await this.json({
      method: 'POST', url: `${this.apiUrl}/oauth2/token`, label: 'POST /oauth2/token', auth: { kind: 'none' },
      form: { client_id: clientId, client_secret: clientSecret, grant_type: 'authorization_code', code, redirect_uri: redirectUri },
      secrets: [code],
    });
    const o = record(data, 'POST /oauth2/token');
    return {
      access_token: str(o, 'access_token'),
      token_type: str(o, 'token_type'),
      expires_in: num(o, 'expires_in'),
      refresh_token: str(o, 'refresh_token'),
      scope: str(o, 'scope'),
    };
  }

  async currentUser(userAccessToken: string): Promise<DiscordUser> {
    const data = await this.json({ method: 'GET', url: `${this.apiUrl}/users/@me`, label: 'GET /users/@me', auth: { kind: 'bearer', token: userAccessToken } });
    return toUser(data);
  }

  /** The member, or null when Discord says Unknown Member (404 code 10007); any other failure throws. */
  async member(guildId: string, userId: string): Promise<DiscordMember | null> {
    const path = `/guilds/${snowflake(guildId, 'guildId')}/members/${snowflake(userId, 'userId')}`;
    try {
      return toMember(await this.bot('GET', path));
    } catch (err) {
      if (err instanceof DiscordRequestError && err.status === 404 && err.code === UNKNOWN_MEMBER) return null;
      throw err;
    }
  }

  async roles(guildId: string): Promise<DiscordRole[]> {
    const data = await this.bot('GET', `/guilds/${snowflake(guildId, 'guildId')}/roles`);
    return list(data, 'roles').map(toRole);
  }

  /** Members whose username or nickname starts with query; limit is clamped to 1..1000. */
  async searchMembers(guildId: string, query: string, limit = 100): Promise<DiscordMember[]> {
    const q = new URLSearchParams({ query, limit: String(clampInt(limit, 1, MEMBERS_PAGE_MAX)) });
    const data = await this.bot('GET', `/guilds/${snowflake(guildId, 'guildId')}/members/search?${q}`);
    return list(data, 'members').map(toMember);
  }

  /** Every member of the guild (needs the Server Members intent; Discord answers 403 without it). */
  async listMembers(guildId: string): Promise<DiscordMember[]> {
    const base = `/guilds/${snowflake(guildId, 'guildId')}/members`;
    const all: DiscordMember[] = [];
    let after = '0';
    for (;;) {
      const page = list(await this.bot('GET', `${base}?limit=${this.membersPage}&after=${after}`), 'members').map(toMember);
      all.push(...page);
      if (page.length < this.membersPage) return all;
      const last = page[page.length - 1]!.user.id;
      // A full page that does not move the cursor would loop forever.
      if (BigInt(last) <= BigInt(after)) throw new DiscordUnavailable(`Discord member paging did not advance (${base})`);
      after = last;
    }
  }

  /** The servers the bot is in (Discord pages these by 200). */
  async botGuilds(): Promise<DiscordGuild[]> {
    const all: DiscordGuild[] = [];
    let after = '0';
    for (;;) {
      const page = list(await this.bot('GET', `/users/@me/guilds?limit=${this.guildsPage}&after=${after}`), 'guilds').map(toGuild);
      all.push(...page);
      if (page.length < this.guildsPage) return all;
      const last = page[page.length - 1]!.id;
      if (BigInt(last) <= BigInt(after)) throw new DiscordUnavailable('Discord guild paging did not advance (/users/@me/guilds)');
      after = last;
    }
  }

  async guild(guildId: string): Promise<DiscordGuild> {
    return toGuild(await this.bot('GET', `/guilds/${snowflake(guildId, 'guildId')}`));
  }

  async postMessage(channelId: string, body: Record<string, unknown>): Promise<{ id: string }> {
    const data = await this.bot('POST', `/channels/${snowflake(channelId, 'channelId')}/messages`, body);
    return { id: str(record(data, 'message'), 'id') };
  }

  /**
   * POSTs to a webhook URL as given. Callers check stored URLs with isDiscordWebhookUrl when they are saved;
   * this method takes any http(s) URL so tests can aim it at a fake.
   */
  async executeWebhook(webhookUrl: string, body: Record<string, unknown>): Promise<void> {
    let url: URL;
    try {
      url = new URL(webhookUrl);
    } catch {
      throw new TypeError('executeWebhook: not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('executeWebhook: not an http(s) URL');
    const m = /\/webhooks\/([^/]+)\/([^/?#]+)/.exec(url.pathname);
    const label = `POST webhook ${m ? m[1] : '(unparsed)'}`;
    // The token is the last path segment; scrub it and the whole URL from any message.
    const secrets = [webhookUrl, url.pathname, ...(m ? [m[2]!, safeDecode(m[2]!)] : [])];
    await this.send({ method: 'POST', url: url.toString(), label, auth: { kind: 'none' }, json: body, secrets });
  }

  private async bot(method: 'GET' | 'POST', path: string, json?: unknown): Promise<unknown> {
    if (!this.settings.botToken) throw new DiscordUnavailable(`Discord bot is not configured (${method} ${path.split('?')[0]})`);
    return this.json({ method, url: `${this.apiUrl}${path}`, label: `${method} ${path.split('?')[0]}`, auth: { kind: 'bot' }, json });
  }

  private async json(call: Call): Promise<unknown> {
    const { text } = await this.send(call);
    try {
      return JSON.parse(text);
    } catch {
      throw new DiscordUnavailable(`Discord sent an unreadable answer to ${call.label}`);
    }
  }

  /** One request with its timeout, one retry on a short 429, and the error mapping every call shares. */
  private async send(call: Call): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { 'User-Agent': USER_AGENT, Accept: 'application/json' };
    if (call.auth.kind === 'bot') headers.Authorization = `Bot ${this.settings.botToken}`;
    if (call.auth.kind === 'bearer') headers.Authorization = `Bearer ${call.auth.token}`;
    let body: string | undefined;
    if (call.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(call.form).toString();
    } else if (call.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(call.json);
    }
    const secrets = [this.settings.botToken, this.settings.clientSecret, call.auth.kind === 'bearer' ? call.auth.token : undefined, ...(call.secrets ?? [])];
    const scrub = (message: string) => redact(message, secrets);

    for (let attempt = 0; ; attempt++) {
      let status: number;
      let resHeaders: Headers;
      let text: string;
      try {
        // redirect: 'manual' so a 3xx can never carry our Authorization header to another host.
        const res = await fetch(call.url, { method: call.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
        status = res.status;
        resHeaders = res.headers;
        text = await res.text();
      } catch (err) {
        throw new DiscordUnavailable(scrub(`Discord did not answer ${call.label}: ${describeFetchError(err, this.timeoutMs)}`));
      }

      if (status === 429) {
        const wait = retryAfter(text, resHeaders);
        if (attempt === 0 && wait !== undefined && wait <= MAX_RETRY_WAIT_S) {
          await sleep(Math.ceil(wait * 1000));
          continue;
        }
        throw new DiscordUnavailable(`Discord rate-limited ${call.label}${wait !== undefined ? ` (retry after ${wait}s)` : ''}`, wait);
      }
      if (status >= 200 && status < 300) return { status, text };
      if (status >= 500) throw new DiscordUnavailable(`Discord answered ${status} to ${call.label}`);
      if (status >= 400) {
        const { message, code } = discordError(text);
        throw new DiscordRequestError(scrub(`Discord answered ${status} to ${call.label}${message ? `: ${message}` : ''}`), status, code);
      }
      throw new DiscordUnavailable(`Discord answered an unexpected ${status} to ${call.label}`);
    }
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  // Only the low-level code (ECONNREFUSED…): undici's messages can quote the URL, which may hold a webhook token.
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}

function retryAfter(text: string, headers: Headers): number | undefined {
  let seconds: number | undefined;
  try {
    const v = (JSON.parse(text) as Json)?.retry_after;
    if (typeof v === 'number') seconds = v;
  } catch {
    // fall back to the header
  }
  if (seconds === undefined) {
    const h = Number(headers.get('retry-after'));
    if (headers.has('retry-after') && Number.isFinite(h)) seconds = h;
  }
  return seconds === undefined || !Number.isFinite(seconds) ? undefined : Math.max(0, seconds);
}

function discordError(text: string): { message?: string; code?: number } {
  try {
    const o = JSON.parse(text) as Json;
    if (!o || typeof o !== 'object') return {};
    const message = typeof o.message === 'string' ? o.message : typeof o.error === 'string' ? o.error : undefined;
    return { message: message?.slice(0, 200), code: typeof o.code === 'number' ? o.code : undefined };
  } catch {
    return {};
  }
}

function redact(message: string, secrets: (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function clampInt(n: number, min: number, max: number): number {
  const i = Math.trunc(Number.isFinite(n) ? n : min);
  return Math.min(max, Math.max(min, i));
}

// Ids end up in URL paths next to the bot token; refusing non-digits keeps '..' or '/' from rerouting a call.
function snowflake(id: string, name: string): string {
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) throw new TypeError(`${name} must be a Discord id (digits)`);
  return id;
}

// Discord objects carry many more fields; these keep only what Quad uses, and treat a wrong shape as
// Discord misbehaving (unavailable) rather than letting undefined leak into callers.
function bad(what: string): never {
  throw new DiscordUnavailable(`Discord sent an unexpected ${what}`);
}
function record(v: unknown, what: string): Json {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : bad(what);
}
function list(v: unknown, what: string): unknown[] {
  return Array.isArray(v) ? v : bad(`${what} list`);
}
function str(o: Json, key: string): string {
  const v = o[key];
  return typeof v === 'string' ? v : bad(`value for ${key}`);
}
function num(o: Json, key: string): number {
  const v = o[key];
  return typeof v === 'number' ? v : bad(`value for ${key}`);
}
function strOrNull(o: Json, key: string): string | null {
  const v = o[key];
  return typeof v === 'string' ? v : v === null || v === undefined ? null : bad(`value for ${key}`);
}

function toUser(v: unknown): DiscordUser {
  const o = record(v, 'user');
  return { id: str(o, 'id'), username: str(o, 'username'), global_name: strOrNull(o, 'global_name'), avatar: strOrNull(o, 'avatar') };
}
function toMember(v: unknown): DiscordMember {
  const o = record(v, 'member');
  const roles = list(o.roles, 'role id').map((r) => (typeof r === 'string' ? r : bad('role id')));
  // joined_at can be null for guest members; an empty string keeps the declared type without failing the call.
  return { user: toUser(o.user), nick: strOrNull(o, 'nick'), roles, joined_at: strOrNull(o, 'joined_at') ?? '' };
}
function toRole(v: unknown): DiscordRole {
  const o = record(v, 'role');
  return { id: str(o, 'id'), name: str(o, 'name'), color: num(o, 'color'), position: num(o, 'position'), managed: o.managed === true };
}
function toGuild(v: unknown): DiscordGuild {
  const o = record(v, 'guild');
  return { id: str(o, 'id'), name: str(o, 'name'), icon: strOrNull(o, 'icon') };
}
