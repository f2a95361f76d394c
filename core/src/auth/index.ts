// Sign-in and access control for the core: adapters, key pair, revocation list, access checks and policies,
// built once per process from the settings.
import type { FastifyBaseLogger } from 'fastify';
import { resolve } from 'node:path';
import { DiscordClient } from '../adapters/discord/index.js';
import { IdpClient } from '../adapters/idp/index.js';
import type { Settings } from '../config/schema.js';
import { AccessControl } from './access.js';
import { WouldDenyTally } from './would-deny.js';
import { BotStatus } from '../admin/bot-status.js';
import { loadOrCreateKeyPair, loadOrCreateSecretKey, type KeyPair } from './keys.js';
import { RevocationList } from './revocations.js';
import { MachineTokenCache } from './machine-tokens.js';
import type { RawQuery } from '../db/raw-query.js';
import type { PgListener } from '../db/listener.js';
import { randomSecret } from './secrets.js';

export interface AuthServices {
  discord: DiscordClient;
  idp: IdpClient;
  access: AccessControl;
  /** Requests report mode let through that enforce mode would refuse, counted for the start's warning. */
  wouldDeny: WouldDenyTally;
  revocations: RevocationList;
  /** Verified machine tokens, per process. */
  machineTokens: MachineTokenCache;
  /** Whether the bot answers (superadmin routes are 503 while it does not). */
  bot: BotStatus;
  keys: KeyPair;
  /** Keys the session cookie's encryption (auth/session.ts). */
  secretKey: string;
}

export function createAuth(settings: Settings, listener: PgListener, log: FastifyBaseLogger, query: RawQuery): AuthServices {
  const dataDir = resolve(settings.DATA_DIR);
  const discord = new DiscordClient({
    apiUrl: settings.DISCORD_API_URL,
    authorizeUrl: settings.DISCORD_AUTHORIZE_URL,
    clientId: settings.CLIENT_ID,
    clientSecret: settings.CLIENT_SECRET,
    botToken: settings.BOT_TOKEN,
    timeoutMs: settings.DISCORD_TIMEOUT_MS,
  });
  const idp = new IdpClient({
    apiUrl: settings.IDP_API_URL, secretKey: settings.IDP_SECRET_KEY, authorizedParties: settings.IDP_AUTHORIZED_PARTIES, timeoutMs: settings.IDP_TIMEOUT_MS,
  });
  const wouldDeny = new WouldDenyTally(query, (err) => log.error({ err }, 'could not count the requests report mode let through'));
  const access = new AccessControl(discord, { superadmins: settings.SYS_ADMIN, enforce: settings.ACCESS_ENFORCE, log, tally: wouldDeny });
  const revocations = new RevocationList(listener, query);
  if (!settings.SECRET_KEY) log.warn(`SECRET_KEY is unset: session cookies are encrypted with a key kept in ${dataDir}/secret_key (set SECRET_KEY when several machines serve the API)`);
  return {
    discord,
    idp,
    access,
    wouldDeny,
    revocations,
    machineTokens: new MachineTokenCache(listener),
    bot: new BotStatus(discord),
    keys: loadOrCreateKeyPair(dataDir),
    secretKey: loadOrCreateSecretKey(dataDir, settings.SECRET_KEY, () => randomSecret(48)),
  };
}
