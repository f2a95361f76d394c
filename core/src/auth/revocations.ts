// Revoked JWT ids (table revoked_tokens), honoured by every process and after restarts. Each process keeps the
// unexpired ids in memory so a token check reads no database: it loads them at start and hears new ones through
// LISTEN/NOTIFY. While that listener is down it asks the database on every check instead (fails safe).
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

export const REVOKED_CHANNEL = 'quad_token_revoked';

export class RevocationList {
  private readonly revoked = new Map<string, number>(); // jti -> expiry (ms)
  private client: pg.Client | null = null;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly connectionString: string, private readonly log: FastifyBaseLogger) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      const [jti, exp] = (msg.payload ?? '').split(' ');
      if (jti) this.remember(jti, Number(exp) || Date.now() + 86_400_000);
    });
    await client.connect();
    await client.query(`listen ${REVOKED_CHANNEL}`);
    // Listen first, then load: a revocation between the two is heard, not missed.
    const { rows } = await client.query('select jti, extract(epoch from expires_at) * 1000 as exp from revoked_tokens where expires_at > now()');
    for (const row of rows) this.revoked.set(row.jti, Number(row.exp));
    this.client = client;
    this.listening = true;
  }

  private lost(client: pg.Client, err?: Error) {
    if (this.client !== client || this.stopped) return;
    this.listening = false;
    this.client = null;
    this.log.warn({ err }, 'revocation listener lost its connection; checking the database per request until it is back');
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect() {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch((err) => {
        this.log.warn({ err }, 'revocation listener could not reconnect');
        this.scheduleReconnect();
      });
    }, 1000);
    this.retry.unref();
  }

  /** Note a revocation this process just committed (others hear it through NOTIFY). */
  remember(jti: string, expiresAtMs: number) {
    this.revoked.set(jti, expiresAtMs);
  }

  /** Is this JWT id revoked? `query` is the database fallback while the listener is down. */
  async isRevoked(jti: string, query: (sql: string, params: unknown[]) => Promise<unknown[]>): Promise<boolean> {
    if (this.listening) {
      const exp = this.revoked.get(jti);
      if (exp === undefined) return false;
      if (exp < Date.now()) this.revoked.delete(jti);
      return true;
    }
    return (await query('select 1 from revoked_tokens where jti = ?', [jti])).length > 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => {});
  }
}

/** Record a revocation in the caller's transaction; every process hears it when the transaction commits. */
export async function revokeJwt(execute: (sql: string, params: unknown[]) => Promise<unknown>, jti: string, expiresAt: Date): Promise<void> {
  await execute('insert into revoked_tokens (jti, expires_at) values (?, ?) on conflict (jti) do nothing', [jti, expiresAt]);
  await execute('select pg_notify(?, ?)', [REVOKED_CHANNEL, `${jti} ${expiresAt.getTime()}`]);
}
