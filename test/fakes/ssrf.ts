// What every SSRF test fires (PITFALLS.md "Outbound HTTP to user-given URLs") and the canary that must never be
// reached: an HTTP server on 127.0.0.1 and ::1 that counts connections. The forms name the canary's port, so a
// fetcher that let one through would show up as a connection, not just as a missing error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Canary {
  port: number;
  /** Connections the canary has seen (on either address). */
  connections(): number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const servers: Server[] = [];
  const listen = (port: number, host: string) => new Promise<number>((resolve, reject) => {
    const server = createServer((_req, res) => res.end('canary'));
    server.on('connection', () => { connections++; });
    server.once('error', reject);
    server.listen(port, host, () => { servers.push(server); resolve((server.address() as AddressInfo).port); });
  });
  const port = await listen(0, '127.0.0.1');
  await listen(port, '::1').catch(() => {}); // no IPv6 loopback: nothing to reach there
  return {
    port,
    connections: () => connections,
    close: async () => { for (const s of servers) { s.closeAllConnections(); await new Promise((r) => s.close(r)); } },
  };
}

/** Loopback in every spelling, on the canary's port, and the private ranges (no listener needed: refused before a dial). */
export function ssrfForms(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`, `http://2130706433:${port}/`, `http://0x7f000001:${port}/`, `http://0x7f.0.0.1:${port}/`,
    `http://017700000001:${port}/`, `http://0177.0.0.1:${port}/`, `http://127.1:${port}/`, `http://127.0.1:${port}/`,
    `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`, `http://[::7f00:1]:${port}/`, `http://[::ffff:0:7f00:1]:${port}/`,
    `http://0.0.0.0:${port}/`, `http://0:${port}/`, `http://[::]:${port}/`,
    `http://localhost:${port}/`, `http://localhost.:${port}/`, `http://LOCALHOST:${port}/`, `http://app.localhost:${port}/`,
    `http://[64:ff9b::7f00:1]:${port}/`, `http://[2002:7f00:1::1]:${port}/`,
    'http://169.254.169.254/latest/meta-data/', 'http://100.64.0.1/', 'http://10.0.0.1/', 'http://172.16.0.1/', 'http://192.168.1.1/',
    'http://[fd00::1]/', 'http://[fe80::1]/', 'http://224.0.0.1/', 'http://255.255.255.255/', 'http://[ff02::1]/',
  ];
}

/** Credentials in the URL: the host after the @ is the one dialled. */
export const userinfoForms = (port: number, outside: string) => [`http://${outside}@127.0.0.1:${port}/`, `http://user:pw@${outside}/`];
