// Webhook destinations: how they are kept. Only Discord webhook URLs under DISCORD_WEBHOOK_URL_BASE are accepted
// (the core's isAllowedWebhookUrl, checked again before every post), and redirects are never followed (the Discord
// client posts with redirect: 'manual'), so a user-given URL can reach nothing else.
//
// A destination is a credential (anyone with the URL can post to the channel), so it is stored encrypted:
// AES-256-GCM with the org's data key, bound to the org and webhook id. The data key is the org secret
// `event_webhook.key` (made on first use, encrypted with SECRETS_KEY by the core's secret store and rotated
// with it), so every webhook of an org fits whatever the webhook limit, and a row copied elsewhere does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CoreServices, EntityManager } from '@quad/core';

export const KEY_SECRET = 'event_webhook.key';
/** The destination cannot be read: the key was deleted or replaced, or SECRETS_KEY cannot decrypt it. */
export class DestinationUnreadable extends Error {
  override name = 'DestinationUnreadable';
}

const VERSION = 'v1';
const aad = (orgId: number, webhookId: number) => Buffer.from(`quad.event_webhook.destination.${VERSION}\0${orgId}\0${webhookId}`, 'utf8');

function parseKey(raw: string): Buffer {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new DestinationUnreadable(`the org secret ${KEY_SECRET} is not a key Quad made; delete it and set the destinations again`);
  return key;
}

/** The org's data key, made under a lock in the caller's transaction when there is none yet. */
async function dataKey(em: EntityManager, services: CoreServices, orgId: number): Promise<Buffer> {
  const existing = await services.secrets.get(em, orgId, KEY_SECRET);
  if (existing) return parseKey(existing);
  // Two first webhooks at once must not each make a key (the second would orphan the first's destination).
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${KEY_SECRET}:${orgId}`]);
  const again = await services.secrets.get(em, orgId, KEY_SECRET);
  if (again) return parseKey(again);
  const made = randomBytes(32).toString('base64');
  await services.secrets.set(em, orgId, KEY_SECRET, made, 'system');
  return parseKey(made);
}

/** Encrypt a destination for a webhook (call inside the transaction that stores it). */
export async function sealDestination(em: EntityManager, services: CoreServices, orgId: number, webhookId: number, url: string): Promise<string> {
  if (!em.isInTransaction()) throw new Error('sealDestination must run inside a transaction');
  const key = await dataKey(em, services, orgId);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(aad(orgId, webhookId));
  const data = Buffer.concat([cipher.update(url, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

/** Decrypt a webhook's destination, or throw DestinationUnreadable. */
export async function openDestination(em: EntityManager, services: CoreServices, orgId: number, webhookId: number, sealed: string): Promise<string> {
  if (!services.secrets.configured) throw new DestinationUnreadable('org secrets are not configured (SECRETS_KEY)');
  let raw: string | null;
  try {
    raw = await services.secrets.get(em, orgId, KEY_SECRET);
  } catch {
    throw new DestinationUnreadable(`the org secret ${KEY_SECRET} cannot be read with SECRETS_KEY`);
  }
  if (!raw) throw new DestinationUnreadable(`the org secret ${KEY_SECRET} was deleted; set the destination again`);
  const key = parseKey(raw);
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new DestinationUnreadable('the stored destination is not in a known format; set it again');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1], 'base64url'), { authTagLength: 16 });
    decipher.setAAD(aad(orgId, webhookId));
    decipher.setAuthTag(Buffer.from(parts[2], 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(parts[3], 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new DestinationUnreadable(`the destination does not decrypt with the org's ${KEY_SECRET} (was it replaced?); set it again`);
  }
}
