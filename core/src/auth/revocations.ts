// Revoked JWT ids (table revoked_tokens), honoured by every process and after restarts. Each process keeps the
// unexpired ids in memory so a token check reads no database: it loads them when its listener connects and hears
// new ones through NOTIFY. While the listener is down it asks the database on every check instead (fails safe).
import type { PgListener } from '../db/listener.js';
import type { RawQuery } from '../db/raw-query.js';

export const REVOKED_CHANNEL = 'quad_token_revoked';

type Execute = (sql: string, params: unknown[]) => Promise<unknown[]>;

export class RevocationList {
  private readonly revoked = new Map<string, number>(); // jti -> expiry (ms)

  /** `query` runs the database fallback (a prepared statement on the pool). */
  constructor(private readonly listener: PgListener, private readonly query: RawQuery) {
    listener.subscribe({
      channel: REVOKED_CHANNEL,
      onMessage: (payload) => {
        const [jti, exp] = payload.split(' ');
        if (jti) this.remember(jti, Number(exp) || Date.now() + 86_400_000);
      },
      onConnect: async (client) => {
        const { rows } = await client.query('select jti, extract(epoch from expires_at) * 1000 as exp from revoked_tokens where expires_at > now()');
        for (const row of rows) this.remember(row.jti, Number(row.exp));
      },
    });
  }

  /** Note a revocation this process just committed (others hear it through NOTIFY). */
  remember(jti: string, expiresAtMs: number) {
    this.revoked.set(jti, expiresAtMs);
  }

  /**
   * Is this JWT id revoked? Answered at once from memory (no promise: this runs on every officer request); a
   * promise of the database's answer while the listener is down.
   */
  isRevoked(jti: string): boolean | Promise<boolean> {
    if (this.listener.healthy) {
      const exp = this.revoked.get(jti);
      if (exp === undefined) return false;
      if (exp < Date.now()) this.revoked.delete(jti);
      return true;
    }
    return this.query({ name: 'quad_revoked_jti', text: 'select 1 from revoked_tokens where jti = $1', values: [jti] }).then((rows) => rows.length > 0);
  }
}

/** Record a revocation in the caller's transaction; every process hears it when the transaction commits. */
export async function revokeJwt(execute: Execute, jti: string, expiresAt: Date): Promise<void> {
  await execute('insert into revoked_tokens (jti, expires_at) values (?, ?) on conflict (jti) do nothing', [jti, expiresAt]);
  await execute('select pg_notify(?, ?)', [REVOKED_CHANNEL, `${jti} ${expiresAt.getTime()}`]);
}
