// Fake Discord for tests: a real HTTP server on 127.0.0.1 (random port) speaking the REST endpoints Quad
// uses (OAuth authorize/token, /users/@me, the bot's guild/member/role reads, bot messages, webhooks), with
// in-memory state, request log and fault controls (down, unreachable, held past any timeout, 429, delay). Rate limits as Discord sends them: every
// answer carries the X-RateLimit-* headers of its bucket (one per route, counted per guild, channel or webhook),
// and a spent bucket answers 429 with `retry_after` in the body. Its gateway (gateway.ts, started on request) is the
// one GET /gateway/bot names. Test code, not production code.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { outageControls } from '../outage.js';
import { startFakeGateway, type FakeGateway, type FakeGatewayOptions } from './gateway.js';

export * from './gateway.js';

/** `bot` is set (true) only on bot accounts, as Discord sends it. */
export interface FakeUser { id: string; username: string; global_name: string | null; avatar: string | null; bot?: true }
export interface FakeRole { id: string; name: string; color: number; position: number; managed: boolean }
export interface FakeGuild { id: string; name: string; icon: string | null; membersIntent: boolean; ownerId: string | null }
export interface FakeMember { userId: string; roles: string[]; nick: string | null; joined_at: string }
export interface FakeWebhook { id: string; token: string; channelId: string; url: string }
/** A server's scheduled event as Discord lists it (the calendar's Discord sync reads these). */
export interface FakeScheduledEvent {
  id: string; name: string; description: string | null; scheduled_start_time: string; scheduled_end_time: string | null;
  location: string | null; status: number;
}
export interface RecordedPost { path: string; query: Record<string, string>; headers: IncomingHttpHeaders; body: unknown }
export interface RecordedMessage extends RecordedPost { id: string; channelId: string }
export interface RecordedWebhookPost extends RecordedPost { webhookId: string; wait: boolean }
export interface RecordedRequest { method: string; path: string; query: Record<string, string>; auth: 'bot' | 'bearer' | 'none' | 'invalid'; headers: IncomingHttpHeaders }

export interface FakeDiscordOptions { clientId?: string; clientSecret?: string; botToken?: string }

/** Requests each bucket takes per window; the default is more than any test sends. */
export interface FakeBucketLimit { limit: number; windowMs: number }

export interface FakeDiscord {
  /** http://127.0.0.1:PORT — use as apiUrl; authorize at url + '/oauth2/authorize'; webhooks at url + '/api/webhooks/…'. */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly botToken: string;
  /** The bot's own user (answered to GET /users/@me with the bot token). */
  readonly botUser: FakeUser;
  addUser(u: { id?: string; username: string; global_name?: string | null; avatar?: string | null; bot?: boolean }): FakeUser;
  /** membersIntent (default true) false: the bot lacks the Server Members intent, so the member list and search answer 403. */
  addGuild(g: { id?: string; name: string; icon?: string | null; membersIntent?: boolean; ownerId?: string }): FakeGuild;
  addRole(guildId: string, r: { id?: string; name: string; color?: number; position?: number; managed?: boolean }): FakeRole;
  addMember(guildId: string, userId: string, roleIds?: string[], nick?: string | null): FakeMember;
  removeMember(guildId: string, userId: string): void;
  setRoles(guildId: string, userId: string, roleIds: string[]): void;
  /** Turn the bot's Server Members intent for a guild on or off (off: the member list and search answer 403). */
  setMembersIntent(guildId: string, on: boolean): void;
  /** The user /oauth2/authorize signs in as (null: nobody, authorize answers 400). */
  signInAs(userId: string | null): void;
  /** A code as if the user had approved the authorize page, for tests that skip the browser hop. */
  issueCode(userId: string, redirectUri: string, scope?: string): string;
  addWebhook(opts?: { id?: string; channelId?: string }): FakeWebhook;
  /** Add or replace (same id) a scheduled event of a guild; listed by GET /guilds/{id}/scheduled-events. */
  putScheduledEvent(guildId: string, e: Partial<FakeScheduledEvent> & { name: string; scheduled_start_time: string }): FakeScheduledEvent;
  removeScheduledEvent(guildId: string, id: string): void;
  readonly messages: RecordedMessage[];
  readonly webhookPosts: RecordedWebhookPost[];
  readonly requests: RecordedRequest[];
  /** While on, every request is answered 502. */
  down(on: boolean): void;
  /**
   * While on, every connection is closed as soon as it opens (kept-alive ones at their next request), before any
   * answer: what a client sees when nothing answers at Discord's address (a network error, no HTTP status).
   */
  unreachable(on: boolean): void;
  /**
   * While on, requests (only those whose path matches `only`, when given) get no answer until it is turned off (or
   * the fake closes): Discord slower than any timeout. Turning it off answers the held requests as usual.
   */
  hold(on: boolean, only?: RegExp): void;
  /** Requests held by `hold` and not answered yet. */
  readonly holding: number;
  /** The next `count` requests get 429 with retry_after in the body and Retry-After/X-RateLimit-* headers. */
  rateLimitNext(retryAfterSeconds: number, count?: number): void;
  /** Every bucket from now on takes `limit` requests per `windowMs`; more get 429 until the window ends. */
  limitBuckets(limit: number, windowMs: number): void;
  /** 429 answers sent so far (forced by rateLimitNext or from a spent bucket). */
  readonly tooManyRequests: number;
  /** The next `count` requests are answered only after `ms`. */
  delayNext(ms: number, count?: number): void;
  /** The next `count` requests are done at once (a message is posted) but answered only after `ms`: a lost answer. */
  delayAnswerNext(ms: number, count?: number): void;
  /**
   * Start the fake gateway (gateway.ts) on its own port; from then on GET /gateway and GET /gateway/bot answer its
   * URL. Before, they answer 404, so the gateway daemon of a test that sets BOT_TOKEN without a gateway never
   * connects (it retries). One gateway per fake, closed with it.
   */
  startGateway(options?: FakeGatewayOptions): Promise<FakeGateway>;
  /** The gateway started by startGateway, or null. */
  readonly gateway: FakeGateway | null;
  close(): Promise<void>;
}

// Snowflake-like ids: 19 digits, increasing, so string order matches creation order within the fake.
let nextId = 1_300_000_000_000_000_000n;
const snowflake = () => String(nextId++);
const secret = (n = 24) => randomBytes(n).toString('base64url');
const cmpId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

class Answer {
  constructor(readonly status: number, readonly body?: unknown, readonly headers: Record<string, string> = {}) {}
}
const json = (status: number, body: unknown, headers?: Record<string, string>) => new Answer(status, body, headers);
const discordError = (status: number, message: string, code: number) => json(status, { message, code });
const notFoundRoute = () => discordError(404, '404: Not Found', 0);

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const clientId = options.clientId ?? '1200000000000000001';
  const clientSecret = options.clientSecret ?? 'fake-client-secret-0123456789';
  const botToken = options.botToken ?? 'fake-bot-token.ABCDEF.0123456789';
  const botUser: FakeUser = { id: '1200000000000000002', username: 'quad-bot', global_name: null, avatar: null, bot: true };

  const users = new Map<string, FakeUser>([[botUser.id, botUser]]);
  const guilds = new Map<string, FakeGuild & { roles: Map<string, FakeRole>; members: Map<string, FakeMember> }>();
  const codes = new Map<string, { userId: string; redirectUri: string; scope: string }>();
  const userTokens = new Map<string, { userId: string; scope: string }>();
  const webhooks = new Map<string, FakeWebhook>();
  const scheduledEvents = new Map<string, Map<string, FakeScheduledEvent>>();
  const messages: RecordedMessage[] = [];
  const webhookPosts: RecordedWebhookPost[] = [];
  const requests: RecordedRequest[] = [];
  let signedIn: string | null = null;
  let isDown = false;
  let rateLimits: { seconds: number; count: number } | null = null;
  let bucketLimit: FakeBucketLimit = { limit: 10_000, windowMs: 1000 };
  const buckets = new Map<string, { used: number; resetAt: number }>();
  let tooManyRequests = 0;
  let delays: { ms: number; count: number } | null = null;
  let answerDelays: { ms: number; count: number } | null = null;
  const timers = new Set<NodeJS.Timeout>();
  let gateway: FakeGateway | null = null;

  const guildOf = (id: string) => {
    const g = guilds.get(id);
    if (!g) throw new Error(`fake discord: no guild ${id}`);
    return g;
  };
  const userOf = (id: string) => {
    const u = users.get(id);
    if (!u) throw new Error(`fake discord: no user ${id}`);
    return u;
  };
  const memberJson = (m: FakeMember) => ({
    user: { ...userOf(m.userId), discriminator: '0', public_flags: 0 },
    nick: m.nick, avatar: null, roles: [...m.roles], joined_at: m.joined_at, deaf: false, mute: false, flags: 0,
  });
  const guildJson = (g: FakeGuild) => ({ id: g.id, name: g.name, icon: g.icon, owner_id: g.ownerId, features: [] });
  const partialGuildJson = (g: FakeGuild) => ({ id: g.id, name: g.name, icon: g.icon, owner: false, permissions: '0', features: [] });
  const messageJson = (id: string, channelId: string, body: unknown, extra: Record<string, unknown> = {}) => {
    const b = (body ?? {}) as Record<string, unknown>;
    return { id, channel_id: channelId, content: b.content ?? '', embeds: b.embeds ?? [], timestamp: new Date().toISOString(), ...extra };
  };

  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(() => { timers.delete(timer); resolve(); }, ms);
    timers.add(timer);
  });

  async function handle(req: IncomingMessage, rawBody: string): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const authz = req.headers.authorization ?? '';
    const auth: RecordedRequest['auth'] = authz.startsWith('Bot ') ? 'bot' : authz.startsWith('Bearer ') ? 'bearer' : authz ? 'invalid' : 'none';
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query, auth, headers: req.headers });

    // A proxy in front of Discord answers this one, without rate-limit headers.
    if (isDown) return json(502, { message: 'Bad Gateway' });
    await outage.gate(url.pathname);

    // Real Discord serves the API under /api and /api/v<n>; the fake also serves it at the root.
    const path = url.pathname.replace(/^\/api(?:\/v\d+)?(?=\/)/, '');
    const method = req.method ?? 'GET';
    const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    const route = `${method} /${seg.map((s, i) => (/^\d+$/.test(s) && i > 0 ? ':id' : s)).join('/')}`;

    // Discord's buckets: one per route (a webhook's token is not part of it), counted per top-level resource.
    const bucketRoute = seg[0] === 'webhooks' && seg.length >= 3 ? `${method} /webhooks/:id/:token` : route;
    const bucket = createHash('sha256').update(bucketRoute).digest('hex').slice(0, 32);
    const major = ['guilds', 'channels', 'webhooks'].includes(seg[0] ?? '') && seg[1] ? seg[1] : 'global';
    const limited = (seconds: number, headers: Record<string, string>) => {
      tooManyRequests++;
      return json(429, { message: 'You are being rate limited.', retry_after: seconds, global: false }, {
        ...headers, 'Retry-After': String(Math.ceil(seconds)), 'X-RateLimit-Scope': 'user',
      });
    };
    if (rateLimits && rateLimits.count > 0) {
      const seconds = rateLimits.seconds;
      if (--rateLimits.count === 0) rateLimits = null;
      return limited(seconds, {
        'X-RateLimit-Limit': String(bucketLimit.limit), 'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(Date.now() / 1000 + seconds), 'X-RateLimit-Reset-After': String(seconds), 'X-RateLimit-Bucket': bucket,
      });
    }
    const now = Date.now();
    let count = buckets.get(`${bucket}:${major}`);
    if (!count || now >= count.resetAt) buckets.set(`${bucket}:${major}`, (count = { used: 0, resetAt: now + bucketLimit.windowMs }));
    const spent = count.used >= bucketLimit.limit;
    if (!spent) count.used++;
    const resetAfter = (count.resetAt - now) / 1000;
    const rateHeaders = {
      'X-RateLimit-Limit': String(bucketLimit.limit), 'X-RateLimit-Remaining': String(bucketLimit.limit - count.used),
      'X-RateLimit-Reset': String(count.resetAt / 1000), 'X-RateLimit-Reset-After': resetAfter.toFixed(3), 'X-RateLimit-Bucket': bucket,
    };
    if (spent) return limited(resetAfter, rateHeaders);

    if (delays && delays.count > 0) {
      const ms = delays.ms;
      if (--delays.count === 0) delays = null;
      await sleep(ms);
    }
    const answer = await routeRequest(req, rawBody, { url, query, auth, authz, path, method, seg, route });
    if (answerDelays && answerDelays.count > 0) {
      const ms = answerDelays.ms;
      if (--answerDelays.count === 0) answerDelays = null;
      await sleep(ms);
    }
    return new Answer(answer.status, answer.body, { ...rateHeaders, ...answer.headers });
  }

  interface Parsed { url: URL; query: Record<string, string>; auth: RecordedRequest['auth']; authz: string; path: string; method: string; seg: string[]; route: string }

  async function routeRequest(req: IncomingMessage, rawBody: string, { url, query, auth, authz, method, seg, route }: Parsed): Promise<Answer> {

    // --- OAuth (no Authorization header) ---
    if (route === 'GET /oauth2/authorize') {
      if (query.client_id !== clientId) return json(400, { error: 'invalid_client' });
      if (query.response_type !== 'code') return json(400, { error: 'unsupported_response_type' });
      if (!query.redirect_uri) return json(400, { error: 'invalid_request', error_description: 'redirect_uri missing' });
      if (!signedIn) return json(400, { error: 'access_denied', error_description: 'nobody is signed in to the fake' });
      const code = issueCode(signedIn, query.redirect_uri, query.scope ?? 'identify');
      const to = new URL(query.redirect_uri);
      to.searchParams.set('code', code);
      if (query.state !== undefined) to.searchParams.set('state', query.state);
      return new Answer(302, undefined, { Location: to.toString() });
    }
    if (route === 'POST /oauth2/token') {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return json(400, { error: 'invalid_request' });
      const form = Object.fromEntries(new URLSearchParams(rawBody));
      if (form.client_id !== clientId || form.client_secret !== clientSecret) return json(401, { error: 'invalid_client' });
      if (form.grant_type !== 'authorization_code') return json(400, { error: 'unsupported_grant_type' });
      const issued = form.code ? codes.get(form.code) : undefined;
      if (!issued || issued.redirectUri !== form.redirect_uri) return json(400, { error: 'invalid_grant' });
      codes.delete(form.code!);
      const access = secret();
      userTokens.set(access, { userId: issued.userId, scope: issued.scope });
      return json(200, { access_token: access, token_type: 'Bearer', expires_in: 604800, refresh_token: secret(), scope: issued.scope });
    }

    // --- The gateway's address (developers/events/gateway.mdx, "Get Gateway"): no credential ---
    if (route === 'GET /gateway' && gateway) return json(200, { url: gateway.url });

    // --- Everything else needs a credential ---
    let caller: { kind: 'bot' } | { kind: 'user'; userId: string };
    if (auth === 'bot' && authz === `Bot ${botToken}`) caller = { kind: 'bot' };
    else if (auth === 'bearer' && userTokens.has(authz.slice('Bearer '.length))) caller = { kind: 'user', userId: userTokens.get(authz.slice('Bearer '.length))!.userId };
    else if (route.startsWith('POST /webhooks/')) caller = { kind: 'bot' }; // webhooks authenticate by the token in the path
    else return discordError(401, '401: Unauthorized', 0);

    if (route === 'GET /users/@me') return json(200, caller.kind === 'bot' ? { ...botUser, bot: true } : { ...userOf(caller.userId), discriminator: '0' });

    if (route === 'GET /users/@me/guilds') {
      const limit = Math.min(200, Math.max(1, Number(query.limit ?? 200) || 200));
      const after = query.after ?? '0';
      const visible = [...guilds.values()].filter((g) => caller.kind === 'bot' || g.members.has(caller.userId));
      return json(200, visible.filter((g) => cmpId(g.id, after) > 0).sort((a, b) => cmpId(a.id, b.id)).slice(0, limit).map(partialGuildJson));
    }

    if (seg[0] === 'webhooks' && method === 'POST' && seg.length === 3) {
      const hook = webhooks.get(seg[1]!);
      if (!hook) return discordError(404, 'Unknown Webhook', 10015);
      if (hook.token !== seg[2]) return discordError(401, 'Invalid Webhook Token', 50027);
      const body = parseJson(rawBody);
      if (body === undefined) return discordError(400, 'Invalid JSON', 50109);
      const wait = query.wait === 'true';
      webhookPosts.push({ webhookId: hook.id, wait, path: url.pathname, query, headers: req.headers, body });
      return wait ? json(200, messageJson(snowflake(), hook.channelId, body, { webhook_id: hook.id })) : new Answer(204);
    }

    if (caller.kind !== 'bot') return discordError(403, 'Missing Access', 50001);

    // "Get Gateway Bot": the URL, the recommended shards and the session start limit (identifies left today).
    if (route === 'GET /gateway/bot' && gateway) {
      return json(200, {
        url: gateway.url, shards: gateway.shards,
        session_start_limit: { total: 1000, remaining: Math.max(0, 1000 - gateway.stats.identified), reset_after: 14_400_000, max_concurrency: 1 },
      });
    }

    if (seg[0] === 'channels' && seg.length === 3 && seg[2] === 'messages' && method === 'POST') {
      const body = parseJson(rawBody) as Record<string, unknown> | undefined;
      if (!body || typeof body !== 'object') return discordError(400, 'Invalid JSON', 50109);
      if (!body.content && !(Array.isArray(body.embeds) && body.embeds.length)) return discordError(400, 'Cannot send an empty message', 50006);
      if (body.nonce !== undefined && (typeof body.nonce !== 'string' || body.nonce.length > 25)) return json(400, { message: 'Invalid Form Body', code: 50035, errors: { nonce: {} } });
      // enforce_nonce: a message the bot already posted with this nonce comes back instead of a new one.
      const twin = body.enforce_nonce === true && body.nonce !== undefined && messages.find((m) => (m.body as Record<string, unknown>).nonce === body.nonce);
      if (twin) return json(200, messageJson(twin.id, twin.channelId, twin.body));
      const id = snowflake();
      messages.push({ id, channelId: seg[1]!, path: url.pathname, query, headers: req.headers, body });
      return json(200, messageJson(id, seg[1]!, body));
    }

    if (seg[0] === 'guilds' && seg[1] && method === 'GET') {
      const g = guilds.get(seg[1]);
      if (!g) return discordError(404, 'Unknown Guild', 10004);
      if (seg.length === 2) return json(200, guildJson(g));
      if (seg.length === 3 && seg[2] === 'scheduled-events') {
        return json(200, [...(scheduledEvents.get(g.id)?.values() ?? [])].map((e) => ({
          id: e.id, guild_id: g.id, channel_id: null, name: e.name, description: e.description, scheduled_start_time: e.scheduled_start_time,
          scheduled_end_time: e.scheduled_end_time, privacy_level: 2, status: e.status, entity_type: 3, entity_id: null,
          entity_metadata: e.location === null ? null : { location: e.location },
        })));
      }
      if (seg.length === 3 && seg[2] === 'roles') return json(200, [...g.roles.values()].sort((a, b) => a.position - b.position));
      if (seg.length === 4 && seg[2] === 'members' && seg[3] === 'search') {
        // Like the full list, Discord refuses member search without the Server Members intent.
        if (!g.membersIntent) return discordError(403, 'Missing Access', 50001);
        if (query.query === undefined) return json(400, { message: 'Invalid Form Body', code: 50035, errors: { query: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } });
        const limit = Math.min(1000, Math.max(1, Number(query.limit ?? 1) || 1));
        const q = query.query.toLowerCase();
        const hits = [...g.members.values()]
          .filter((m) => userOf(m.userId).username.toLowerCase().startsWith(q) || (m.nick ?? '').toLowerCase().startsWith(q))
          .slice(0, limit);
        return json(200, hits.map(memberJson));
      }
      if (seg.length === 4 && seg[2] === 'members') {
        const m = g.members.get(seg[3]!);
        return m ? json(200, memberJson(m)) : discordError(404, 'Unknown Member', 10007);
      }
      if (seg.length === 3 && seg[2] === 'members') {
        if (!g.membersIntent) return discordError(403, 'Missing Access', 50001);
        const limit = Math.min(1000, Math.max(1, Number(query.limit ?? 1) || 1));
        const after = query.after ?? '0';
        const page = [...g.members.values()].filter((m) => cmpId(m.userId, after) > 0).sort((a, b) => cmpId(a.userId, b.userId)).slice(0, limit);
        return json(200, page.map(memberJson));
      }
    }

    return notFoundRoute();
  }

  function issueCode(userId: string, redirectUri: string, scope = 'identify guilds'): string {
    userOf(userId);
    const code = secret(18);
    codes.set(code, { userId, redirectUri, scope });
    return code;
  }

  const server = createServer((req, res) => {
    if (outage.unreachable) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks).toString('utf8'))
        .catch((err: unknown) => json(500, { message: `fake discord crashed: ${(err as Error).message}`, code: 0 }))
        .then((a) => send(res, a));
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  const outage = outageControls(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeDiscord = {
    url, clientId, clientSecret, botToken, botUser, messages, webhookPosts, requests,
    addUser(u) {
      const user: FakeUser = { id: u.id ?? snowflake(), username: u.username, global_name: u.global_name ?? null, avatar: u.avatar ?? null, ...(u.bot && { bot: true as const }) };
      users.set(user.id, user);
      return user;
    },
    addGuild(g) {
      const id = g.id ?? snowflake();
      const guild = { id, name: g.name, icon: g.icon ?? null, membersIntent: g.membersIntent ?? true, ownerId: g.ownerId ?? null, roles: new Map<string, FakeRole>(), members: new Map<string, FakeMember>() };
      // Discord's @everyone role has the guild's id and sits at position 0.
      guild.roles.set(id, { id, name: '@everyone', color: 0, position: 0, managed: false });
      guilds.set(id, guild);
      const { roles: _r, members: _m, ...plain } = guild;
      return plain;
    },
    addRole(guildId, r) {
      const g = guildOf(guildId);
      const role: FakeRole = { id: r.id ?? snowflake(), name: r.name, color: r.color ?? 0, position: r.position ?? g.roles.size, managed: r.managed ?? false };
      g.roles.set(role.id, role);
      return role;
    },
    addMember(guildId, userId, roleIds = [], nick = null) {
      const g = guildOf(guildId);
      userOf(userId);
      for (const r of roleIds) if (!g.roles.has(r)) throw new Error(`fake discord: no role ${r} in guild ${guildId}`);
      const member: FakeMember = { userId, roles: [...roleIds], nick, joined_at: new Date().toISOString() };
      g.members.set(userId, member);
      return member;
    },
    removeMember(guildId, userId) {
      guildOf(guildId).members.delete(userId);
    },
    setRoles(guildId, userId, roleIds) {
      const g = guildOf(guildId);
      const m = g.members.get(userId);
      if (!m) throw new Error(`fake discord: ${userId} is not a member of ${guildId}`);
      for (const r of roleIds) if (!g.roles.has(r)) throw new Error(`fake discord: no role ${r} in guild ${guildId}`);
      m.roles = [...roleIds];
    },
    setMembersIntent(guildId, on) {
      guildOf(guildId).membersIntent = on;
    },
    signInAs(userId) {
      if (userId !== null) userOf(userId);
      signedIn = userId;
    },
    issueCode,
    addWebhook(opts = {}) {
      const id = opts.id ?? snowflake();
      const token = secret(48);
      const hook: FakeWebhook = { id, token, channelId: opts.channelId ?? snowflake(), url: `${url}/api/webhooks/${id}/${token}` };
      webhooks.set(id, hook);
      return hook;
    },
    putScheduledEvent(guildId, e) {
      guildOf(guildId);
      const event: FakeScheduledEvent = {
        id: e.id ?? snowflake(), name: e.name, description: e.description ?? null, scheduled_start_time: e.scheduled_start_time,
        scheduled_end_time: e.scheduled_end_time ?? null, location: e.location ?? null, status: e.status ?? 1,
      };
      if (!scheduledEvents.has(guildId)) scheduledEvents.set(guildId, new Map());
      scheduledEvents.get(guildId)!.set(event.id, event);
      return event;
    },
    removeScheduledEvent(guildId, id) {
      scheduledEvents.get(guildId)?.delete(id);
    },
    down(on) {
      isDown = on;
    },
    unreachable: (on) => outage.setUnreachable(on),
    hold: (on, only) => outage.hold(on, only),
    get holding() {
      return outage.holding;
    },
    rateLimitNext(retryAfterSeconds, count = 1) {
      rateLimits = { seconds: retryAfterSeconds, count };
    },
    limitBuckets(limit, windowMs) {
      bucketLimit = { limit, windowMs };
      buckets.clear();
    },
    get tooManyRequests() {
      return tooManyRequests;
    },
    delayNext(ms, count = 1) {
      delays = { ms, count };
    },
    delayAnswerNext(ms, count = 1) {
      answerDelays = { ms, count };
    },
    async startGateway(gatewayOptions) {
      if (gateway) throw new Error('fake discord: the gateway is already started');
      gateway = await startFakeGateway({
        token: botToken, applicationId: clientId, botUser,
        guildIds: () => [...guilds.keys()],
        user: userOf,
        member: (guildId, userId) => guildOf(guildId).members.get(userId),
        addMember: (guildId, userId) => fake.addMember(guildId, userId),
      }, gatewayOptions);
      return gateway;
    },
    get gateway() {
      return gateway;
    },
    async close() {
      await gateway?.close();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      outage.releaseAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return fake;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, a: Answer): void {
  if (res.destroyed || res.writableEnded) return;
  const headers: Record<string, string> = { ...a.headers };
  if (a.body !== undefined) headers['Content-Type'] = 'application/json';
  res.writeHead(a.status, headers);
  res.end(a.body === undefined ? undefined : JSON.stringify(a.body));
}
