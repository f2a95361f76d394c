// Fake Discord gateway for tests: a WebSocket server on 127.0.0.1 (random port) speaking the gateway protocol as
// Discord documents it (repository discord/discord-api-docs: developers/events/gateway.mdx, gateway-events.mdx,
// developers/topics/opcodes-and-status-codes.mdx), so a real client (`@discordjs/ws`, as production runs it) can
// connect, lose its connection and resume against it:
// - Hello (op 10) with the heartbeat interval; Heartbeat (op 1) answered by Heartbeat ACK (op 11);
// - Identify (op 2): token, intents (unknown bits close 4013, a privileged intent the bot has not enabled 4014) and
//   shard checked; READY (op 0) with `session_id` and `resume_gateway_url`; a second Identify closes 4005, any
//   other payload before it 4003, an unknown opcode 4001, a payload that is not JSON or over 4096 bytes 4002;
// - Dispatch (op 0) with the session's sequence numbers: MESSAGE_CREATE and GUILD_MEMBER_ADD shaped as the docs
//   shape them (types from discord-api-types), sent only to sessions whose intents and shard cover them;
// - Resume (op 6): the events the client missed after its `seq` are replayed in order, then RESUMED; an unknown
//   or invalidated session gets Invalid Session (op 9, false), a `seq` ahead of the session closes 4007;
// - Reconnect (op 7) and Invalid Session (op 9) on request; a client closing with 1000 or 1001 ends its session.
// Test controls: drop the connection (cut, or with a close code), hold new connections before Hello (the client is
// away while events queue for it), withhold heartbeat ACKs (a zombie connection), and a log of every connection
// and what its client sent. JSON encoding without compression only (`@discordjs/ws` asks for exactly that by
// default); not modelled: the GUILD_CREATE backfill after READY (nothing in Quad reads it), ETF, transport or
// payload compression, send rate limits and session expiry. Test code, not production code.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type {
  APIGuildMember, APIUser, ApplicationFlags, GatewayGuildMemberAddDispatchData, GatewayMessageCreateDispatchData, GatewayReadyDispatchData,
  MessageFlags, UserFlags,
} from 'discord-api-types/v10';
import type { FakeMember, FakeUser } from './index.js';

/** Gateway intents (developers/events/gateway.mdx, "List of Intents"). */
export const GatewayIntents = {
  Guilds: 1 << 0, GuildMembers: 1 << 1, GuildModeration: 1 << 2, GuildExpressions: 1 << 3, GuildIntegrations: 1 << 4,
  GuildWebhooks: 1 << 5, GuildInvites: 1 << 6, GuildVoiceStates: 1 << 7, GuildPresences: 1 << 8, GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10, GuildMessageTyping: 1 << 11, DirectMessages: 1 << 12, DirectMessageReactions: 1 << 13,
  DirectMessageTyping: 1 << 14, MessageContent: 1 << 15, GuildScheduledEvents: 1 << 16, AutoModerationConfiguration: 1 << 20,
  AutoModerationExecution: 1 << 21, GuildMessagePolls: 1 << 24, DirectMessagePolls: 1 << 25,
} as const;
const ALL_INTENTS = Object.values(GatewayIntents).reduce((all, bit) => all | bit, 0);
/** The privileged intents: a bot passes them only when they are enabled for it in the Developer Portal. */
export const PRIVILEGED_INTENTS = GatewayIntents.GuildMembers | GatewayIntents.GuildPresences | GatewayIntents.MessageContent;

/** Close codes (developers/topics/opcodes-and-status-codes.mdx, "Gateway Close Event Codes"). */
export const GatewayCloseCodes = {
  UnknownError: 4000, UnknownOpcode: 4001, DecodeError: 4002, NotAuthenticated: 4003, AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005, InvalidSeq: 4007, RateLimited: 4008, SessionTimedOut: 4009, InvalidShard: 4010,
  ShardingRequired: 4011, InvalidAPIVersion: 4012, InvalidIntents: 4013, DisallowedIntents: 4014,
} as const;

const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, PresenceUpdate: 3, VoiceStateUpdate: 4, Resume: 6, Reconnect: 7,
  RequestGuildMembers: 8, InvalidSession: 9, Hello: 10, HeartbeatAck: 11, RequestSoundboardSounds: 31, RequestChannelInfo: 43 } as const;
/** Send events a client may use once identified; the fake records and otherwise ignores them. */
const OTHER_SEND_OPS = new Set<number>([Op.PresenceUpdate, Op.VoiceStateUpdate, Op.RequestGuildMembers, Op.RequestSoundboardSounds, Op.RequestChannelInfo]);
/** Discord's limit on a payload a client sends (gateway.mdx, "Sending Events"). */
const MAX_CLIENT_PAYLOAD = 4096;
/** Events kept per session for resumes; a resume from before the oldest one is refused (op 9). */
const REPLAY_BUFFER = 1000;
/** Guild member flag DID_REJOIN (developers/resources/guild.mdx, "Guild Member Flags"). */
const DID_REJOIN = 1 << 0;
const DISCORD_EPOCH = 1_420_070_400_000n;

/** What the gateway needs of the REST fake's state (test/fakes/discord/index.ts). */
export interface GatewayDirectory {
  token: string;
  applicationId: string;
  botUser: FakeUser;
  guildIds(): string[];
  /** The user (throws when unknown). */
  user(id: string): FakeUser;
  member(guildId: string, userId: string): FakeMember | undefined;
  /** Make the user a member of the guild (the REST fake's member lists and search see them). */
  addMember(guildId: string, userId: string): FakeMember;
}

export interface FakeGatewayOptions {
  /** Milliseconds between heartbeats, sent in Hello. Default 41250 (what Discord sends). */
  heartbeatIntervalMs?: number;
  /** The privileged intents enabled for the bot (Developer Portal); identifying with another closes 4014. Default: all. */
  privilegedIntents?: number;
  /** Shards GET /gateway/bot recommends. Default 1. */
  shards?: number;
}

/** One WebSocket connection a client opened, and what it sent. */
export interface GatewayConnectionRecord {
  path: string;
  query: Record<string, string>;
  /** Every payload the client sent on it, parsed (Identify and Resume with their token). */
  received: { op: number; d: unknown }[];
  /** Why it ended: the close code, and which side closed; null while open. A cut connection is code 1006. */
  closed: { code: number; by: 'client' | 'server' } | null;
}

export interface GatewaySessionView {
  id: string;
  /** The last sequence number sent to it. */
  seq: number;
  intents: number;
  shard: [number, number];
  /** Whether a connection of it is open and identified or resumed. */
  online: boolean;
  /** False once invalidated (closed 1000/1001 by the client, or op 9 false). */
  valid: boolean;
}

export interface GatewayStats {
  /** READY sent (a new session). */
  identified: number;
  /** RESUMED sent. */
  resumed: number;
  /** Events sent again by resumes. */
  replayed: number;
  heartbeats: number;
  acks: number;
}

export interface FakeGateway {
  /** ws://127.0.0.1:PORT — what GET /gateway/bot answers. */
  readonly url: string;
  /** READY's resume_gateway_url: the same server at /resume, so a test sees which URL the client resumed on. */
  readonly resumeUrl: string;
  readonly heartbeatIntervalMs: number;
  readonly shards: number;
  readonly connections: readonly GatewayConnectionRecord[];
  readonly stats: Readonly<GatewayStats>;
  /** The newest session, or null before the first Identify. */
  readonly session: GatewaySessionView | null;
  /** Connections held before Hello by holdConnections. */
  readonly held: number;
  /**
   * A member of a guild writes a message: MESSAGE_CREATE (the author must be a user of the fake). Without the
   * MESSAGE_CONTENT intent the session gets an empty `content`, as Discord sends it. `webhookId` makes it a webhook's
   * message (no member, the webhook as author under the user's name); `at` sets its time (and its snowflake's).
   */
  sendMessage(m: { guildId: string; authorId: string; content?: string; channelId?: string; at?: Date; webhookId?: string }): GatewayMessageCreateDispatchData;
  /**
   * A user joins a guild: they become a member (REST too) and GUILD_MEMBER_ADD is dispatched. For a user who is a
   * member already, Discord may send the event again (gateway-events.mdx): the same payload, same `joined_at`. A
   * user who left (removeMember) and joins again gets a new `joined_at` and the DID_REJOIN flag.
   */
  memberJoins(guildId: string, userId: string): GatewayGuildMemberAddDispatchData;
  /** Any dispatch event, to the sessions whose intents include `intent` (and, with `guildId`, whose shard has it). */
  dispatch(t: string, d: unknown, intent: number, guildId?: string): void;
  /**
   * Drop every open connection: cut without a close frame (what a network failure looks like: the client sees 1006),
   * or closed with `code`. Sessions stay resumable.
   */
  drop(code?: number): void;
  /** While on, a new connection gets no Hello until it is turned off: the client is away and events queue for it. */
  holdConnections(on: boolean): void;
  /** Send Reconnect (op 7) on every open connection. */
  requestReconnect(): void;
  /** Send Invalid Session (op 9) with `resumable` on every open connection; false invalidates their sessions. */
  invalidateSession(resumable: boolean): void;
  /** Ask every open connection for a heartbeat now (op 1). */
  requestHeartbeat(): void;
  /** While on, heartbeats get no ACK (a zombie connection, which the client should close and resume). */
  withholdAcks(on: boolean): void;
  close(): Promise<void>;
}

interface Frame { op: number; d: unknown; s: number | null; t: string | null }

interface Session {
  id: string;
  seq: number;
  intents: number;
  shard: [number, number];
  /** Dispatches with their sequence numbers, newest last, for resumes. */
  log: Frame[];
  /** The sequence number of the newest dispatch dropped from the log (0: none): a resume from before it is refused. */
  evicted: number;
  live: Conn | null;
  valid: boolean;
}

interface Conn {
  ws: WebSocket;
  record: GatewayConnectionRecord;
  session: Session | null;
  closingByServer: boolean;
}

/** Discord's timestamp format: `2017-07-11T17:27:07.299000+00:00` (developers/resources/message.mdx, example). */
export function discordTimestamp(at: Date): string {
  return at.toISOString().replace('Z', '000+00:00');
}

let increment = 0n;
/** A snowflake made at `at` (developers/reference.mdx, "Snowflakes": milliseconds since 2015 in the top 42 bits). */
export function snowflakeAt(at: Date): string {
  increment = (increment + 1n) % 4096n;
  return String(((BigInt(at.getTime()) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment);
}

/** Whether an event goes to this shard (gateway.mdx, "Sharding Formula"; events of no guild go to shard 0). */
function onShard(guildId: string | undefined, [id, count]: [number, number]): boolean {
  if (guildId === undefined) return id === 0;
  return (BigInt(guildId) >> 22n) % BigInt(count) === BigInt(id);
}

const apiUser = (u: FakeUser): APIUser => ({
  id: u.id, username: u.username, global_name: u.global_name, avatar: u.avatar, discriminator: '0', public_flags: 0 as UserFlags,
  ...(u.bot && { bot: true }),
});

export async function startFakeGateway(directory: GatewayDirectory, options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
  const privileged = options.privilegedIntents ?? PRIVILEGED_INTENTS;
  const shards = options.shards ?? 1;
  const connections: GatewayConnectionRecord[] = [];
  const open = new Set<Conn>();
  const heldConns = new Set<Conn>();
  const sessions = new Map<string, Session>();
  let newest: Session | null = null;
  const stats: GatewayStats = { identified: 0, resumed: 0, replayed: 0, heartbeats: 0, acks: 0 };
  let holding = false;
  let acking = true;
  // The payload of each member's latest join, keyed guild:user, resent as is when Discord repeats the event.
  const joins = new Map<string, GatewayGuildMemberAddDispatchData>();

  const send = (conn: Conn, frame: Frame) => {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(frame));
  };
  const closeConn = (conn: Conn, code: number, reason: string) => {
    conn.closingByServer = true;
    if (conn.session?.live === conn) conn.session.live = null;
    conn.ws.close(code, reason);
  };
  const hello = (conn: Conn) => send(conn, { op: Op.Hello, d: { heartbeat_interval: heartbeatIntervalMs }, s: null, t: null });

  /** Give the session its next sequence number; kept for resumes unless `replayable` is false (READY, RESUMED). */
  const toSession = (session: Session, t: string, d: unknown, replayable = true) => {
    const frame: Frame = { op: Op.Dispatch, t, s: ++session.seq, d };
    if (replayable) {
      session.log.push(frame);
      if (session.log.length > REPLAY_BUFFER) session.evicted = session.log.shift()!.s!;
    }
    if (session.live) send(session.live, frame);
  };

  function identify(conn: Conn, d: unknown) {
    if (conn.session) return closeConn(conn, GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
    const data = d as { token?: unknown; intents?: unknown; properties?: Record<string, unknown>; shard?: unknown; compress?: unknown; large_threshold?: unknown } | null;
    if (!data || typeof data !== 'object') return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    if (data.token !== directory.token) return closeConn(conn, GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    const props = data.properties;
    if (!props || typeof props !== 'object' || !['os', 'browser', 'device'].every((k) => typeof props[k] === 'string')) {
      return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    }
    if (data.compress === true) return closeConn(conn, GatewayCloseCodes.UnknownError, 'fake gateway: payload compression is not supported');
    if (data.large_threshold !== undefined && !(Number.isInteger(data.large_threshold) && (data.large_threshold as number) >= 50 && (data.large_threshold as number) <= 250)) {
      return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    }
    const intents = data.intents;
    if (!Number.isInteger(intents) || (intents as number) < 0 || ((intents as number) & ~ALL_INTENTS) !== 0) {
      return closeConn(conn, GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
    }
    if (((intents as number) & PRIVILEGED_INTENTS & ~privileged) !== 0) return closeConn(conn, GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
    let shard: [number, number] = [0, 1];
    if (data.shard !== undefined) {
      const s = data.shard as unknown[];
      if (!Array.isArray(s) || s.length !== 2 || !s.every(Number.isInteger) || (s[1] as number) < 1 || (s[0] as number) < 0 || (s[0] as number) >= (s[1] as number)) {
        return closeConn(conn, GatewayCloseCodes.InvalidShard, 'Invalid shard.');
      }
      shard = [s[0] as number, s[1] as number];
    }
    const session: Session = { id: randomBytes(16).toString('hex'), seq: 0, intents: intents as number, shard, log: [], evicted: 0, live: conn, valid: true };
    sessions.set(session.id, session);
    newest = session;
    conn.session = session;
    stats.identified++;
    const ready: GatewayReadyDispatchData = {
      v: 10,
      user: apiUser(directory.botUser),
      guilds: directory.guildIds().filter((id) => onShard(id, shard)).map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: resumeUrl,
      ...(data.shard !== undefined && { shard }),
      application: { id: directory.applicationId, flags: 0 as ApplicationFlags, flags_new: '0' },
    };
    toSession(session, 'READY', ready, false);
  }

  function resume(conn: Conn, d: unknown) {
    const data = d as { token?: unknown; session_id?: unknown; seq?: unknown } | null;
    if (!data || typeof data !== 'object' || typeof data.session_id !== 'string' || !(data.seq === null || Number.isInteger(data.seq))) {
      return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    }
    if (data.token !== directory.token) return closeConn(conn, GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    const session = sessions.get(data.session_id);
    const from = (data.seq as number | null) ?? 0;
    // An unknown or ended session, or one whose missed events are no longer kept: the client must identify anew.
    if (!session || !session.valid || from < session.evicted) {
      return send(conn, { op: Op.InvalidSession, d: false, s: null, t: null });
    }
    if (from > session.seq) return closeConn(conn, GatewayCloseCodes.InvalidSeq, 'Invalid seq.');
    if (session.live && session.live !== conn) {
      const old = session.live;
      session.live = null;
      old.closingByServer = true;
      old.ws.terminate();
    }
    if (conn.session && conn.session !== session && conn.session.live === conn) conn.session.live = null;
    conn.session = session;
    session.live = conn;
    for (const frame of session.log) {
      if (frame.s! > from) {
        send(conn, frame);
        stats.replayed++;
      }
    }
    stats.resumed++;
    toSession(session, 'RESUMED', {}, false);
  }

  function onPayload(conn: Conn, raw: RawData, isBinary: boolean) {
    const bytes = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
    if (isBinary || bytes.length > MAX_CLIENT_PAYLOAD) return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(bytes.toString('utf8'));
    } catch {
      return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    }
    if (!payload || typeof payload !== 'object' || !Number.isInteger(payload.op)) return closeConn(conn, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    const op = payload.op as number;
    conn.record.received.push({ op, d: payload.d });
    if (op === Op.Heartbeat) {
      stats.heartbeats++;
      if (acking) {
        stats.acks++;
        send(conn, { op: Op.HeartbeatAck, d: null, s: null, t: null });
      }
      return;
    }
    if (op === Op.Identify) return identify(conn, payload.d);
    if (op === Op.Resume) return resume(conn, payload.d);
    if (!OTHER_SEND_OPS.has(op)) return closeConn(conn, GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    if (!conn.session) return closeConn(conn, GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
  }

  function onConnection(ws: WebSocket, path: string, query: Record<string, string>) {
    const record: GatewayConnectionRecord = { path, query, received: [], closed: null };
    connections.push(record);
    const conn: Conn = { ws, record, session: null, closingByServer: false };
    open.add(conn);
    ws.on('message', (data, isBinary) => onPayload(conn, data, isBinary));
    ws.on('error', () => { /* a broken socket ends in 'close' */ });
    ws.on('close', (code) => {
      open.delete(conn);
      heldConns.delete(conn);
      record.closed = { code, by: conn.closingByServer ? 'server' : 'client' };
      const session = conn.session;
      if (session?.live === conn) session.live = null;
      // gateway.mdx, "Initiating a Disconnect": closing with 1000 or 1001 ends the session; other codes keep it.
      if (session && !conn.closingByServer && (code === 1000 || code === 1001)) session.valid = false;
    });
    if (query.v !== '10' && query.v !== '9') return closeConn(conn, GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version.');
    if (holding) heldConns.add(conn);
    else hello(conn);
  }

  const server = createServer((_req, res) => {
    res.writeHead(400, { 'Content-Type': 'text/plain' });
    res.end('fake gateway: connect with a WebSocket');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const refuse = (socket: Duplex, status: string, why: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(why)}\r\n\r\n${why}`);
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'ws://fake');
    const query = Object.fromEntries(url.searchParams);
    if (url.pathname !== '/' && url.pathname !== '/resume') return refuse(socket, '404 Not Found', 'fake gateway: no such path');
    // The fake speaks what production asks for: JSON, uncompressed. Anything else is a test that needs more of it.
    if ((query.encoding ?? 'json') !== 'json' || query.compress !== undefined) {
      return refuse(socket, '400 Bad Request', 'fake gateway: only encoding=json without compress is supported');
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, url.pathname, query));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `ws://127.0.0.1:${port}`;
  const resumeUrl = `${url}/resume`;

  const dispatch = (t: string, d: unknown, intent: number, guildId?: string) => {
    for (const session of sessions.values()) {
      if (session.valid && (session.intents & intent) === intent && onShard(guildId, session.shard)) toSession(session, t, d);
    }
  };

  const memberJson = (m: FakeMember, flags: number): APIGuildMember & { pending: boolean } => ({
    user: apiUser(directory.user(m.userId)), nick: m.nick, avatar: null, banner: null, roles: [...m.roles],
    joined_at: discordTimestamp(new Date(m.joined_at)), premium_since: null, deaf: false, mute: false, flags, pending: false,
    communication_disabled_until: null,
  });

  return {
    url, resumeUrl, heartbeatIntervalMs, shards, connections,
    get stats() {
      return { ...stats };
    },
    get session() {
      const s = newest;
      return s && { id: s.id, seq: s.seq, intents: s.intents, shard: s.shard, online: s.live !== null, valid: s.valid };
    },
    get held() {
      return heldConns.size;
    },
    sendMessage({ guildId, authorId, content = 'hello', channelId, at = new Date(), webhookId }) {
      const user = directory.user(authorId);
      // message.mdx: a webhook's message has the webhook as its author (its id, name and avatar) and no member.
      const author: APIUser = webhookId
        ? { id: webhookId, username: user.username, global_name: null, avatar: null, discriminator: '0000', bot: true }
        : apiUser(user);
      const member = webhookId ? undefined : directory.member(guildId, authorId);
      const base = {
        id: snowflakeAt(at), channel_id: channelId ?? guildId, author, content, timestamp: discordTimestamp(at),
        edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [],
        components: [], pinned: false, type: 0, flags: 0 as MessageFlags, guild_id: guildId,
        ...(webhookId && { webhook_id: webhookId }),
        // MESSAGE_CREATE's member is partial: no `user` (guild.mdx, "Guild Member Object"), no `pending` outside GUILD_ events.
        ...(member && { member: (({ user: _u, pending: _p, ...rest }) => rest)(memberJson(member, 0)) }),
      } satisfies GatewayMessageCreateDispatchData;
      for (const session of sessions.values()) {
        if (!session.valid || (session.intents & GatewayIntents.GuildMessages) === 0 || !onShard(guildId, session.shard)) continue;
        // gateway.mdx, "Message Content Intent": without it, user content arrives empty.
        const seen = (session.intents & GatewayIntents.MessageContent) !== 0 ? base : { ...base, content: '', embeds: [], attachments: [], components: [] };
        toSession(session, 'MESSAGE_CREATE', seen);
      }
      return base;
    },
    memberJoins(guildId, userId) {
      const key = `${guildId}:${userId}`;
      const member = directory.member(guildId, userId) ?? directory.addMember(guildId, userId);
      let payload = joins.get(key);
      // A new membership (a first join, or a join after leaving) has a new joined_at; a repeat has the same payload.
      if (!payload || payload.joined_at !== discordTimestamp(new Date(member.joined_at))) {
        payload = { ...memberJson(member, payload ? DID_REJOIN : 0), guild_id: guildId } satisfies GatewayGuildMemberAddDispatchData;
        joins.set(key, payload);
      }
      dispatch('GUILD_MEMBER_ADD', payload, GatewayIntents.GuildMembers, guildId);
      return payload;
    },
    dispatch,
    drop(code) {
      for (const conn of open) {
        if (code === undefined) {
          conn.closingByServer = true;
          if (conn.session?.live === conn) conn.session.live = null;
          conn.ws.terminate();
        } else {
          closeConn(conn, code, 'fake gateway: dropped');
        }
      }
    },
    holdConnections(on) {
      holding = on;
      if (!on) {
        for (const conn of heldConns) hello(conn);
        heldConns.clear();
      }
    },
    requestReconnect() {
      for (const conn of open) send(conn, { op: Op.Reconnect, d: null, s: null, t: null });
    },
    invalidateSession(resumable) {
      for (const conn of open) {
        if (!resumable && conn.session) conn.session.valid = false;
        send(conn, { op: Op.InvalidSession, d: resumable, s: null, t: null });
      }
    },
    requestHeartbeat() {
      for (const conn of open) send(conn, { op: Op.Heartbeat, d: null, s: null, t: null });
    },
    withholdAcks(on) {
      acking = !on;
    },
    async close() {
      for (const conn of open) {
        conn.closingByServer = true;
        conn.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
