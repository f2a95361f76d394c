// Where fakes of outside services listen in tests: 127.0.0.2, a loopback address that stands for "the internet".
// The safe fetcher refuses it like any loopback address unless a test opens it with allowOutside(t), so an SSRF
// test's canary on 127.0.0.1 stays unreachable while pages, an org's embeddings or rendering service answer.
import { allowAddressesForTests } from '../../core/src/net/address-policy.js';

export const OUTSIDE_HOST = '127.0.0.2';

/** Let the safe fetcher reach OUTSIDE_HOST until the test ends. */
export function allowOutside(t: { teardown(fn: () => unknown): void }): void {
  t.teardown(allowAddressesForTests([OUTSIDE_HOST]));
}
