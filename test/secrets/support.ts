// Shared by the secrets tests: a module declaring an integration and a module secret, and key helpers.
import { randomBytes } from 'node:crypto';
import { defineModule } from '@quad/core';

/** An integration `forge` (one required, one optional secret) and a module secret `demo.webhook`. */
export const demo = defineModule({
  name: 'demo', title: 'Demo', description: 'Declares secrets for the tests', category: 'Tests',
  integrations: [{
    key: 'forge', title: 'Forge', description: 'Code hosting',
    secrets: [{ name: 'forge.token', label: 'Token' }, { name: 'forge.webhook_secret', label: 'Webhook secret', optional: true }],
  }],
  secrets: [{ name: 'demo.webhook', label: 'Feed webhook address', writeOnly: true }],
});

/** A fresh SECRETS_KEY entry (32 random bytes, base64) and its raw bytes. */
export function newKey(): { text: string; bytes: Buffer } {
  const bytes = randomBytes(32);
  return { text: bytes.toString('base64'), bytes };
}

/** A distinctive value, so a leak anywhere is easy to find. */
export const secretValue = (tag: string) => `sv-${tag}-${randomBytes(12).toString('hex')}`;
