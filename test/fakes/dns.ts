// Fake DNS server for tests: real DNS over UDP on 127.0.0.1 (random port), answering A and AAAA queries from a
// table with TTL 0. A name can answer differently on each lookup (the k-th A query gets the k-th answer's IPv4
// addresses, the k-th AAAA query its IPv6 ones; the last answer repeats), which is how DNS rebinding looks from
// the client. Unknown names get NXDOMAIN. Use with resolveWithDnsServerForTests(fake.server).
import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';
import dnsPacket from 'dns-packet';

export interface FakeDns {
  /** `127.0.0.1:PORT`, for resolveWithDnsServerForTests. */
  readonly server: string;
  /** Answers of `name`, one per lookup (the last repeats). */
  set(name: string, ...answers: string[][]): void;
  /** Queries received, as `A name` / `AAAA name`. */
  readonly queries: string[];
  close(): Promise<void>;
}

export async function startFakeDns(): Promise<FakeDns> {
  const socket = createSocket('udp4');
  const table = new Map<string, string[][]>();
  const asked = new Map<string, number>();
  const queries: string[] = [];
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try { query = dnsPacket.decode(message); } catch { return; }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    queries.push(`${question.type} ${name}`);
    const answers = table.get(name);
    const counter = `${question.type} ${name}`;
    const k = asked.get(counter) ?? 0;
    asked.set(counter, k + 1);
    const current = answers ? answers[Math.min(k, answers.length - 1)] : null;
    const family = question.type === 'A' ? isIPv4 : question.type === 'AAAA' ? isIPv6 : () => false;
    const reply = dnsPacket.encode({
      id: query.id, type: 'response', flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (current ? 0 : 3),
      questions: [question],
      answers: (current ?? []).filter((a) => family(a)).map((data) => ({ type: question.type as 'A', name: question.name, ttl: 0, data })),
    });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    set: (name, ...answers) => { table.set(name.toLowerCase(), answers); asked.delete(`A ${name}`); asked.delete(`AAAA ${name}`); },
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
