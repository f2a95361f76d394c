// Public API of the Discord adapter: the REST client, its error classes, types and URL helpers.
export { DiscordClient, displayName, isDiscordWebhookUrl } from './client.js';
export { DiscordRequestError, DiscordUnavailable } from './errors.js';
export type { DiscordGuild, DiscordMember, DiscordRole, DiscordSettings, DiscordTokens, DiscordUser } from './types.js';
