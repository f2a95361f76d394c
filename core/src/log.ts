// The process logger (pino), and the one line per response the HTTP servers write. Request URLs are logged without
// the values of credential-like query parameters (OAuth codes, states, tokens), and no header or body is logged, so
// no credential reaches a log line. Errors are logged by what an operator can use (type, message, code), never as
// the object graph they drag along (a pg error holds its client: 19 KB of pool internals per line).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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

/**
 * An error as one small object: type, message, code, and the stack where it says something (a PostgreSQL error's
 * stack is the protocol parser, the same every time). Causes and the parts of an AggregateError (e.g. a refused
 * connection to each address of `localhost`) the same way, a few levels deep.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const e = err as Error & { code?: unknown; severity?: unknown; errors?: unknown };
  const out: Record<string, unknown> = { type: e.constructor?.name ?? e.name, message: e.message };
  if (e.code !== undefined) out.code = e.code;
  const fromServer = typeof e.severity === 'string';
  if (e.stack && !fromServer) out.stack = e.stack;
  if (depth < 3) {
    if (e.cause !== undefined) out.cause = serializeError(e.cause, depth + 1);
    if (Array.isArray(e.errors)) out.errors = e.errors.slice(0, 5).map((x) => serializeError(x, depth + 1));
  }
  return out;
}

export const LOG_SERIALIZERS = {
  req: (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  err: serializeError,
  // graphile-worker passes its errors as `error`.
  error: serializeError,
};

export type LogFormat = 'pretty' | 'json';

/**
 * LOG_FORMAT when set; otherwise pretty lines for a person at a terminal running the development settings, and one
 * JSON object per line everywhere else (services, containers, pipes, NODE_ENV=production).
 */
export function logFormat(setting: LogFormat | undefined, nodeEnv: string, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return setting ?? (isTTY && nodeEnv === 'development' ? 'pretty' : 'json');
}

/**
 * Where JSON lines go: stdout (or `dest`), buffered. A line per request written with its own system call cost a
 * fifth of a small route's time; buffered, lines leave in 4 KB writes, at the latest a quarter second after they
 * were logged, and what is left is written when the process exits (pino flushes on exit; a SIGKILL loses at most
 * that quarter second).
 */
export function logDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, minLength: 4096, sync: false, periodicFlush: 250 });
}

/** The process logger; lines go to stdout unless a destination is given (the benchmarks write to /dev/null). */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options = { level, serializers: LOG_SERIALIZERS };
  if (format === 'pretty') {
    // In-process and synchronous, so the last lines before an exit are written.
    return pino(options, pretty({ sync: true, destination: destination ?? 1, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(options, destination ?? logDestination());
}
