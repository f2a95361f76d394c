// Public API of the Discord adapter: the client, its error classes, types and URL helpers.
export { DiscordClient, displayName, isDiscordWebhookUrl } from './client.js';
export { DiscordRequestError, DiscordUnavailable } from './errors.js';
export { DEFAULT_WEBHOOK_BASE, describeWebhookFailure, isAllowedWebhookUrl, scrubWebhookUrl } from './webhook-url.js';
export type * from './types.js';
