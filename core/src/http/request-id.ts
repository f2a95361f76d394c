// Request ids: a client (or a proxy in front of us) may send `x-request-id` to correlate its logs with ours; it is
// kept only when short and made of safe characters, since it lands in our logs, the error log and answers.
// Anything else gets a fresh UUID.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A client's request id is kept only if it matches this (and so is at most 64 characters). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Fastify's `genReqId`: the client's `x-request-id` when it is acceptable, else a new UUID. */
export function requestIdOf(raw: IncomingMessage): string {
  const sent = raw.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
}
