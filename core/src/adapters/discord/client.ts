// DiscordClient: every call Quad makes to Discord — OAuth sign-in, the bot's guild/member/role reads, bot messages,
// webhooks — with one policy for timeouts, rate limits, error classes and secret hygiene. The bot's calls and the
// webhooks go through @discordjs/rest (rest.ts: rate-limit buckets and queues), the sign-in calls through fetch
// (oauth.ts says why).
import { RESTJSONErrorCodes, Routes } from 'discord-api-types/v10';
import { DiscordRequestError, DiscordUnavailable } from './errors.js';
import { oauthRequest } from './oauth.js';
import { DEFAULT_TIMEOUT_MS } from './policy.js';
import { DiscordRest, type RestCall } from './rest.js';
import { clampInt, list, record, snowflake, str, toGuild, toMember, toRole, toTokens, toUser } from './shapes.js';
import type {
  DiscordChannelMessage, DiscordGuild, DiscordMember, DiscordMessageRef, DiscordRole, DiscordScheduledEvent, DiscordSettings, DiscordTokens,
  DiscordUser, DiscordWebhookMessage,
} from './types.js';

export { DiscordRequestError, DiscordUnavailable } from './errors.js';
export type * from './types.js';

const MEMBERS_PAGE_MAX = 1000;
const GUILDS_PAGE_MAX = 200;
/** Webhook bases (the part of a webhook URL before /webhooks/) each keep a REST; production has one or two. */
const WEBHOOK_BASES_MAX = 16;

/** Where the bot's member-list permission is turned on; said by every refusal of a member-list read. */
const MEMBER_LIST_HINT = 'the bot needs the Server Members intent (Discord Developer Portal → the application → Bot → '
  + 'Privileged Gateway Intents) and must be in the server';

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

export class DiscordClient {
  private readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly membersPage: number;
  private readonly guildsPage: number;
  private readonly botRest: DiscordRest | null;
  private readonly webhookRests = new Map<string, DiscordRest>();

  constructor(private readonly settings: DiscordSettings) {
    this.apiUrl = settings.apiUrl.replace(/(?<!\/)\/+$/, '');
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.membersPage = clampInt(settings.pageSize ?? MEMBERS_PAGE_MAX, 1, MEMBERS_PAGE_MAX);
    this.guildsPage = clampInt(settings.pageSize ?? GUILDS_PAGE_MAX, 1, GUILDS_PAGE_MAX);
    this.botRest = settings.botToken
      ? new DiscordRest({ api: this.apiUrl, timeoutMs: this.timeoutMs, authorization: `Bot ${settings.botToken}`, secrets: [settings.botToken] })
      : null;
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
    return toTokens(await oauthRequest(this.apiUrl, this.timeoutMs, {
      method: 'POST', path: Routes.oauth2TokenExchange(), label: 'POST /oauth2/token',
      form: { client_id: clientId, client_secret: clientSecret, grant_type: 'authorization_code', code, redirect_uri: redirectUri },
      secrets: [clientSecret, this.settings.botToken, code],
    }));
  }

  async currentUser(userAccessToken: string): Promise<DiscordUser> {
    return toUser(await oauthRequest(this.apiUrl, this.timeoutMs, {
      method: 'GET', path: Routes.user(), label: 'GET /users/@me', bearer: userAccessToken,
      secrets: [this.settings.clientSecret, this.settings.botToken],
    }));
  }

  /** The member, or null when Discord says Unknown Member (404 code 10007); any other failure throws. */
  async member(guildId: string, userId: string): Promise<DiscordMember | null> {
    const route = Routes.guildMember(snowflake(guildId, 'guildId'), snowflake(userId, 'userId'));
    try {
      return toMember(await this.bot('GET', route));
    } catch (err) {
      if (err instanceof DiscordRequestError && err.status === 404 && err.code === RESTJSONErrorCodes.UnknownMember) return null;
      throw err;
    }
  }

  async roles(guildId: string): Promise<DiscordRole[]> {
    return list(await this.bot('GET', Routes.guildRoles(snowflake(guildId, 'guildId'))), 'roles').map(toRole);
  }

  /** Members whose username or nickname starts with query; limit is clamped to 1..1000. Needs the Server Members intent, like listMembers. */
  async searchMembers(guildId: string, query: string, limit = 100): Promise<DiscordMember[]> {
    const q = new URLSearchParams({ query, limit: String(clampInt(limit, 1, MEMBERS_PAGE_MAX)) });
    return list(await this.memberRead(Routes.guildMembersSearch(snowflake(guildId, 'guildId')), q), 'members').map(toMember);
  }

  /** Every member of the guild (needs the Server Members intent; without it a DiscordRequestError 403 that says so). */
  async listMembers(guildId: string): Promise<DiscordMember[]> {
    const route = Routes.guildMembers(snowflake(guildId, 'guildId'));
    const all: DiscordMember[] = [];
    let after = '0';
    for (;;) {
      const q = new URLSearchParams({ limit: String(this.membersPage), after });
      const page = list(await this.memberRead(route, q), 'members').map(toMember);
      all.push(...page);
      if (page.length < this.membersPage) return all;
      const last = page[page.length - 1]!.user.id;
      // A full page that does not move the cursor would loop forever.
      if (BigInt(last) <= BigInt(after)) throw new DiscordUnavailable(`Discord member paging did not advance (${route})`);
      after = last;
    }
  }

  /** The servers the bot is in (Discord pages these by 200). */
  async botGuilds(): Promise<DiscordGuild[]> {
    const all: DiscordGuild[] = [];
    let after = '0';
    for (;;) {
      const q = new URLSearchParams({ limit: String(this.guildsPage), after });
      const page = list(await this.bot('GET', Routes.userGuilds(), q), 'guilds').map(toGuild);
      all.push(...page);
      if (page.length < this.guildsPage) return all;
      const last = page[page.length - 1]!.id;
      if (BigInt(last) <= BigInt(after)) throw new DiscordUnavailable('Discord guild paging did not advance (/users/@me/guilds)');
      after = last;
    }
  }

  async guild(guildId: string): Promise<DiscordGuild> {
    return toGuild(await this.bot('GET', Routes.guild(snowflake(guildId, 'guildId'))));
  }

  /** The server's scheduled events (Discord lists the scheduled and active ones, at most a few hundred: one page). */
  async scheduledEvents(guildId: string): Promise<DiscordScheduledEvent[]> {
    return list(await this.bot('GET', Routes.guildScheduledEvents(snowflake(guildId, 'guildId'))), 'scheduled events').map((v) => {
      const o = record(v, 'scheduled event');
      const text = (key: string) => (typeof o[key] === 'string' ? o[key] as string : null);
      const meta = o.entity_metadata && typeof o.entity_metadata === 'object' ? o.entity_metadata as Record<string, unknown> : {};
      return {
        id: str(o, 'id'), name: str(o, 'name'), description: text('description'), scheduled_start_time: str(o, 'scheduled_start_time'),
        scheduled_end_time: text('scheduled_end_time'), location: typeof meta.location === 'string' ? meta.location : null,
        status: typeof o.status === 'number' ? o.status : 1,
      };
    });
  }

  async postMessage(channelId: string, body: DiscordChannelMessage): Promise<DiscordMessageRef> {
    const data = await this.bot('POST', Routes.channelMessages(snowflake(channelId, 'channelId')), undefined, body);
    return { id: str(record(data, 'message'), 'id') };
  }

  /**
   * POSTs to a webhook URL as given. Callers check stored URLs with isDiscordWebhookUrl when they are saved;
   * this method takes any http(s) URL so tests can aim it at a fake. Each webhook has its own rate-limit queue.
   */
  async executeWebhook(webhookUrl: string, body: DiscordWebhookMessage): Promise<void> {
    let url: URL;
    try {
      url = new URL(webhookUrl);
    } catch {
      throw new TypeError('executeWebhook: not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('executeWebhook: not an http(s) URL');
    const m = /\/webhooks\/([^/]+)\/([^/?#]+)/.exec(url.pathname);
    // The token is the last path segment; scrub it and the whole URL from any message.
    const secrets = [webhookUrl, url.pathname, ...(m ? [m[2]!, safeDecode(m[2]!)] : [])];
    const at = m ? m.index : url.pathname.length;
    const route = (url.pathname.slice(at) || '/') as RestCall['route'];
    await this.webhookRest(`${url.origin}${url.pathname.slice(0, at)}`).request({
      method: 'POST', route, label: `POST webhook ${m ? m[1] : '(unparsed)'}`, body, secrets,
      ...(url.search && { query: url.searchParams }),
    });
  }

  /**
   * A read of the member list or member search. Discord refuses both with 403 Missing Access (code 50001) when the
   * bot lacks the privileged Server Members intent (or is not in the server); the message says which setting to
   * check, since Discord's own ("Missing Access") does not.
   */
  private async memberRead(route: RestCall['route'], query: URLSearchParams): Promise<unknown> {
    try {
      return await this.bot('GET', route, query);
    } catch (err) {
      if (!(err instanceof DiscordRequestError) || err.status !== 403) throw err;
      throw new DiscordRequestError(`${err.message} (${MEMBER_LIST_HINT})`, err.status, err.code);
    }
  }

  private async bot(method: 'GET' | 'POST', route: RestCall['route'], query?: URLSearchParams, body?: unknown): Promise<unknown> {
    const label = `${method} ${route}`;
    if (!this.botRest) throw new DiscordUnavailable(`Discord bot is not configured (${label})`);
    const data = await this.botRest.request({ method, route, label, ...(query && { query }), ...(body !== undefined && { body }) });
    if (data === undefined) throw new DiscordUnavailable(`Discord sent an empty answer to ${label}`);
    return data;
  }

  private webhookRest(base: string): DiscordRest {
    let rest = this.webhookRests.get(base);
    if (!rest) {
      if (this.webhookRests.size >= WEBHOOK_BASES_MAX) {
        const [oldest, dropped] = this.webhookRests.entries().next().value!;
        this.webhookRests.delete(oldest);
        dropped.close();
      }
      rest = new DiscordRest({ api: base, timeoutMs: this.timeoutMs, secrets: [this.settings.botToken, this.settings.clientSecret] });
      this.webhookRests.set(base, rest);
    }
    return rest;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
