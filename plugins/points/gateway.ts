// points.gateway: the Discord gateway connection (a singleton daemon of the worker processes, only with BOT_TOKEN).
// Thin on purpose: it hands MESSAGE_CREATE to awardForMessage and GUILD_MEMBER_ADD to recordMemberJoined, which
// hold all the logic and are tested without Discord. It reconnects on its own (the library resumes sessions);
// when the first connection fails it retries with a growing wait.
import type { DaemonDecl } from '@quad/core';
import { awardForMessage, memberFromGateway, messageFromGateway, recordMemberJoined } from './messages.js';

/** GUILDS | GUILD_MEMBERS (privileged) | GUILD_MESSAGES. Message content is not needed. */
export const GATEWAY_INTENTS = (1 << 0) | (1 << 1) | (1 << 9);
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 300_000;
/** Awards handled at the same time; more wait in line (each takes a pooled connection). */
const CONCURRENCY = 4;

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
    const manager = new WebSocketManager({ token, intents: GATEWAY_INTENTS, rest });
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
        if (msg) waiting.push(async () => { await awardForMessage(orm, services, msg); });
      } else if (t === 'GUILD_MEMBER_ADD') {
        const joined = memberFromGateway(d);
        if (joined) waiting.push(async () => { await recordMemberJoined(orm, services, joined); });
      }
      pump();
    });
    manager.on(WebSocketShardEvents.Error, (err) => log.warn({ err }, 'points.gateway: shard error'));

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
