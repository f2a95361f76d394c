// The metrics-only listener on METRICS_PORT, for any role: a worker process serves no API, so this is where its job
// metrics are scraped (an API process may use it too, to keep scrapes off the public port). It serves GET /metrics
// with the same token as the API's route (METRICS_PORT needs METRICS_TOKEN) and answers 404 to anything else.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { routeNotFound } from '../http/error-handler.js';
import { knownError } from '../http/errors.js';
import { requestIdOf } from '../http/request-id.js';
import { metricsRefusal } from './access.js';
import type { Metrics } from './metrics.js';

export interface MetricsListenerOptions {
  metrics: Metrics;
  token: string;
  log: FastifyBaseLogger;
}

export async function buildMetricsListener({ metrics, token, log }: MetricsListenerOptions): Promise<FastifyInstance> {
  // No line per scrape: a scraper calls every few seconds, and its failures show in its own `up` metric.
  const app = Fastify({ loggerInstance: log, genReqId: requestIdOf, logController: new LogController({ disableRequestLogging: true }) });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-request-id', request.id);
    done();
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(routeNotFound(request)));
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = knownError(err);
    if (known) return reply.code(known.statusCode).send({ error: known.message, ...(known.reason && { reason: known.reason }) });
    // Fastify's own client errors (a body it cannot parse, …).
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send({ error: err.message });
    request.log.error({ err }, `metrics listener: ${err.message}`);
    return reply.code(500).send({ error: 'Internal Server Error', request_id: request.id });
  });
  app.get('/metrics', {
    onRequest: (request, _reply, done) => done(metricsRefusal(request, token) ?? undefined),
  }, async (_request, reply) => {
    const { contentType, text } = await metrics.exposition();
    return reply.type(contentType).send(text);
  });
  return app;
}
