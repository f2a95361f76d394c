// While a server closes, requests still arriving on its open keep-alive connections are refused with a 503 in
// Quad's own error shape (a reason and Retry-After, and the headers every answer carries), so a client or load
// balancer knows to send them again elsewhere. Fastify's own answer (`return503OnClosing`) is a fixed body with
// neither; apps that use this are created with `return503OnClosing: false` and check `closing` in their first hook.
import type { FastifyInstance } from 'fastify';
import { unavailable } from './errors.js';

/** Seconds a refused client is told to wait: another process (or this one's replacement) takes it by then. */
export const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 1;

/** A flag that turns true when `app` starts to close (before it stops listening). */
export function closingFlag(app: FastifyInstance): { readonly closing: boolean } {
  const flag = { closing: false };
  app.addHook('preClose', (done) => {
    flag.closing = true;
    done();
  });
  return flag;
}

export const shuttingDown = () =>
  unavailable('This server is shutting down: send the request again', 'shutting_down', SHUTTING_DOWN_RETRY_AFTER_SECONDS);
