// Each pod's SSH host key (issue 38; the pod image contract): made by Quad at the pod's create, certified by the
// org's host_ca for one name, and handed to the pod through its environment (image-contract.ts), so the service and
// the CLI can refuse any other host at the pod's address. The name is `podhost-<create id>`: the provider's pod id is
// unknown until the create answers, while the create id is a fresh UUID made for this one create (the pod carries it
// as PODHOST_CREATE_ID), so no two pods are ever certified for the same name and one pod's host key cannot stand for
// another's. The pod's row keeps the name and the public key (both public); the private key lives only in the
// create's request to the provider and on the pod: it is never stored, answered or logged here.
import { conflict, type CoreServices, type OrgDb } from '@quad/core';
import { issueHostCertificate } from './certificates.js';
import { newKeyPair, orgKeyPair } from './keys.js';

export interface PodHostKey {
  /** The certificate's one principal; the CLI's HostKeyAlias. */
  alias: string;
  /** `ssh-ed25519 AAAA…`: what the service pins. */
  publicKey: string;
  /** OpenSSH private key text: a secret, for the pod only. */
  privateKey: string;
  /** `ssh-ed25519-cert-v01@openssh.com AAAA…`, signed by the org's host_ca. */
  certificate: string;
}

/** A pod's host key as its row keeps it; null for a pod made before Quad certified host keys. */
export interface KnownHostKey { alias: string; publicKey: string }

export const hostKeyAliasOf = (createId: string) => `podhost-${createId}`;

/** A new host key for the pod a create is about to make, certified by the org's host_ca (made now if it has none). */
export async function makePodHostKey(services: CoreServices, db: OrgDb, orgPrefix: string, createId: string): Promise<PodHostKey> {
  const ca = await orgKeyPair(services, db, 'host_ca');
  const alias = hostKeyAliasOf(createId);
  const pair = newKeyPair(alias);
  const certificate = issueHostCertificate({ hostPublicKey: pair.publicKey, principal: alias, caPrivateKey: ca.privateKey, keyId: `${orgPrefix}:${alias}` });
  return { alias, publicKey: pair.publicKey, privateKey: pair.privateKey, certificate };
}

/** Why SSH to a pod made before host keys were certified is refused (the connected route's reason says the same). */
export const HOST_KEY_UNKNOWN = 'The pod was made before Quad certified pods\' host keys, so its SSH host cannot be checked: recreate the pod (terminate it and create a new one)';

/** The pod's certified host key, or 409 host_key_unknown. */
export function requireHostKey(row: { host_key_alias: string | null; host_public_key: string | null }): KnownHostKey {
  const known = knownHostKey(row);
  if (!known) throw conflict(HOST_KEY_UNKNOWN, 'host_key_unknown');
  return known;
}

export function knownHostKey(row: { host_key_alias: string | null; host_public_key: string | null }): KnownHostKey | null {
  return row.host_key_alias && row.host_public_key ? { alias: row.host_key_alias, publicKey: row.host_public_key } : null;
}
