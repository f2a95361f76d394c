// Is the Discord bot reachable? Probed at most every 30 s (5 s while it is down) and shared by the superadmin
// routes (503 when it is not) and the health page.
import { DiscordUnavailable, type DiscordClient } from '../adapters/discord/index.js';

export interface BotHealth { configured: boolean; available: boolean; servers: number | null; checked_at: string | null; error: string | null }

export class BotStatus {
  private last: { health: BotHealth; at: number } | null = null;
  private probing: Promise<BotHealth> | null = null;

  constructor(private readonly discord: DiscordClient) {}

  async health(): Promise<BotHealth> {
    if (!this.discord.hasBot) return { configured: false, available: false, servers: null, checked_at: null, error: 'BOT_TOKEN is not set' };
    const maxAge = this.last?.health.available ? 30_000 : 5_000;
    if (this.last && Date.now() - this.last.at < maxAge) return this.last.health;
    this.probing ??= this.probe().finally(() => { this.probing = null; });
    return this.probing;
  }

  private async probe(): Promise<BotHealth> {
    const checked_at = new Date().toISOString();
    let health: BotHealth;
    try {
      const guilds = await this.discord.botGuilds();
      health = { configured: true, available: true, servers: guilds.length, checked_at, error: null };
    } catch (err) {
      const error = err instanceof DiscordUnavailable ? err.message : `Discord refused the bot: ${(err as Error).message}`;
      health = { configured: true, available: false, servers: null, checked_at, error };
    }
    this.last = { health, at: Date.now() };
    return health;
  }
}
