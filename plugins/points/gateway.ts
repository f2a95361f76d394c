// points.gateway: the Discord gateway connection (a singleton daemon of the worker processes, only with BOT_TOKEN).
// Thin on purpose: it hands MESSAGE_CREATE to awardForMessage and GUILD_MEMBER_ADD to recordMemberJoined, which
// hold all the logic. It reconnects on its own (the library resumes sessions, and the events missed meanwhile are
// replayed); when the first connection fails it retries with a growing wait. Discord's refusals that no retry can
// fix (a wrong token, a privileged intent not enabled for the bot) are logged as errors naming the fix. Tested end
// to end against the fake gateway (test/fakes/discord/gateway.ts; test/gateway.test.ts).
import type { DaemonDecl } from '@quad/core';
import type { SessionInfo } from '@discordjs/ws';
import { awardForMessage, memberFromGateway, messageFromGateway, recordMemberJoined } from './messages.js';

/** GUILDS | GUILD_MEMBERS (privileged) | GUILD_MESSAGES. Message content is not needed. */
export const GATEWAY_INTENTS = (1 << 0) | (1 << 1) | (1 << 9);
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 300_000;
/** Awards handled at the same time; more wait in line (each takes a pooled connection). */
const CONCURRENCY = 4;

/**
 * Close codes after which the library does not reconnect (Discord: "Reconnect: false"), with what the operator must
 * do. The daemon then stays idle until the worker restarts.
 */
export const FATAL_CLOSE_CODES: Record<number, string> = {
  4004: 'Discord refused BOT_TOKEN (authentication failed): set the bot\'s current token',
  4010: 'Discord refused the shard (invalid shard)',
  4011: 'Discord requires sharding for this bot (too many servers for one connection)',
  4012: 'Discord refused the gateway API version',
  4013: 'Discord refused the intents as invalid',
  4014: 'Discord refused a privileged intent: turn on "Server Members Intent" for the bot (Developer Portal, Bot page)',
};

/** DISCORD_API_URL (`https://discord.com/api/v10`) as the library's base and version. */
export function restBase(apiUrl: string): { api: string; version: string } {
  const url = apiUrl.replace(/(?<!\/)\/+$/, '');
  const m = /^(.*)\/v(\d+)$/.exec(url);
  return m ? { api: m[1]!, version: m[2]! } : { api: url, version: '10' };
}

export const gatewayDaemon: DaemonDecl = {
  name: 'points.gateway',
  description: 'Discord gateway connection: points per message (MESSAGE_CREATE) and new members (GUILD_MEMBER_ADD)',
  singleton: true,
  enabled: (services) => !!services.settings.BOT_TOKEN && services.moduleSettings<{ POINTS_GATEWAY?: boolean }>('points').POINTS_GATEWAY !== false,
  async start({ orm, services, log }) {
    const token = services.settings.BOT_TOKEN!;
    // Loaded here, by the one worker that runs the gateway: every other process (API, CLI) skips them.
    const [{ REST }, { WebSocketManager, WebSocketShardEvents }] = await Promise.all([import('@discordjs/rest'), import('@discordjs/ws')]);
    const rest = new REST({ ...restBase(services.settings.DISCORD_API_URL), timeout: services.settings.DISCORD_TIMEOUT_MS, retries: 1 }).setToken(token);
    // Session (for resumes) kept per connection manager, not in the library's store shared by the whole process.
    const sessions = new Map<number, SessionInfo>();
    const manager = new WebSocketManager({
      token, intents: GATEWAY_INTENTS, rest,
      retrieveSessionInfo: (shardId) => sessions.get(shardId) ?? null,
      updateSessionInfo: (shardId, info) => { if (info) sessions.set(shardId, info); else sessions.delete(shardId); },
    });
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let running = 0;
    const waiting: (() => Promise<void>)[] = [];

    const pump = () => {
      while (running < CONCURRENCY && waiting.length) {
        const work = waiting.shift()!;
        running++;
        void work().catch((err) => log.error({ err }, 'points.gateway: could not handle a gateway event')).finally(() => { running--; pump(); });
      }
    };

    manager.on(WebSocketShardEvents.Dispatch, (payload) => {
      const { t, d } = payload as { t: string; d: unknown };
      if (t === 'MESSAGE_CREATE') {
        const msg = messageFromGateway(d);
        if (msg) {
          waiting.push(async () => {
            const outcome = await awardForMessage(orm, services, msg);
            log.debug({ message_id: msg.messageId, guild_id: msg.guildId, outcome }, 'points.gateway: MESSAGE_CREATE handled');
          });
        }
      } else if (t === 'GUILD_MEMBER_ADD') {
        const joined = memberFromGateway(d);
        if (joined) {
          waiting.push(async () => {
            const outcome = await recordMemberJoined(orm, services, joined);
            log.debug({ chat_user_id: joined.chatUserId, guild_id: joined.guildId, outcome }, 'points.gateway: GUILD_MEMBER_ADD handled');
          });
        }
      }
      pump();
    });
    manager.on(WebSocketShardEvents.Error, (err) => log.warn({ err }, 'points.gateway: shard error'));
    manager.on(WebSocketShardEvents.Resumed, () => log.info('points.gateway: resumed the session (missed events are replayed)'));
    manager.on(WebSocketShardEvents.Closed, (code) => {
      const fatal = FATAL_CLOSE_CODES[code];
      if (fatal) log.error({ code }, `points.gateway: ${fatal}; the gateway stays disconnected until the worker restarts`);
      else if (!stopped) log.info({ code }, 'points.gateway: the gateway connection closed; reconnecting');
    });

    const connect = async (wait: number) => {
      timer = null;
      if (stopped) return;
      try {
        await manager.connect();
        log.info('points.gateway: connected to the Discord gateway');
      } catch (err) {
        log.warn({ err }, `points.gateway: could not connect to the Discord gateway; retrying in ${Math.round(wait / 1000)} s`);
        if (stopped) return;
        timer = setTimeout(() => void connect(Math.min(wait * 2, RETRY_MAX_MS)), wait);
        timer.unref();
      }
    };
    void connect(RETRY_MIN_MS);

    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.resolve(manager.destroy()).catch((err) => log.warn({ err }, 'points.gateway: could not close the connection'));
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
      // Let the events in hand finish; drop the ones still waiting (Discord would resend nothing, but a lost
      // award of a single message is acceptable).
      waiting.length = 0;
      for (let i = 0; running > 0 && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
    };
  },
};
