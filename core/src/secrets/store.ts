// Org secrets: encrypted with SECRETS_KEY (see crypto.ts), write-only over the API. Modules read a value with
// get() on the server; listings only say whether each declared secret is set. Every query names its org
// explicitly (raw SQL, which the org filter does not cover), so one org never reads another's rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest, HttpError } from '../http/errors.js';
import { orgDbFor } from '../db/org-db.js';
import type { AcrossOrgsDb, DeclaredSecret, IntegrationStatus, ModuleRegistry, RotateResult, SecretsService, SecretStatus } from '../core-services.js';
import { decryptSecret, encryptSecret, GENERATE_KEY_HINT, parseSecretKeys, sealedAad, secretAad, type SecretKey } from './crypto.js';

export const MAX_SECRET_LENGTH = 8192;

/** The key part of a perKey secret's name (`alert_webhook_<key>`). */
const PER_KEY = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export type { SecretStatus, IntegrationStatus, RotateResult } from '../core-services.js';

interface Row { organization_id: number; name: string; ciphertext: string; key_id: string; updated_at: Date; updated_by: string | null }

export class SecretStore implements SecretsService {
  private readonly parsed: SecretKey[];

  /** Throws a ConfigError naming SECRETS_KEY when a key is not 32 bytes of base64. An empty list is allowed. */
  constructor(readonly registry: ModuleRegistry, readonly keys: string[]) {
    this.parsed = parseSecretKeys(keys);
  }

  /** Are keys configured (can secrets be set and read)? */
  get configured(): boolean {
    return this.parsed.length > 0;
  }

  /** Id of the key new values are encrypted with, or null without SECRETS_KEY. */
  get currentKeyId(): string | null {
    return this.parsed[0]?.id ?? null;
  }

  /** 400 `unknown_secret` unless a loaded module declares the name. */
  declared(name: string) {
    const exact = this.registry.secrets.get(name);
    const decl = exact && !exact.perKey ? exact : this.perKeyFamily(name);
    if (!decl) throw badRequest(`Unknown secret "${name}": no loaded module declares it`, 'unknown_secret', { name });
    return decl;
  }

  /** The perKey declaration `name` is one secret of (`<prefix><key>`), if any. */
  private perKeyFamily(name: string): DeclaredSecret | undefined {
    for (const decl of this.registry.secrets.values()) {
      if (decl.perKey && name.startsWith(decl.name) && PER_KEY.test(name.slice(decl.name.length))) return decl;
    }
    return undefined;
  }

  private requireKeys(): SecretKey[] {
    if (!this.parsed.length) {
      throw new HttpError(503, `Org secrets are not configured: the operator must set SECRETS_KEY (${GENERATE_KEY_HINT})`, 'secrets_unconfigured');
    }
    return this.parsed;
  }

  seal(context: string, plaintext: string): string {
    return encryptSecret(this.requireKeys(), plaintext, sealedAad(context)).ciphertext;
  }

  open(context: string, sealed: string): string {
    return decryptSecret(this.requireKeys(), sealed, sealedAad(context), `sealed in ${context}`);
  }

  /** The decrypted value, or null when not set. For modules on the server only; never send it to a client. */
  async get(em: EntityManager, orgId: number, name: string): Promise<string | null> {
    this.declared(name);
    const keys = this.requireKeys();
    const db = orgDbFor(em, orgId);
    const row = await db.one<Row>`select ciphertext from org_secrets where ${db.inOrg()} and name = ${name}`;
    if (!row) return null;
    return decryptSecret(keys, row.ciphertext, secretAad(orgId, name), `"${name}" of org ${orgId}`);
  }

  /**
   * The decrypted values of those of `names` the org has set, in one read (an integration's fields for its hooks and
   * its readable fields for listings). For the server only, like get().
   */
  async values(em: EntityManager, orgId: number, names: readonly string[]): Promise<Map<string, string>> {
    for (const name of names) this.declared(name);
    if (!names.length) return new Map();
    const keys = this.requireKeys();
    const db = orgDbFor(em, orgId);
    const rows = await db.sql<Row>`select name, ciphertext from org_secrets where ${db.inOrg()} and name = any(${names}::text[])`;
    return new Map(rows.map((row) => [row.name, decryptSecret(keys, row.ciphertext, secretAad(orgId, row.name), `"${row.name}" of org ${orgId}`)]));
  }

  /** Encrypt and store (insert or replace). `by` is the actor recorded as updated_by. */
  async set(em: EntityManager, orgId: number, name: string, value: string, by: string | null = null): Promise<{ updatedAt: Date }> {
    this.declared(name);
    if (typeof value !== 'string' || value.length === 0) throw badRequest('A secret value must be a non-empty string', 'validation', { field: 'value' });
    if (value.length > MAX_SECRET_LENGTH) throw badRequest(`A secret value has at most ${MAX_SECRET_LENGTH} characters`, 'validation', { field: 'value' });
    const keys = this.requireKeys();
    const { ciphertext, keyId } = encryptSecret(keys, value, secretAad(orgId, name));
    const db = orgDbFor(em, orgId);
    const row = await db.one<{ updated_at: Date }>`insert into org_secrets (organization_id, name, ciphertext, key_id, updated_at, updated_by)
       values (${db.org}, ${name}, ${ciphertext}, ${keyId}, now(), ${by})
       on conflict (organization_id, name) do update
         set ciphertext = excluded.ciphertext, key_id = excluded.key_id, updated_at = excluded.updated_at, updated_by = excluded.updated_by
       returning updated_at`;
    return { updatedAt: new Date(row!.updated_at) };
  }

  /** Remove the secret; true when it was set. Needs no key. */
  async delete(em: EntityManager, orgId: number, name: string): Promise<boolean> {
    this.declared(name);
    const db = orgDbFor(em, orgId);
    return (await db.run`delete from org_secrets where ${db.inOrg()} and name = ${name}`) > 0;
  }

  /** Names of the org's set secrets. Needs no key. */
  async names(em: EntityManager, orgId: number): Promise<Set<string>> {
    const db = orgDbFor(em, orgId);
    const rows = await db.sql<{ name: string }>`select name from org_secrets where ${db.inOrg()}`;
    return new Set(rows.map((r) => r.name));
  }

  /** Every declared secret with whether the org has set it, for listings. Never the value. Needs no key. */
  async list(em: EntityManager, orgId: number): Promise<SecretStatus[]> {
    const db = orgDbFor(em, orgId);
    const rows = await db.sql<Pick<Row, 'name' | 'updated_at' | 'updated_by'>>`select name, updated_at, updated_by from org_secrets where ${db.inOrg()}`;
    const byName = new Map(rows.map((r) => [r.name, r]));
    const status = (s: DeclaredSecret, name: string): SecretStatus => {
      const row = byName.get(name);
      return {
        name, label: s.label, module: s.module, integration: s.integration, optional: s.optional, writeOnly: s.writeOnly,
        set: !!row, updatedAt: row ? new Date(row.updated_at) : null, updatedBy: row?.updated_by ?? null,
      };
    };
    // A perKey declaration lists the secrets the org has of it (one per key), not the prefix.
    return [...this.registry.secrets.values()].flatMap((s) => (s.perKey
      ? rows.filter((r) => this.perKeyFamily(r.name) === s).map((r) => status(s, r.name))
      : [status(s, s.name)]));
  }

  /** Is every required secret of the integration set for the org? False for an undeclared integration. */
  async connected(em: EntityManager, orgId: number, integration: string): Promise<boolean> {
    return (await this.connectedIntegrations(em, orgId)).has(integration);
  }

  /** The integrations the org has connected (every required secret set), from one read of its secret names. */
  async connectedIntegrations(em: EntityManager, orgId: number): Promise<Set<string>> {
    const set = await this.names(em, orgId);
    return new Set([...this.registry.integrations.values()].filter((i) => isConnected(i, set)).map((i) => i.key));
  }

  /** Every declared integration, whether the org has connected it, and its secrets' status. */
  async integrations(em: EntityManager, orgId: number): Promise<IntegrationStatus[]> {
    const set = await this.names(em, orgId);
    return [...this.registry.integrations.values()].map((i) => ({
      key: i.key, title: i.title, description: i.description, module: i.module, remote: i.remote ?? false,
      connected: isConnected(i, set),
      secrets: i.secrets.map((s) => ({ name: s.name, label: s.label, optional: s.optional ?? false, set: set.has(s.name) })),
    }));
  }

  /**
   * Re-encrypt every secret of every org that is not on the first key (after putting a new key first in
   * SECRETS_KEY). Keeps updated_at and updated_by. Idempotent; a row changed meanwhile is left to its writer.
   * Throws SecretDecryptError when a row's key is no longer listed (nothing after it is lost: run again once fixed).
   */
  async rotate(all: AcrossOrgsDb, options: { batch?: number } = {}): Promise<RotateResult> {
    const keys = this.requireKeys();
    const current = keys[0].id;
    const batch = options.batch ?? 500;
    let rotated = 0;
    let after: [number, string] = [0, ''];
    for (;;) {
      const rows = await all.sql<Row>`select organization_id, name, ciphertext from org_secrets
         where key_id <> ${current} and (organization_id, name) > (${after[0]}::int, ${after[1]}::text)
         order by organization_id, name limit ${batch}`;
      for (const row of rows) {
        const aad = secretAad(row.organization_id, row.name);
        const plain = decryptSecret(keys, row.ciphertext, aad, `"${row.name}" of org ${row.organization_id}`);
        const next = encryptSecret(keys, plain, aad);
        rotated += await all.run`update org_secrets set ciphertext = ${next.ciphertext}, key_id = ${next.keyId}
           where organization_id = ${row.organization_id} and name = ${row.name} and ciphertext = ${row.ciphertext}`;
      }
      if (rows.length < batch) break;
      const last = rows[rows.length - 1];
      after = [last.organization_id, last.name];
    }
    const counted = await all.one<{ n: number }>`select count(*)::int as n from org_secrets where key_id = ${current}`;
    return { rotated, current: counted!.n - rotated };
  }
}

/** Every required field of the integration is set (optional ones do not count). */
export function isConnected(integration: { secrets: { name: string; optional?: boolean }[] }, set: ReadonlySet<string>): boolean {
  return integration.secrets.every((s) => s.optional || set.has(s.name));
}
