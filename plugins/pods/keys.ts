// The org's SSH key pairs (spec "Records": compute_keys): `backend`, with which the service logs in to pods as root,
// `user_ca`, which signs members' and officers' certificates, and `host_ca` (issue 38), which signs each pod's host
// certificate. Made at the org's first pod, exactly once even when first pods race (the insert of the missing rows
// either wins or finds the winner's); an org whose keys predate `host_ca` gets it at its next need. Private parts
// sealed with SECRETS_KEY, bound to their org and kind so a row copied elsewhere does not open.
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import type { CoreServices, OrgDb } from '@quad/core';
import { MODULE } from './settings.js';

export const KEY_KINDS = ['backend', 'user_ca', 'host_ca'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
export interface OrgKeyPair { publicKey: string; privateKey: string }
interface KeyRow { kind: KeyKind; public_key: string; private_key_sealed: string }

const sealContext = (orgId: number, kind: KeyKind) => `${MODULE}.key:${orgId}:${kind}`;

/** A new ed25519 pair as OpenSSH writes it (`ssh-ed25519 AAAA… <comment>`, and the OPENSSH PRIVATE KEY block). */
export function newKeyPair(comment: string): OrgKeyPair {
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  const key = sshpk.parsePrivateKey(pem, 'pem');
  key.comment = comment;
  return { publicKey: key.toPublic().toString('ssh'), privateKey: key.toString('ssh') };
}

async function readKeys(db: OrgDb): Promise<KeyRow[]> {
  return db.sql<KeyRow>`select kind, public_key, private_key_sealed from compute_keys where ${db.inOrg()}`;
}

/**
 * The org's public keys, the missing ones made now (all three at its first pod; `host_ca` alone for an org whose
 * keys predate it). The missing rows go in one statement: a concurrent first pod either inserts nothing (`on conflict
 * do nothing`) and reads the winner's, or wins.
 */
export async function ensureOrgKeys(services: CoreServices, db: OrgDb): Promise<Record<KeyKind, string>> {
  let rows = await readKeys(db);
  const missing = KEY_KINDS.filter((kind) => !rows.some((r) => r.kind === kind));
  if (missing.length) {
    const made = missing.map((kind) => ({ kind, pair: newKeyPair(`podhost-${kind}-org${db.org}`) }));
    const sealed = made.map(({ kind, pair }) => ({ kind, public_key: pair.publicKey, sealed: services.secrets.seal(sealContext(db.org, kind), pair.privateKey) }));
    await db.run`
      insert into compute_keys (organization_id, kind, public_key, private_key_sealed)
      select ${db.org}::int, k.kind, k.public_key, k.sealed from json_to_recordset(${JSON.stringify(sealed)}::json) as k(kind text, public_key text, sealed text)
      on conflict (organization_id, kind) do nothing`;
    rows = await readKeys(db);
  }
  return Object.fromEntries(rows.map((r) => [r.kind, r.public_key])) as Record<KeyKind, string>;
}

/**
 * One of the org's pairs with its private part opened, made now if the org lacks it (an org whose pods predate its
 * keys: those pods then refuse them; or `host_ca` for an org whose keys predate it).
 */
export async function orgKeyPair(services: CoreServices, db: OrgDb, kind: KeyKind): Promise<OrgKeyPair> {
  const find = async () => (await readKeys(db)).find((r) => r.kind === kind);
  let row = await find();
  if (!row) {
    await ensureOrgKeys(services, db);
    row = (await find())!;
  }
  return { publicKey: row.public_key, privateKey: services.secrets.open(sealContext(db.org, kind), row.private_key_sealed) };
}
