// The shapes the Discord adapter takes and returns: settings, the message bodies it sends (discord-api-types v10)
// and the parts of Discord's objects Quad uses, picked from the same types so they follow the real protocol.
import type {
  APIEmbed, APIGuildMember, APIMessage, APIRole, APIUser, RESTAPIPartialCurrentUserGuild, RESTPostAPIChannelMessageJSONBody,
  RESTPostAPIWebhookWithTokenJSONBody, RESTPostOAuth2AccessTokenResult,
} from 'discord-api-types/v10';

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

/** A bot message (`POST /channels/{channel}/messages`). */
export type DiscordChannelMessage = RESTPostAPIChannelMessageJSONBody;
/** A webhook message (`POST /webhooks/{id}/{token}`). */
export type DiscordWebhookMessage = RESTPostAPIWebhookWithTokenJSONBody;
export type DiscordEmbed = APIEmbed;

/** `bot` is present (true) only on bot accounts, as Discord sends it. */
export type DiscordUser = Pick<APIUser, 'id' | 'username' | 'global_name' | 'avatar' | 'bot'>;

export interface DiscordMember extends Pick<APIGuildMember, 'roles'> {
  user: DiscordUser;
  nick: string | null;
  /** Role ids; Discord leaves out @everyone (whose id is the guild's id). */
  roles: string[];
  /** Empty for a guest member, whose joined_at Discord sends as null. */
  joined_at: string;
}

export type DiscordRole = Pick<APIRole, 'id' | 'name' | 'color' | 'position' | 'managed'>;

export type DiscordGuild = Pick<RESTAPIPartialCurrentUserGuild, 'id' | 'name' | 'icon'>;

export type DiscordTokens = Pick<RESTPostOAuth2AccessTokenResult, 'access_token' | 'token_type' | 'expires_in' | 'refresh_token' | 'scope'>;

export type DiscordMessageRef = Pick<APIMessage, 'id'>;

/**
 * A server's scheduled event (`GET /guilds/{guild}/scheduled-events`), the parts the calendar reads. `location` is
 * `entity_metadata.location` (external events); status 1 scheduled, 2 active, 3 completed, 4 canceled.
 */
export interface DiscordScheduledEvent {
  id: string;
  name: string;
  description: string | null;
  scheduled_start_time: string;
  scheduled_end_time: string | null;
  location: string | null;
  status: number;
}
