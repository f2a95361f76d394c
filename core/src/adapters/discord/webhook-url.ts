// Outbound webhook URLs (event webhooks, feeds): which ones a module may store and post to, and how failures are
// described without the URL. A webhook URL is a credential (anyone holding it can post to the channel).
import { isDiscordWebhookUrl } from './client.js';
import { DiscordRequestError, DiscordUnavailable } from './errors.js';

/** The default of DISCORD_WEBHOOK_URL_BASE. */
export const DEFAULT_WEBHOOK_BASE = 'https://discord.com/api/webhooks/';

const ID_AND_TOKEN = /^\d{1,20}\/[A-Za-z0-9_-]{1,200}$/;

/**
 * With the default base: a Discord webhook URL (discord.com or discordapp.com, optionally /api/v<n>/).
 * With another base (tests, a proxy): exactly `<base><digits>/<token>`. Check on save and again before each post.
 */
export function isAllowedWebhookUrl(url: string, base: string): boolean {
  if (typeof url !== 'string') return false;
  if (base === DEFAULT_WEBHOOK_BASE) return isDiscordWebhookUrl(url);
  return url.startsWith(base) && ID_AND_TOKEN.test(url.slice(base.length));
}

/** Every piece of a webhook URL that must not appear in a stored or logged message. */
function webhookUrlParts(url: string): string[] {
  const m = /\/webhooks\/(\d+)\/([^/?#]+)/.exec(url);
  return [url, ...(m ? [`${m[1]}/${m[2]}`, m[2]!, m[1]!] : [])];
}

/** `message` with the URL, its id and its token replaced by ***. */
export function scrubWebhookUrl(message: string, url: string): string {
  let out = message;
  for (const part of webhookUrlParts(url)) if (part.length >= 4) out = out.split(part).join('***');
  return out;
}

/** Why a post to a webhook failed, in words that hold neither the URL nor its token. */
export function describeWebhookFailure(err: unknown, url: string): string {
  if (err instanceof DiscordRequestError) return `Discord refused the message (HTTP ${err.status}${err.code ? `, code ${err.code}` : ''})`;
  if (err instanceof DiscordUnavailable) return scrubWebhookUrl(`Discord did not take the message: ${err.message}`, url);
  return scrubWebhookUrl(`The message could not be sent: ${(err as Error)?.message ?? String(err)}`, url);
}
