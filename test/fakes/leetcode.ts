// A fake of LeetCode's public GraphQL API for LeetCode module tests: one HTTP server on OUTSIDE_HOST (random port)
// answering POST /graphql for the three queries Quad sends, told apart by the field the query selects:
//   activeDailyCodingChallengeQuestion            → the daily problem (setDaily)
//   matchedUser(username:)                        → { username } or null with an `errors` entry, as LeetCode does
//   recentAcSubmissionList(username:, limit:)     → the user's accepted submissions, newest first, at most limit
// A test sets the daily problem, the users and their submissions, makes it fail (a status, a body that is not JSON,
// or no answer at all) and reads the requests. Test code, not production code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export interface FakeDailyProblem {
  date: string;
  questionFrontendId: string;
  title: string;
  titleSlug: string;
  difficulty: 'Easy' | 'Medium' | 'Hard';
  topicTags: string[];
}
/** How the fake fails: this status (JSON error body), 200 with a body that is not JSON, or never answering. */
export type FakeLeetCodeFailure = { status: number } | 'garbage' | 'hang';
export interface FakeLeetCodeRequest { operation: 'daily' | 'user' | 'recent' | 'unknown'; variables: Record<string, unknown>; headers: IncomingMessage['headers'] }

export interface FakeLeetCode {
  /** `http://127.0.0.2:PORT`: the LEETCODE_API_URL of tests. */
  readonly url: string;
  /** The problem activeDailyCodingChallengeQuestion answers (null: LeetCode answers null). */
  setDaily(problem: FakeDailyProblem | null): void;
  /** A LeetCode user (case-insensitive lookups answer this spelling). */
  addUser(username: string): void;
  /** An accepted submission of a user at `at`; the newest are answered first. */
  accept(username: string, titleSlug: string, at: Date): void;
  fail(failure: FakeLeetCodeFailure | null): void;
  readonly requests: FakeLeetCodeRequest[];
  close(): Promise<void>;
}

export const LEETCODE_SEED_DAILY: FakeDailyProblem = {
  date: '2026-03-02', questionFrontendId: '1', title: 'Two Sum', titleSlug: 'two-sum', difficulty: 'Easy', topicTags: ['Array', 'Hash Table'],
};

export async function startFakeLeetCode(t?: { teardown(fn: () => unknown): void }): Promise<FakeLeetCode> {
  let daily: FakeDailyProblem | null = LEETCODE_SEED_DAILY;
  const users = new Map<string, string>();
  const accepted = new Map<string, { titleSlug: string; at: Date }[]>();
  let failure: FakeLeetCodeFailure | null = null;
  const requests: FakeLeetCodeRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  function answer(operation: FakeLeetCodeRequest['operation'], variables: Record<string, unknown>): unknown {
    const name = String(variables.username ?? '').toLowerCase();
    switch (operation) {
      case 'daily':
        return {
          data: {
            activeDailyCodingChallengeQuestion: daily && {
              date: daily.date, userStatus: 'NotStart', link: `/problems/${daily.titleSlug}/`,
              question: {
                questionFrontendId: daily.questionFrontendId, title: daily.title, titleSlug: daily.titleSlug, difficulty: daily.difficulty,
                topicTags: daily.topicTags.map((tag) => ({ name: tag, slug: tag.toLowerCase().replace(/\W+/g, '-') })),
              },
            },
          },
        };
      case 'user': {
        const username = users.get(name);
        return username
          ? { data: { matchedUser: { username } } }
          : { data: { matchedUser: null }, errors: [{ message: 'That user does not exist.', locations: [{ line: 1, column: 60 }], path: ['matchedUser'], extensions: { handled: true } }] };
      }
      case 'recent': {
        const limit = Math.max(0, Math.min(50, Number(variables.limit) || 0));
        const list = [...(accepted.get(name) ?? [])].sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit);
        return {
          data: {
            recentAcSubmissionList: list.map((s, i) => ({
              id: String(1_000_000 + i), title: s.titleSlug, titleSlug: s.titleSlug, timestamp: String(Math.floor(s.at.getTime() / 1000)),
            })),
          },
        };
      }
      default:
        return { errors: [{ message: 'Cannot query field on type "Query".' }] };
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://fake').pathname !== '/graphql') return send(res, 404, { error: 'not found' });
      let body: { query?: unknown; variables?: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, { errors: [{ message: 'Must provide query string.' }] });
      }
      const query = typeof body.query === 'string' ? body.query : '';
      const variables = (typeof body.variables === 'object' && body.variables !== null ? body.variables : {}) as Record<string, unknown>;
      const operation = query.includes('activeDailyCodingChallengeQuestion') ? 'daily'
        : query.includes('recentAcSubmissionList') ? 'recent' : query.includes('matchedUser') ? 'user' : 'unknown';
      requests.push({ operation, variables, headers: req.headers });
      if (failure === 'hang') { hanging.add(res); return; }
      if (failure === 'garbage') { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>Just a moment...</html>'); return; }
      if (failure) return send(res, failure.status, { error: 'upstream failure' });
      return send(res, 200, answer(operation, variables));
    });
  });
  const listening = await listenOutside(server, t);

  return {
    url: listening.origin,
    requests,
    setDaily(problem) { daily = problem; },
    addUser(username) { users.set(username.toLowerCase(), username); },
    accept(username, titleSlug, at) {
      const key = username.toLowerCase();
      accepted.set(key, [...(accepted.get(key) ?? []), { titleSlug, at }]);
    },
    fail(f) { failure = f; },
    async close() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      await listening.close();
    },
  };
}
