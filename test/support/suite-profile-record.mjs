// The preload of `npm run test:profile` (suite-profile.mjs) in every node process of the run: when the process
// exits, one JSON line with its pid, parent, command line, wall time and CPU goes to the file named by this module's
// `?out=` query (a query, not an environment variable: tests give their processes environments of their own, but tap
// copies NODE_OPTIONS, where this module is named, into every one).
import { appendFileSync, readFileSync } from 'node:fs';

/** USER_HZ, the unit of /proc's CPU times, is 100 on Linux. */
const TICK_MS = 10;

/** From /proc/<pid>/stat: the parent pid, and utime, stime, cutime and cstime in ms (cu/cs: reaped children's). */
export function procStat(pid = 'self') {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), cpu: [11, 12, 13, 14].map((i) => Number(fields[i]) * TICK_MS) };
}

const out = new URL(import.meta.url).searchParams.get('out');
if (out) {
  const started = Date.now();
  process.on('exit', () => {
    try {
      const { ppid, cpu } = procStat();
      appendFileSync(out, `${JSON.stringify({ pid: process.pid, ppid, argv: process.argv.slice(1, 3), wall: Date.now() - started, cpu })}\n`);
    } catch {
      // A record lost is a row missing from the profile, never a failed test.
    }
  });
}
