// The process logger (pino), and the one line per response the HTTP servers write. Request URLs are logged without
// the values of credential-like query parameters (OAuth codes, states, tokens), and no header or body is logged, so
// no credential reaches a log line.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';

const SECRET_PARAMS = /([?&](?:code|state|token|access_token|refresh_token|client_secret)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_PARAMS, '$1[redacted]') : url;
}

/**
 * One `info` line per response instead of Fastify's two (`incoming request` and `request completed`, which
 * serialise the request and the reply): method, path, route, status, milliseconds and org, with the request id the
 * request's logger carries. A response that failed mid-way is logged at `error`, as Fastify does; errors the
 * handlers answer are logged by the error handler, unchanged.
 */
export class ResponseLogController extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      route: request.routeOptions.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      org: request.org?.prefix,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

export const LOG_SERIALIZERS = {
  req: (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

/** The process logger; lines go to stdout unless a destination is given (the benchmarks write to /dev/null). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino({ level, serializers: LOG_SERIALIZERS }, destination) : pino({ level, serializers: LOG_SERIALIZERS });
}
