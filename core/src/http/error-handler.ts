// One error shape for every route: `{ error, reason?, ... }` with the right status. Errors the core knows (an
// HttpError, an unreachable database or outside service: see knownError) answer their own status; anything else
// is a bug, answered 500 `{ error: "Internal Server Error", request_id }` with no detail of its own — the message,
// SQL, stack and addresses go to the logger and the error log only.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CoreServices } from '../services.js';
import { internalErrorBody, knownError, retryAfterOf } from './errors.js';

function validationMessage(err: FastifyError): { error: string; field: string } {
  const first = err.validation![0];
  const context = err.validationContext ?? 'request';
  const missing = (first.params as { missingProperty?: string })?.missingProperty;
  const path = [context, ...first.instancePath.split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
  return { error: `${path}: ${missing ? 'is required' : first.message}`, field: path };
}

/**
 * Send an error body as plain JSON: a route's response schema never reshapes (or fails to serialize) an error,
 * so a refusal before the handler is the same answer on every route.
 */
function sendError(reply: FastifyReply, status: number, body: Record<string, unknown>) {
  return reply.code(status).type('application/json; charset=utf-8').serializer((payload) => JSON.stringify(payload)).send(body);
}

/** The 404 of a path no route serves, on the API and the tool port alike. */
export function routeNotFound(request: FastifyRequest) {
  return { error: `Route ${request.method} ${request.url.split('?')[0]} not found`, reason: 'route_not_found' };
}

export function installErrorHandling(app: FastifyInstance, services: () => CoreServices) {
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(routeNotFound(request));
  });

  app.setErrorHandler(async (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = knownError(err);
    if (known) {
      const retryAfter = retryAfterOf(known);
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      // An outside service that cannot answer: the cause (which may name an address) goes to the logger only.
      if (known !== err) request.log.warn({ err, reason: known.reason }, `${request.method} ${request.routeOptions.url ?? request.url} answered ${known.statusCode} ${known.reason}`);
      return sendError(reply, known.statusCode, { error: known.message, ...(known.reason && { reason: known.reason }), ...known.details });
    }
    if (err.validation) {
      return sendError(reply, 400, { ...validationMessage(err), reason: 'validation' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: 413 body too large, 415 media type, 400 bad JSON…
      return sendError(reply, err.statusCode, { error: err.message });
    }
    const origin = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
    const line = `unhandled error in ${origin}: ${err.message}`;
    request.log.error({ err }, line);
    await services().logError({ orgId: request.org?.id ?? null, source: 'request', origin, requestId: request.id, error: err, logLine: line });
    return sendError(reply, 500, internalErrorBody(request.id));
  });
}
