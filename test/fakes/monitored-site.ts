// A site to monitor in uptime tests: one HTTP server on OUTSIDE_HOST (reachable through the safe fetcher only after
// allowOutside(t)) whose every path answers what the test set last: a status, a body, a delay, a redirect, or no
// answer at all (`hang`, for timeouts without racing a timer). It counts the requests it got. Test code only.
import { createServer, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export interface MonitoredAnswer {
  /** Default 200. */
  status?: number;
  /** Default `<h1>All systems operational</h1>`. */
  body?: string;
  /** Milliseconds before answering. Default 0. */
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up or the site closes). */
  hang?: boolean;
  /** Answer 302 to this URL. */
  redirect?: string;
}

export interface MonitoredSite {
  /** `http://127.0.0.2:PORT`. */
  readonly origin: string;
  /** `origin` + path (default `/`). */
  url(path?: string): string;
  /** From now on every path answers this (fields left out take their defaults). */
  answer(answer: MonitoredAnswer): void;
  /** Requests received so far, with their path and user agent. */
  readonly requests: { path: string; userAgent: string | undefined }[];
  close(): Promise<void>;
}

export const MONITORED_BODY = '<h1>All systems operational</h1>';

export async function startMonitoredSite(t?: { teardown(fn: () => unknown): void }): Promise<MonitoredSite> {
  let current: MonitoredAnswer = {};
  const requests: MonitoredSite['requests'] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '/', userAgent: req.headers['user-agent'] });
    const answer = current;
    if (answer.hang) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    const send = () => {
      if (answer.redirect) {
        res.writeHead(302, { location: answer.redirect });
        return res.end();
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(answer.body ?? MONITORED_BODY);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs); else send();
  });
  const { origin, close } = await listenOutside(server, t);
  return {
    origin,
    url: (path = '/') => `${origin}${path}`,
    answer: (answer) => { current = answer; },
    requests,
    close,
  };
}
