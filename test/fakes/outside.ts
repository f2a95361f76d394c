// Where fakes of outside services listen in tests: 127.0.0.2, a loopback address that stands for "the internet".
// The safe fetcher refuses it like any loopback address unless a test opens it with allowOutside(t), so an SSRF
// test's canary on 127.0.0.1 stays unreachable while pages, an org's embeddings or rendering service answer.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowAddressesForTests } from '../../core/src/net/address-policy.js';

export const OUTSIDE_HOST = '127.0.0.2';

/** Let the safe fetcher reach OUTSIDE_HOST until the test ends. */
export function allowOutside(t: { teardown(fn: () => unknown): void }): void {
  t.teardown(allowAddressesForTests([OUTSIDE_HOST]));
}

/**
 * Start `server` on OUTSIDE_HOST at a free port: its origin, and a close (idempotent; also run at the end of `t`
 * when given) that ends open connections too.
 */
export async function listenOutside(server: Server, t?: { teardown(fn: () => unknown): void }): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, OUTSIDE_HOST, resolve));
  const origin = `http://${OUTSIDE_HOST}:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | null = null;
  const close = () => closed ??= new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  t?.teardown(close);
  return { origin, close };
}
