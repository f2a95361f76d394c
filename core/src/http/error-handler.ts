// One error shape for every route: `{ error, reason?, ... }` with the right status. Unhandled errors are
// answered 500 `{ error }` and written to the error log.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CoreServices } from '../services.js';
import { HttpError } from './errors.js';

function validationMessage(err: FastifyError): { error: string; field: string } {
  const first = err.validation![0];
  const context = err.validationContext ?? 'request';
  const missing = (first.params as { missingProperty?: string })?.missingProperty;
  const path = [context, ...first.instancePath.split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
  return { error: `${path}: ${missing ? 'is required' : first.message}`, field: path };
}

export function installErrorHandling(app: FastifyInstance, services: () => CoreServices) {
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
  });

  app.setErrorHandler(async (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof HttpError) {
      if (err.statusCode === 429 && typeof err.details?.retry_after === 'number') reply.header('retry-after', String(err.details.retry_after));
      return reply.code(err.statusCode).send({ error: err.message, ...(err.reason && { reason: err.reason }), ...err.details });
    }
    if (err.validation) {
      return reply.code(400).send({ ...validationMessage(err), reason: 'validation' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: 413 body too large, 415 media type, 400 bad JSON…
      return reply.code(err.statusCode).send({ error: err.message });
    }
    const origin = `${request.method} ${request.routeOptions.url ?? request.url}`;
    const line = `unhandled error in ${origin}: ${err.message}`;
    request.log.error({ err }, line);
    await services()
      .logError({ orgId: request.org?.id ?? null, source: 'request', origin, requestId: request.id, error: err, logLine: line })
      .catch((logErr) => request.log.error({ err: logErr }, 'could not write the error log'));
    return reply.code(500).send({ error: err.message || 'Internal Server Error' });
  });
}
