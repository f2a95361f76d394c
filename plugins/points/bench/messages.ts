// Points-per-message benchmark: awards per second the gateway's service sustains, for many members at once and
// for one very chatty member (every message waits for that member's lock). Uses a fresh test database on the
// local PostgreSQL, as the tests do.
//   npx tsx plugins/points/bench/messages.ts [--messages 2000] [--concurrency 16]
import { parseArgs } from 'node:util';
import { awardForMessage } from '../index.js';
import { startPointsWorld } from '../test/world.js';

// `npx tap plugins/<m>` runs every file under the folder: a benchmark is not a test, so it bows out there.
if (process.env.TAP === '1' || process.env.TAP_CHILD_ID) {
  console.log('1..0 # SKIP a benchmark: run it with npx tsx');
  process.exit(0);
}

const { values } = parseArgs({ options: { messages: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' } } });
const MESSAGES = Number(values.messages);
const CONCURRENCY = Number(values.concurrency);
const teardowns: (() => unknown)[] = [];

try {
  const w = await startPointsWorld({ teardown: (fn) => { teardowns.push(fn); } });
  await w.sql('update organizations set points_per_message = 1, points_cooldown_seconds = 0 where id = ?', [w.org.id]);
  let id = 1_600_000_000_000_000_000n;
  async function drive(label: string, author: (i: number) => string) {
    let next = 0;
    let awarded = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < MESSAGES; i = next++) {
        const r = await awardForMessage(w.quad.serviceOrm, w.quad.services, { guildId: w.guildId, chatUserId: author(i), messageId: String(id++) });
        if (r.awarded) awarded++;
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    console.log(`${label}: ${MESSAGES} messages, ${CONCURRENCY} at a time: ${(MESSAGES / seconds).toFixed(0)} messages/s (${awarded} awarded)`);
  }
  await drive('many members', (i) => String(1_700_000_000_000_000_000n + BigInt(i % 500)));
  await drive('one member', () => '1800000000000000000');
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
