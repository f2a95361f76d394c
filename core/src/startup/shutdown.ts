// Stopping a running Quad: on SIGINT/SIGTERM (or a crash), close what was started in the reverse order, once, then
// exit. close-with-grace handles the signals, a second signal (exit at once) and a shutdown that hangs.
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
  closeWithGrace({
    delay,
    logger: false,
    onSecondSignal: (signal) => log.warn({ signal }, 'shutdown: second signal, exiting now'),
    onSecondError: (err) => log.error({ err }, 'shutdown: another error while closing, exiting now'),
    onTimeout: (ms) => log.error({ ms }, 'shutdown: still closing after the delay, exiting now'),
  }, async ({ signal, err }) => {
    const started = performance.now();
    if (err) log.fatal({ err }, 'crashed: shutting down');
    else log.info({ signal }, 'shutting down');
    await closeAll();
    log.info({ ms: Math.round(performance.now() - started) }, 'stopped');
  });
  return { add: (name, close) => void steps.push({ name, close }), closeAll };
}
