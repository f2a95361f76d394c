// GET /metrics on the API port: the Prometheus text exposition of this process, behind the `metrics` auth policy
// (Bearer METRICS_TOKEN; 404 while it is unset). Left out of the OpenAPI document: it is for a Prometheus server,
// not for API clients, and its credential is none of the API's (README "Metrics").
import type { FastifyPluginAsync } from 'fastify';
import type { Metrics } from './metrics.js';

export function metricsRoutes(metrics: Metrics): FastifyPluginAsync {
  return async (app) => {
    app.get('/metrics', { config: { auth: 'metrics' }, schema: { hide: true } }, async (_request, reply) => {
      const { contentType, text } = await metrics.exposition();
      return reply.type(contentType).send(text);
    });
  };
}
