// The LeetCode adapter: three queries of LeetCode's public GraphQL API (POST <LEETCODE_API_URL>/graphql). The base URL
// is an operator's setting, so it is fetched as trusted (private addresses allowed) but still through the core's
// safe fetcher, with a deadline and a size cap. Every way LeetCode can fail (no answer, a 5xx, a body that is not the
// expected JSON) is one error, LeetCodeUnavailable (503 leetcode_unavailable on routes), whose message names the
// query and never the address.
import { HttpError, SafeFetchError, safeFetch } from '@quad/core';
import type { LeetCodeSettings } from './settings.js';

const MAX_BYTES = 1024 * 1024;

export class LeetCodeUnavailable extends HttpError {
  constructor(message: string) {
    super(503, message, 'leetcode_unavailable');
    this.name = 'LeetCodeUnavailable';
  }
}

export interface DailyProblem {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** The problem page, absolute. */
  link: string;
  questionId: string;
  title: string;
  slug: string;
  difficulty: string;
  tags: string[];
}

export interface AcceptedSubmission { slug: string; at: Date }

const DAILY_QUERY = `query questionOfToday { activeDailyCodingChallengeQuestion { date link question { questionFrontendId title titleSlug difficulty topicTags { name } } } }`;
const USER_QUERY = `query userPublicProfile($username: String!) { matchedUser(username: $username) { username } }`;
const RECENT_AC_QUERY = `query recentAcSubmissions($username: String!, $limit: Int!) { recentAcSubmissionList(username: $username, limit: $limit) { titleSlug timestamp } }`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max = 512): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

export class LeetCodeClient {
  private readonly base: string;

  constructor(private readonly settings: LeetCodeSettings) {
    this.base = settings.LEETCODE_API_URL.replace(/(?<!\/)\/+$/, '');
  }

  /** `data` of a GraphQL answer; LeetCodeUnavailable for anything else. */
  private async query(operation: string, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
    let text: string;
    let status: number;
    try {
      const res = await safeFetch(`${this.base}/graphql`, {
        method: 'POST', trusted: true, maxBytes: MAX_BYTES, timeoutMs: this.settings.LEETCODE_TIMEOUT_MS, maxRedirects: 0,
        headers: { 'content-type': 'application/json', accept: 'application/json', referer: `${this.base}/` },
        body: JSON.stringify({ operationName: operation, query, variables }),
      });
      status = res.status;
      text = res.text();
    } catch (err) {
      if (err instanceof SafeFetchError) throw new LeetCodeUnavailable(`LeetCode did not answer ${operation} (${err.reason})`);
      throw err;
    }
    if (status < 200 || status > 299) throw new LeetCodeUnavailable(`LeetCode answered ${operation} with HTTP ${status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new LeetCodeUnavailable(`LeetCode answered ${operation} with something that is not JSON`);
    }
    if (!isObject(body) || !isObject(body.data)) throw new LeetCodeUnavailable(`LeetCode answered ${operation} without data`);
    return body.data;
  }

  /** Today's problem (LeetCode's daily coding challenge). */
  async dailyProblem(): Promise<DailyProblem> {
    const data = await this.query('questionOfToday', DAILY_QUERY, {});
    const daily = data.activeDailyCodingChallengeQuestion;
    const q = isObject(daily) ? daily.question : undefined;
    if (!isObject(daily) || !isObject(q) || typeof daily.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(daily.date)
      || !isText(daily.link) || !isText(q.questionFrontendId, 20) || !isText(q.title, 256) || !isText(q.titleSlug, 256) || !isText(q.difficulty, 20)) {
      throw new LeetCodeUnavailable('LeetCode answered questionOfToday with a daily problem in an unknown shape');
    }
    const tags = Array.isArray(q.topicTags) ? q.topicTags.flatMap((t) => (isObject(t) && isText(t.name, 64) ? [t.name] : [])).slice(0, 20) : [];
    return {
      date: daily.date, link: new URL(daily.link, `${this.base}/`).toString(), questionId: q.questionFrontendId,
      title: q.title, slug: q.titleSlug, difficulty: q.difficulty, tags,
    };
  }

  /** The user's name as LeetCode spells it, or null when LeetCode has no such user. */
  async findUser(username: string): Promise<string | null> {
    const data = await this.query('userPublicProfile', USER_QUERY, { username });
    // LeetCode answers an unknown user with matchedUser null (and an `errors` entry).
    if (data.matchedUser === null) return null;
    if (!isObject(data.matchedUser) || !isText(data.matchedUser.username, 64)) {
      throw new LeetCodeUnavailable('LeetCode answered userPublicProfile with a user in an unknown shape');
    }
    return data.matchedUser.username;
  }

  /** The user's latest accepted submissions (at most `limit`, newest first); malformed entries are left out. */
  async recentAccepted(username: string, limit: number): Promise<AcceptedSubmission[]> {
    const data = await this.query('recentAcSubmissions', RECENT_AC_QUERY, { username, limit });
    const list = data.recentAcSubmissionList;
    // An unknown (or renamed) user: LeetCode answers null or an empty list.
    if (list === null) return [];
    if (!Array.isArray(list)) throw new LeetCodeUnavailable('LeetCode answered recentAcSubmissions without a list');
    return list.flatMap((s) => {
      if (!isObject(s) || !isText(s.titleSlug, 256)) return [];
      const seconds = Number(s.timestamp);
      return Number.isFinite(seconds) && seconds > 0 ? [{ slug: s.titleSlug, at: new Date(seconds * 1000) }] : [];
    });
  }
}
