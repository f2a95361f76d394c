// A fake website and page-rendering service for crawl tests: real HTTP on OUTSIDE_HOST (random ports). The site
// serves pages a test sets (body, status, content type, redirects, a delay) and robots.txt, and records every
// request with its time and user agent; the renderer answers `POST /content {url}` (browserless's API) with the
// HTML a test sets for that URL, checks its bearer key when one is set, and records the requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export interface FakePage {
  body?: string | Buffer;
  status?: number;
  /** Default: `text/html; charset=utf-8`. */
  type?: string;
  /** Answer a redirect to this URL (status 302 unless set). */
  redirect?: string;
  /** Milliseconds before the answer. */
  delayMs?: number;
}

export interface SiteRequest { path: string; at: number; userAgent: string | undefined }

export interface FakeSite {
  /** `http://127.0.0.2:PORT`. */
  readonly origin: string;
  set(path: string, page: FakePage): void;
  /** robots.txt text, or a status (404: none; 500: unreadable). Default: 404. */
  robots(body: string | number): void;
  readonly requests: SiteRequest[];
  close(): Promise<void>;
}

export interface FakeRenderer {
  /** `http://127.0.0.2:PORT` — the service's base URL. */
  readonly url: string;
  /** The HTML answered for a page URL. Unknown URLs get 502. */
  set(pageUrl: string, html: string): void;
  /** The next answers are this status. */
  failNext(status: number, count?: number): void;
  readonly requests: { url: unknown; key: string | null }[];
  close(): Promise<void>;
}

type Teardown = { teardown(fn: () => unknown): void };

async function listen(t: Teardown, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  const { origin } = await listenOutside(server, t);
  return { server, origin };
}

export async function startFakeSite(t: Teardown): Promise<FakeSite> {
  const pages = new Map<string, FakePage>();
  let robots: string | number = 404;
  const requests: SiteRequest[] = [];
  const { server, origin } = await listen(t, (req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    requests.push({ path, at: Date.now(), userAgent: req.headers['user-agent'] });
    if (path === '/robots.txt') {
      if (typeof robots === 'number') { res.writeHead(robots); return res.end(); }
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(robots);
    }
    const page = pages.get(path);
    if (!page) { res.writeHead(404, { 'content-type': 'text/html' }); return res.end('<h1>Not found</h1>'); }
    const answer = () => {
      if (page.redirect) { res.writeHead(page.status ?? 302, { location: page.redirect }); return res.end(); }
      res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8' });
      res.end(page.body ?? '');
    };
    if (page.delayMs) setTimeout(answer, page.delayMs); else answer();
  });
  return {
    origin,
    set: (path, page) => { pages.set(path, page); },
    robots: (body) => { robots = body; },
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export async function startFakeRenderer(t: Teardown, options: { apiKey?: string } = {}): Promise<FakeRenderer> {
  const html = new Map<string, string>();
  const failures: number[] = [];
  const requests: FakeRenderer['requests'] = [];
  const { server, origin } = await listen(t, (req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const auth = req.headers.authorization;
      const key = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
      let body: { url?: unknown } = {};
      try { body = JSON.parse(raw); } catch { /* recorded as it is */ }
      requests.push({ url: body.url, key });
      const failure = failures.shift();
      if (failure) { res.writeHead(failure, { 'content-type': 'application/json' }); return res.end('{"error":"fake failure"}'); }
      if (options.apiKey && key !== options.apiKey) { res.writeHead(401); return res.end(); }
      if (req.method !== 'POST' || new URL(req.url!, 'http://x').pathname !== '/content') { res.writeHead(404); return res.end(); }
      const page = typeof body.url === 'string' ? html.get(body.url) : undefined;
      if (page === undefined) { res.writeHead(502); return res.end('page failed to load'); }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    });
  });
  return {
    url: origin,
    set: (pageUrl, page) => { html.set(pageUrl, page); },
    failNext: (status, count = 1) => { for (let i = 0; i < count; i++) failures.push(status); },
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
