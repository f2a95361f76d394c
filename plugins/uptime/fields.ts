// A monitor's fields: bounds and defaults (the schemas, the form and the README use these), and the URL rule. The URL
// is checked for shape only (http or https, a host, no user name or password): where it points is the safe fetcher's
// call at each check, so a private address is a check that fails with reason `refused`, not a refused save.
import { badRequest } from '@quad/core';

export const BOUNDS = {
  interval_seconds: { minimum: 60, maximum: 86_400, default: 300 },
  expected_status: { minimum: 100, maximum: 599, default: 200 },
  timeout_ms: { minimum: 1000, maximum: 30_000, default: 10_000 },
  down_after: { minimum: 1, maximum: 10, default: 2 },
} as const;
export const NAME_MAX = 100;
export const URL_MAX = 2048;
export const KEYWORD_MAX = 200;

/** The URL as stored (trimmed, normalised by the URL parser), or a 400 that names the field. */
export function checkUrl(input: string, field = 'body.url'): string {
  const refuse = (why: string) => badRequest(`${field}: ${why}`, 'invalid_url', { field });
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw refuse('not a valid URL (https://example.org/health)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('only http and https URLs are monitored');
  if (!url.hostname) throw refuse('the URL has no host');
  if (url.username || url.password) throw refuse('a user name or password in the URL is not allowed');
  if (url.href.length > URL_MAX) throw refuse(`at most ${URL_MAX} characters`);
  return url.href;
}

/** A name with its spaces trimmed; 400 when nothing is left. */
export function checkName(input: string, field = 'body.name'): string {
  const name = input.trim();
  if (!name) throw badRequest(`${field}: must not be blank`, 'validation', { field });
  return name;
}
