// Report mode (ACCESS_ENFORCE=false) lets through what it would refuse, and says so only in a log line per
// request. So that an operator does not run it unknowingly, each process also counts those requests and adds its
// count to the hour's row of access_would_deny every minute (and when it closes); a start reads the last day's sum
// for its warning (README "Sign-in and access"). Counted in memory between writes: one statement a minute, however
// many requests, and none at all while nothing would be refused.
import type { RawQuery } from '../db/raw-query.js';

const FLUSH_MS = 60_000;

export class WouldDenyTally {
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly query: RawQuery, private readonly onError: (err: unknown) => void) {}

  /** One more request that enforce mode would have refused. */
  add(): void {
    this.pending++;
    this.timer ??= setTimeout(() => { this.timer = null; void this.flush().catch(this.onError); }, FLUSH_MS).unref();
  }

  /** Write what was counted since the last write (a failed write keeps it for the next). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const count = this.pending;
    if (!count) return;
    this.pending = 0;
    try {
      await this.query({
        name: 'quad_would_deny_add',
        text: `insert into access_would_deny (hour, count) values (date_trunc('hour', now()), $1)
               on conflict (hour) do update set count = access_would_deny.count + excluded.count`,
        values: [count],
      });
    } catch (err) {
      this.pending += count;
      throw err;
    }
  }

  /** Requests that would have been refused in the last 24 hours (whole hours), by every process. */
  async lastDay(): Promise<number> {
    const [row] = await this.query<{ n: string | null }>({
      name: 'quad_would_deny_day', text: `select sum(count) as n from access_would_deny where hour > now() - interval '1 day'`, values: [],
    });
    return Number(row?.n ?? 0);
  }
}

/** The start's warning in report mode: what it means, how many it let through in the last day, the fix. */
export async function warnReportMode(tally: WouldDenyTally, warn: (line: string) => void): Promise<void> {
  const day = await tally.lastDay();
  warn('ACCESS_ENFORCE is false (report mode): a request that an access check refuses is let through and only logged '
    + '(access decision=would_deny), so an officer of another org passes officer routes; '
    + `${day} request${day === 1 ? '' : 's'} would have been refused in the last 24 hours. `
    + 'Set ACCESS_ENFORCE=true once the logs show none.');
}
