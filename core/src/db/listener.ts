// One LISTEN connection per process for PostgreSQL notifications (revocations, org changes). Subscribers get each
// payload and are told to resync after every (re)connect, since notifications sent while disconnected are lost.
// While the connection is down, `healthy` is false and subscribers must not trust what they cached.
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

interface Subscription { channel: string; onMessage: (payload: string) => void; onConnect?: (client: pg.Client) => Promise<void> }

export class PgListener {
  private readonly subscriptions: Subscription[] = [];
  private client: pg.Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  healthy = false;

  constructor(private readonly connectionString: string, private readonly log: FastifyBaseLogger) {}

  /** Subscribe before start(). `onConnect` runs after LISTEN on every (re)connect, to reload state. */
  subscribe(sub: Subscription) {
    if (!/^[a-z_]+$/.test(sub.channel)) throw new Error(`bad channel name ${sub.channel}`);
    this.subscriptions.push(sub);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      for (const sub of this.subscriptions) if (sub.channel === msg.channel) sub.onMessage(msg.payload ?? '');
    });
    await client.connect();
    for (const channel of new Set(this.subscriptions.map((s) => s.channel))) await client.query(`listen ${channel}`);
    // Listen first, then load: a change between the two is heard, not missed.
    for (const sub of this.subscriptions) await sub.onConnect?.(client);
    this.client = client;
    this.healthy = true;
  }

  private lost(client: pg.Client, err?: Error) {
    if (this.client !== client || this.stopped) return;
    this.healthy = false;
    this.client = null;
    this.log.warn({ err }, 'notification listener lost its connection; reading the database until it is back');
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect() {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.start().catch((err) => {
        this.log.warn({ err }, 'notification listener could not reconnect');
        this.scheduleReconnect();
      });
    }, 1000);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.healthy = false;
    await client?.end().catch(() => {});
  }
}
