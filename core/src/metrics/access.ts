// Who may read the metrics: whoever sends `Authorization: Bearer <METRICS_TOKEN>`. Without METRICS_TOKEN nothing is
// served (404, as for a path no route serves), so a Quad exposes no metrics unless its operator chose a token.
// The `metrics` auth policy of GET /metrics on the API, and the METRICS_PORT listener, both check here.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { routeNotFound } from '../http/error-handler.js';
import { HttpError, unauthorized } from '../http/errors.js';
import type { PolicyHandler } from '../http/auth-policies.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Does the Authorization header carry this token? In constant time (both sides hashed to the same length first). */
export function presentsToken(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  return timingSafeEqual(digest(presented ?? ''), digest(token)) && presented !== undefined;
}

/** Refuse a metrics request: 404 like an unknown path while metrics are off, 401 without the right token. */
export function metricsRefusal(request: FastifyRequest, token: string | undefined): HttpError | null {
  if (!token) {
    const { error, reason } = routeNotFound(request);
    return new HttpError(404, error, reason);
  }
  if (!presentsToken(request.headers.authorization, token)) {
    return unauthorized('Send Authorization: Bearer <METRICS_TOKEN>', 'invalid_token');
  }
  return null;
}

/** The `metrics` auth policy (the core's GET /metrics only): the metrics token, checked before anything else runs. */
export function metricsPolicy(token: string | undefined): PolicyHandler {
  return {
    authenticate(request) {
      const refusal = metricsRefusal(request, token);
      if (refusal) throw refusal;
      request.caller = { kind: 'metrics', actor: 'metrics' };
    },
  };
}
