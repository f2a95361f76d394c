// Runs the modules' daemons in worker processes. A singleton daemon runs in one process of the deployment at a
// time: each worker keeps trying a session advisory lock on its own connection, and the holder runs the daemon;
// if that connection dies, the daemon is stopped and another worker takes over.
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { DaemonDecl } from '../modules/types.js';
import type { CoreServices } from '../services.js';

interface DaemonDeps { url: string; orm: MikroORM; services: CoreServices; log: FastifyBaseLogger; /** How often a follower tries to take the lead. */ retryMs: number }

/** A stable 64-bit lock key per daemon name. */
const lockKey = (name: string) => createHash('sha256').update(`quad-daemon:${name}`).digest().readBigInt64BE(0).toString();

class DaemonSlot {
  private stopFn: (() => Promise<void>) | null = null;
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly daemon: DaemonDecl, private readonly deps: DaemonDeps) {}

  get running() {
    return this.stopFn !== null;
  }

  async begin() {
    if (this.daemon.singleton === false) return this.launch();
    await this.tryLead();
  }

  private schedule() {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tryLead(), this.deps.retryMs);
    this.timer.unref();
  }

  private async tryLead() {
    const client = new pg.Client({ connectionString: this.deps.url });
    client.on('error', () => void this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query('select pg_try_advisory_lock($1::bigint) as won', [lockKey(this.daemon.name)]);
      if (!rows[0].won || this.stopped) {
        await client.end();
        return this.schedule();
      }
      this.client = client;
      await this.launch();
    } catch (err) {
      this.deps.log.warn({ err }, `daemon ${this.daemon.name}: could not take the lead`);
      await client.end().catch(() => {});
      this.schedule();
    }
  }

  private async launch() {
    const log = this.deps.log.child({ daemon: this.daemon.name });
    this.stopFn = await this.daemon.start({ orm: this.deps.orm, services: this.deps.services, log });
    log.info(`daemon ${this.daemon.name} started`);
  }

  /** The lock's connection died: another process may hold the lock now, so stop and try again. */
  private async lost(client: pg.Client) {
    if (this.client !== client) return;
    this.client = null;
    this.deps.log.warn(`daemon ${this.daemon.name}: lost its lock connection; stopping and retrying`);
    await this.halt();
    this.schedule();
  }

  private async halt() {
    const stop = this.stopFn;
    this.stopFn = null;
    await stop?.().catch((err) => this.deps.log.error({ err }, `daemon ${this.daemon.name} failed to stop`));
  }

  async end() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.halt();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {}); // releases the advisory lock
  }
}

export interface Daemons {
  /** Names of the daemons running in this process. */
  running(): string[];
  stop(): Promise<void>;
}

export async function startDaemons(deps: DaemonDeps): Promise<Daemons> {
  const slots = new Map<string, DaemonSlot>();
  for (const mod of deps.services.registry.modules) {
    for (const daemon of mod.daemons) {
      if (daemon.enabled && !daemon.enabled(deps.services)) continue;
      slots.set(daemon.name, new DaemonSlot(daemon, deps));
    }
  }
  await Promise.all([...slots.values()].map((s) => s.begin()));
  return {
    running: () => [...slots].filter(([, s]) => s.running).map(([name]) => name),
    stop: async () => {
      await Promise.all([...slots.values()].map((s) => s.end()));
    },
  };
}
