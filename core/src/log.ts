// The process logger (pino). Request URLs are logged without the values of credential-like query
// parameters (OAuth codes, states, tokens), so no credential reaches a log line.
import { pino, type DestinationStream, type Logger } from 'pino';

const SECRET_PARAMS = /([?&](?:code|state|token|access_token|refresh_token|client_secret)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
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
