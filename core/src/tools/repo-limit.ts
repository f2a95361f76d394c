// The `repos` limit of remote tools: which repositories a call of a remote tool reaches, decided from the parameters
// the remote tool's listed input schema declares (an argument it does not declare is one the server ignores, so it
// proves nothing), before anything is sent.
//
// - The repository a call names comes from the declared arguments only (the integration's `repoArgument`; by default
//   `owner` + `repo`, or `repo` as `owner/name`).
// - A search query (a declared string argument named `query` or `q`) is read for `repo:`, `org:` and `user:`
//   qualifiers, in any case, quoted phrases included (a server may strip the quotes): each one not negated by a
//   leading `-` must be inside the token's patterns (`org:`/`user:` name every repository of an owner, so a pattern
//   must cover them all, e.g. `acm/*`).
// - A search reaches every repository the org's credentials can read unless it is confined: by its own qualifiers
//   (at least one, outside quotes, not negated by `-` or NOT, and no OR or parentheses that could step around
//   them), or by the repository the call names when the query mentions no `repo:` at all (GitHub's server adds
//   `repo:<owner>/<repo>` only then). Anything else is refused (`repo_required`).
// Queries are read with string operations in one pass, never a backtracking pattern.
import { patternMatches } from '../auth/machine-tokens.js';
import type { ToolOutcome } from './tool-types.js';

/** The arguments read as search queries when a tool declares them (GitHub's search tools call it `query`). */
export const QUERY_ARGUMENTS = ['query', 'q'] as const;
/** The qualifiers that name repositories: `repo:owner/name`, `org:owner`, `user:owner`. */
const SCOPE_KEYS = ['repo', 'org', 'user'] as const;
/** One owner and one name, as GitHub spells them; anything else never matches a repos pattern. */
const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
const OWNER = /^[A-Za-z0-9_.-]{1,100}$/;

/** The repository a call names by default: `owner` + `repo`, or `repo` as `owner/name`. */
export function defaultRepoArgument(args: Readonly<Record<string, unknown>>): string | null {
  const { owner, repo } = args;
  if (typeof repo !== 'string') return null;
  if (typeof owner === 'string') return `${owner}/${repo}`;
  return repo.includes('/') ? repo : null;
}

/** The repository a call names when the server reads only `owner` and `repo` together (GitHub's). */
export function ownerRepoArgument(args: Readonly<Record<string, unknown>>): string | null {
  const { owner, repo } = args;
  return typeof owner === 'string' && typeof repo === 'string' && owner && repo ? `${owner}/${repo}` : null;
}

/** A `repo:`, `org:` or `user:` qualifier of a search query. */
export interface ScopeQualifier {
  key: (typeof SCOPE_KEYS)[number];
  value: string;
  /** Led by `-`: it excludes, so it neither widens nor confines the search. */
  negated: boolean;
  /** Starts a word outside quotes, not negated (by `-` or NOT): it confines the search. */
  confining: boolean;
}

export interface SearchQuery {
  qualifiers: ScopeQualifier[];
  /** An OR or a parenthesis outside quotes: qualifiers may not confine every part of the query. */
  operators: boolean;
  /** Every quote is closed. */
  balanced: boolean;
  /** `repo:` appears anywhere (then GitHub's server does not add the call's own repository). */
  mentionsRepo: boolean;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || (c !== undefined && c > '\u007f' && c.trim() === '');
const isWordChar = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_';

/**
 * A character as the qualifier names compare it: ASCII letters in any case, and `ſ`, which Unicode case folding makes
 * an `s`. Character by character: lower-casing the whole query could change its length (`İ` is two units lower-cased)
 * and shift every position after it.
 */
const fold = (c: string | undefined) => (c === '\u017f' ? 's' : c !== undefined && c >= 'A' && c <= 'Z' ? String.fromCharCode(c.charCodeAt(0) + 32) : c);

/** Does `query` hold `name:` (any case) at `i`? */
function namedAt(query: string, i: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (fold(query[i + k]) !== name[k]) return false;
  return query[i + name.length] === ':';
}

/** The scope qualifier starting at `i` (after the start or a non-word character), or null. */
function qualifierAt(query: string, i: number): ScopeQualifier['key'] | null {
  if (i > 0 && isWordChar(query[i - 1])) return null;
  return SCOPE_KEYS.find((key) => namedAt(query, i, key)) ?? null;
}

/** Read a search query's scope qualifiers, operators and quotes in one pass. */
export function parseSearchQuery(query: string): SearchQuery {
  const qualifiers: ScopeQualifier[] = [];
  let inPhrase = false;
  let operators = false;
  let balanced = true;
  let wordStart = -1; // start of the word being read (outside quotes); -1 between words
  let lastWord = ''; // the previous whole word, lower-cased
  const endWord = (end: number) => {
    if (wordStart < 0) return;
    lastWord = query.slice(wordStart, end).toLowerCase();
    if (lastWord === 'or') operators = true;
    wordStart = -1;
  };
  let i = 0;
  while (i < query.length) {
    const key = qualifierAt(query, i);
    if (key) {
      let j = i + key.length + 1;
      let value: string;
      if (query[j] === '"' && !inPhrase) {
        const close = query.indexOf('"', j + 1);
        if (close < 0) balanced = false;
        value = query.slice(j + 1, close < 0 ? query.length : close);
        j = close < 0 ? query.length : close + 1;
      } else {
        let end = j;
        while (end < query.length && !isSpace(query[end]) && query[end] !== '"' && query[end] !== ')') end++;
        value = query.slice(j, end);
        j = end;
      }
      const negated = !inPhrase && query[i - 1] === '-' && (i === 1 || isSpace(query[i - 2]) || query[i - 2] === '(');
      // Only a qualifier that starts a word after a space is surely one (`x.repo:a/b`, `"x"repo:a/b` may be text).
      const alone = wordStart < 0 && (i === 0 || isSpace(query[i - 1]));
      qualifiers.push({ key, value, negated, confining: !inPhrase && !negated && alone && lastWord !== 'not' });
      if (!inPhrase && wordStart < 0) wordStart = i;
      i = j;
      continue;
    }
    const c = query[i];
    if (c === '"') {
      if (!inPhrase) endWord(i);
      inPhrase = !inPhrase;
    } else if (!inPhrase) {
      if (isSpace(c)) endWord(i);
      else {
        if (c === '(' || c === ')') operators = true;
        if (wordStart < 0) wordStart = i;
      }
    }
    i++;
  }
  endWord(query.length);
  if (inPhrase) balanced = false;
  return { qualifiers, operators, balanced, mentionsRepo: query.toLowerCase().includes('repo:') };
}

/** Does a pattern allow this repository (`owner/name`, without case)? */
function repoAllowed(patterns: readonly string[], repo: string): boolean {
  return REPO.test(repo) && !repo.split('/').some((part) => part === '.' || part === '..') && patterns.some((p) => patternMatches(p, repo, true));
}

/**
 * Does a pattern allow every repository of this owner? A pattern matching `<owner>/` followed by a character no
 * pattern holds matches it with a `*` that would match any name there instead.
 */
function ownerAllowed(patterns: readonly string[], owner: string): boolean {
  return OWNER.test(owner) && owner !== '.' && owner !== '..' && patterns.some((p) => patternMatches(p, `${owner}/\u0000`, true));
}

/** The names of the properties a listed input schema declares at its top level. */
function declaredNames(schema: Readonly<Record<string, unknown>>): Set<string> {
  const properties = schema.properties;
  return properties && typeof properties === 'object' && !Array.isArray(properties) ? new Set(Object.keys(properties)) : new Set();
}

/** A remote tool as the repos limit reads it. */
export interface RepoLimitedTool {
  /** The integration's key (`github`) and title (`GitHub`), for messages. */
  integration: string;
  title: string;
  /** `<integration>.<tool>`. */
  name: string;
  /** The input schema its server lists. */
  inputSchema: Readonly<Record<string, unknown>>;
  /** How the integration reads a call's repository (`mcp.repoArgument`, or defaultRepoArgument). */
  repoArgument(args: Readonly<Record<string, unknown>>): string | null;
}

/**
 * Refuse a call the token's `repos` patterns do not allow (null: allowed). Without patterns every call passes; with
 * them a call must be confined to repositories they allow (see the header).
 */
export function repoRefusal(tool: RepoLimitedTool, patterns: readonly string[] | undefined, args: Readonly<Record<string, unknown>>): ToolOutcome | null {
  if (!patterns) return null;
  const limit = `limits.${tool.integration}.repos`;
  const declared = declaredNames(tool.inputSchema);
  // No prototype: a declared `__proto__` is an argument like any other, never the object's prototype.
  const own: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(args)) if (declared.has(name)) own[name] = args[name];
  let repo: string | null;
  try {
    repo = tool.repoArgument(own);
  } catch {
    repo = null;
  }
  if (typeof repo !== 'string' || !repo) repo = null;
  const notAllowed = (what: string | null, details: Record<string, unknown>): ToolOutcome => ({
    ok: false, status: 403, error: `This token may not use ${tool.name} on ${what ?? 'that repository'} (${limit})`, reason: 'repo_not_allowed', details,
  });
  if (repo !== null && !repoAllowed(patterns, repo)) {
    const valid = REPO.test(repo) && !repo.split('/').some((part) => part === '.' || part === '..');
    return notAllowed(valid ? repo : null, { repo: valid ? repo : null });
  }
  const queries = QUERY_ARGUMENTS.filter((name) => declared.has(name) && typeof own[name] === 'string').map((name) => parseSearchQuery(own[name] as string));
  for (const query of queries) {
    for (const q of query.qualifiers) {
      if (q.negated) continue;
      if (q.key === 'repo' ? !repoAllowed(patterns, q.value) : !ownerAllowed(patterns, q.value)) {
        const valid = q.key === 'repo' ? REPO.test(q.value) : OWNER.test(q.value);
        const what = !valid ? null : q.key === 'repo' ? q.value : `every repository of ${q.value}`;
        return notAllowed(what, { qualifier: valid ? `${q.key}:${q.value}` : null });
      }
    }
  }
  const confined = queries.length
    ? queries.every((q) => (q.balanced && !q.operators && q.qualifiers.some((x) => x.confining)) || (repo !== null && !q.mentionsRepo && !q.operators))
    : repo !== null;
  if (confined) return null;
  const why = queries.length
    ? `the query of this call of ${tool.name} is not confined to them: name the repositories with repo:owner/name (or org:/user: for an owner whose every repository it may use), without OR or parentheses`
    : `this call of ${tool.name} names none`;
  return { ok: false, status: 403, error: `This token may use ${tool.title} only on some repositories (${limit}), and ${why}`, reason: 'repo_required' };
}
