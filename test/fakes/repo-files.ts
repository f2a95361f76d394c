// A fake of the code-hosting service's raw file host (raw.githubusercontent.com) for repo_jobs feed tests: one HTTP
// server on OUTSIDE_HOST answering GET /<owner>/<name>/<branch>/<path> with the file a test put there (text/plain,
// as the real host does), 404 for anything else; a test can make it fail and read the requests. Test code.
import { createServer } from 'node:http';
import { listenOutside } from './outside.js';

export interface FakeRepoFiles {
  /** `http://127.0.0.2:PORT`: the base URL (FEEDS_REPO_RAW_URL). */
  readonly url: string;
  /** Serve `content` at <repo>/<branch>/<path> (repo is `owner/name`). */
  put(repo: string, branch: string, path: string, content: string): void;
  /** From now on every request is answered with this status (null: serve again). */
  fail(status: number | null): void;
  /** Paths asked for, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startFakeRepoFiles(): Promise<FakeRepoFiles> {
  const files = new Map<string, string>();
  const requests: string[] = [];
  let failing: number | null = null;
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://fake').pathname);
    requests.push(path);
    if (failing !== null) {
      res.writeHead(failing, { 'content-type': 'text/plain' }).end(`${failing} error`);
      return;
    }
    const content = req.method === 'GET' ? files.get(path) : undefined;
    if (content === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(content);
  });
  const { origin, close } = await listenOutside(server);
  return {
    url: origin,
    put(repo, branch, path, content) { files.set(`/${repo}/${branch}/${path}`, content); },
    fail(status) { failing = status; },
    requests,
    close,
  };
}
