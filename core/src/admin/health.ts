// Server health for the superadmin: load, memory, disk, database size, container memory, job queue and bot.
// Sampled at most every 30 s per process; the page shows when it was taken.
import { readFile, statfs } from 'node:fs/promises';
import os from 'node:os';
import { resolve } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { BotHealth, BotStatus } from './bot-status.js';

export interface HealthSample {
  sampled_at: string;
  load: { one: number; five: number; fifteen: number; cpus: number };
  memory: { total: number; free: number; process_rss: number };
  container_memory: { used: number; limit: number | null } | null;
  disk: { path: string; total: number; free: number } | null;
  database: { size_bytes: number };
  jobs: { waiting: number; running: number; failed: number };
  bot: BotHealth;
}

const SAMPLE_MS = 30_000;

/** cgroup v2 memory use and limit, when the process runs in a container that exposes them. */
async function containerMemory(): Promise<HealthSample['container_memory']> {
  try {
    const used = Number((await readFile('/sys/fs/cgroup/memory.current', 'utf8')).trim());
    const max = (await readFile('/sys/fs/cgroup/memory.max', 'utf8')).trim();
    return { used, limit: max === 'max' ? null : Number(max) };
  } catch {
    return null;
  }
}

export class HealthSampler {
  private last: { sample: HealthSample; at: number } | null = null;

  constructor(private readonly orm: MikroORM, private readonly bot: BotStatus, private readonly dataDir: string) {}

  async sample(): Promise<HealthSample> {
    if (this.last && Date.now() - this.last.at < SAMPLE_MS) return this.last.sample;
    const em = this.orm.em.fork();
    const [[db], [jobs], disk, container, bot] = await Promise.all([
      em.execute('select pg_database_size(current_database())::bigint as size'),
      em.execute(`select count(*) filter (where locked_at is null and attempts < max_attempts)::int as waiting,
                         count(*) filter (where locked_at is not null)::int as running,
                         count(*) filter (where attempts >= max_attempts)::int as failed from graphile_worker.jobs`),
      statfs(resolve(this.dataDir)).then((s) => ({ path: resolve(this.dataDir), total: s.blocks * s.bsize, free: s.bavail * s.bsize })).catch(() => null),
      containerMemory(),
      this.bot.health(),
    ]);
    const [one, five, fifteen] = os.loadavg();
    const sample: HealthSample = {
      sampled_at: new Date().toISOString(),
      load: { one, five, fifteen, cpus: os.cpus().length },
      memory: { total: os.totalmem(), free: os.freemem(), process_rss: process.memoryUsage().rss },
      container_memory: container,
      disk,
      database: { size_bytes: Number(db.size) },
      jobs: { waiting: jobs.waiting, running: jobs.running, failed: jobs.failed },
      bot,
    };
    this.last = { sample, at: Date.now() };
    return sample;
  }
}
