// The pod image contract (spec "Pods"): what every pod reads from its environment. These names do not change with
// PODHOST_CLI_NAME. PODHOST_SETUP carries the contract's version, so an image can refuse a service it does not
// understand rather than trust keys the wrong way.
import type { KeyKind } from './keys.js';

export const SETUP_VERSION = '1';

/** The environment Quad adds to every pod it creates, beside the officer's own `env`. */
export function podImageEnv(keys: Record<KeyKind, string>): Record<string, string> {
  return {
    PODHOST_SSH_PUBLIC_KEY: keys.backend,
    PODHOST_SSH_CA_PUBLIC_KEY: keys.user_ca,
    PODHOST_SETUP: SETUP_VERSION,
  };
}
