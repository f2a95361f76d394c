// The shapes the Discord adapter takes and returns: settings and the trimmed Discord objects Quad uses.

export interface DiscordSettings {
  /** REST base, e.g. https://discord.com/api/v10 (DISCORD_API_URL). */
  apiUrl: string;
  /** Browser sign-in page, e.g. https://discord.com/oauth2/authorize (DISCORD_AUTHORIZE_URL). */
  authorizeUrl: string;
  clientId?: string;
  clientSecret?: string;
  botToken?: string;
  /** Per-attempt timeout of every call; default 5000. */
  timeoutMs?: number;
  /** Page size of listMembers and botGuilds; defaults to Discord's maxima (1000 and 200). Lowered only by tests. */
  pageSize?: number;
}

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
}

export interface DiscordMember {
  user: DiscordUser;
  nick: string | null;
  /** Role ids; Discord leaves out @everyone (whose id is the guild's id). */
  roles: string[];
  joined_at: string;
}

export interface DiscordRole {
  id: string;
  name: string;
  color: number;
  position: number;
  managed: boolean;
}

export interface DiscordGuild {
  id: string;
  name: string;
  icon: string | null;
}

export interface DiscordTokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
}
