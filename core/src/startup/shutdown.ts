// Stopping a running Quad: on SIGINT/SIGTERM (or a crash), close what was started in the reverse order, once, then
// exit. close-with-grace runs the close, bounds it in time and handles crashes and the other signals; SIGINT and
// SIGTERM are ours, because a wrapper may relay the signal the terminal already sent us (tsx does when we take
// more than 30 ms to tell it we got one): that copy must not count as the operator insisting.
import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger } from 'fastify';

export interface Shutdown {
  /** Register something to close; the last added closes first (the API before the database it uses). */
  add(name: string, close: () => Promise<void>): void;
  /** Close everything now (a failed start), without exiting. */
  closeAll(): Promise<void>;
}

/** Running jobs get this long to finish before the process exits anyway. */
export const SHUTDOWN_DELAY_MS = 25_000;
/** A second SIGINT/SIGTERM this soon after the first is the same request, relayed; later, it means "exit now". */
const RELAYED_WITHIN_MS = 1000;

export function handleShutdown(log: FastifyBaseLogger, delay = SHUTDOWN_DELAY_MS): Shutdown {
  const steps: { name: string; close: () => Promise<void> }[] = [];
  const closeAll = async () => {
    // Each step once, even if a failed start and a signal both ask.
    for (let step = steps.pop(); step; step = steps.pop()) {
      try {
        await step.close();
      } catch (err) {
        log.error({ err, step: step.name }, 'shutdown: a step failed');
      }
    }
  };
  const grace = closeWithGrace({
    delay,
    logger: false,
    skip: ['SIGINT', 'SIGTERM'],
    onSecondSignal: (signal) => log.warn({ signal }, 'shutdown: second signal, exiting now'),
    onSecondError: (err) => log.error({ err }, 'shutdown: another error while closing, exiting now'),
    onTimeout: (ms) => log.error({ ms }, 'shutdown: still closing after the delay, exiting now'),
  }, async ({ signal, err }) => {
    const started = performance.now();
    if (err) log.fatal({ err }, 'crashed: shutting down');
    else if (signal) log.info({ signal }, 'shutting down');
    await closeAll();
    log.info({ ms: Math.round(performance.now() - started) }, 'stopped');
  });

  let first: number | undefined;
  const onStopSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = Date.now();
      log.info({ signal }, 'shutting down');
      void grace.close();
    } else if (Date.now() - first >= RELAYED_WITHIN_MS) {
      log.warn({ signal }, 'shutdown: second signal, exiting now');
      process.exit(1);
    }
  };
  process.on('SIGINT', onStopSignal);
  process.on('SIGTERM', onStopSignal);
  return { add: (name, close) => void steps.push({ name, close }), closeAll };
}
