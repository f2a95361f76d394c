// The pod image contract (spec "Pods"; issue 38): what every pod reads from its environment, and what its sshd must
// do. These names do not change with PODHOST_CLI_NAME. PODHOST_SETUP carries the contract's version, so an image can
// refuse a service it does not understand rather than trust keys the wrong way.
//
// Version 2 (issue 38), for an image whose sshd runs as it is in test/fakes/pod-ssh:
// - root logs in with PODHOST_SSH_PUBLIC_KEY (AuthorizedKeysFile), and with certificates signed by
//   PODHOST_SSH_CA_PUBLIC_KEY (TrustedUserCAKeys) whose principal is gf-<pod_id> (AuthorizedPrincipalsFile);
// - sshd serves PODHOST_SSH_HOST_KEY (the OpenSSH private key text, written 0600; `HostKey`) with
//   PODHOST_SSH_HOST_CERTIFICATE (`HostCertificate`), and no other host key: the service pins that key and the CLI
//   accepts only a host certificate of the org's host CA for the pod's name, so a pod serving its own keys is refused;
// - `AllowStreamLocalForwarding no` (no Unix sockets forwarded: a container runtime's or a supervisor's socket
//   answers root), `PermitOpen localhost:* 127.0.0.1:* [::1]:*` (forwards reach the pod's own services, never the
//   provider's network through root), `GatewayPorts no` (remote forwards bind the pod's loopback only; PermitListen
//   stays `any`: only officers, root with a shell already, can ask for one), `PermitTunnel no`, `X11Forwarding no`;
// - /usr/local/bin/podhost-login exists (the members' forced command) and /etc/podhost/admin.bashrc (officers' shells).
// - the pod's id (for the principal gf-<pod_id>) is the provider's: Quad learns it only from the create's answer, so
//   it is not in PODHOST_*; the image reads the provider's own variable (RUNPOD_POD_ID for hostprov).
// - a certificate's key ID is `<org prefix>:<chat user id>:<username>`, with `:root` appended for an officer
//   (routes/me.ts): the image takes an officer's name for their shell (PODHOST_USER) from it.
// plugins/pods/image/ is an image that keeps this contract, and test/fakes/pod-ssh runs its files on a real sshd.
// Members and officers both log in as root, so sshd_config cannot tell them apart (no Match tells a member's
// certificate from an officer's): what keeps members from forwarding is their certificate, which lacks
// permit-port-forwarding and the agent and X11 extensions (certificates.ts). The settings above are the floor for
// everyone, officers included.
// An image built for version 1 either refuses to start (as the contract asks of an unknown version) or ignores the
// host key and serves its own: either way Quad refuses SSH to it (the host key is not the certified one) until the
// image is updated. An image may accept 1 as well, serving its own host key then.
import type { PodHostKey } from './host-keys.js';
import type { KeyKind } from './keys.js';

export const SETUP_VERSION = '2';
/** The contract's variables that hold secrets: never answered, logged or kept by Quad (the provider holds them). */
export const SECRET_ENV = ['PODHOST_SSH_HOST_KEY'];

/** The environment Quad adds to every pod it creates, beside the officer's own `env`. */
export function podImageEnv(keys: Record<KeyKind, string>, host: PodHostKey): Record<string, string> {
  return {
    PODHOST_SSH_PUBLIC_KEY: keys.backend,
    PODHOST_SSH_CA_PUBLIC_KEY: keys.user_ca,
    PODHOST_SSH_HOST_KEY: host.privateKey,
    PODHOST_SSH_HOST_CERTIFICATE: host.certificate,
    PODHOST_SETUP: SETUP_VERSION,
  };
}
