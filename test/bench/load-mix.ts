// The kinds of callers the load benchmark (test/bench/load.ts) runs at once: each is one autocannon instance with
// its own connections, and a request sequence whose setupRequest turns to the next org, credential and path on
// every request. Each kind also says what counts as an answer that is not a success beyond the status (a tool
// call over MCP answers 200 with isError or a JSON-RPC error) and keeps the first such answer, to print.
import type autocannon from 'autocannon';
import { queryText, seeded, SUBTOPICS_PER_TOPIC, TOPICS } from './knowledge-data.js';
import { CHANNEL, type AgentMember, type LoadOrg, type Served } from './load-world.js';

export interface Kind {
  label: string;
  connections: number;
  options: autocannon.Options;
  /** The first failed answer (status and the start of its body), for the report. */
  firstFailure(): string | null;
}

/** Officers' dashboard reads, in turn: the overview, module listing, trends, activity and module pages' lists. */
const DASHBOARD_PATHS = [
  (org: string) => `/api/dashboard/${org}/overview`,
  (org: string) => `/api/dashboard/${org}/modules`,
  (org: string) => `/api/dashboard/${org}/trends`,
  (org: string) => `/api/dashboard/${org}/notifications`,
  (org: string) => `/api/storefront/${org}/orders`,
  (org: string) => `/api/points/${org}/leaderboard`,
  (org: string) => `/api/agents/${org}/stats`,
  (org: string) => `/api/dashboard/${org}/knowledge/sources`,
];

/** Search texts over the corpus's words (knowledge-data.ts), the same every run. */
const QUERIES = (() => {
  const random = seeded(11);
  return Array.from({ length: 200 }, () => {
    const topic = Math.floor(random() * TOPICS);
    return queryText(random, topic, topic * SUBTOPICS_PER_TOPIC + Math.floor(random() * SUBTOPICS_PER_TOPIC));
  });
})();

/** Tools an org's agent calls, in turn: reads of the core and of several modules, and a knowledge search. */
const TOOLS = ['org.info', 'modules.list', 'org.limits', 'calendar.events', 'feeds.list', 'uptime.monitors', 'knowledge.search'];

/** The n-th tool call of a kind, over `orgs` orgs: each org in turn, the next tool after every org had one. */
function toolCall(n: number, orgs: number) {
  const name = TOOLS[Math.floor(n / orgs) % TOOLS.length];
  return { name, arguments: name === 'knowledge.search' ? { query: QUERIES[n % QUERIES.length], top_k: 5 } : {} };
}

const json = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A failure recorder: autocannon's onResponse keeps the first answer that `ok` refuses. */
function failures(ok: (status: number, body: string) => boolean) {
  let first: string | null = null;
  return {
    onResponse: (status: number, body: string) => {
      if (first === null && !ok(status, body)) first = `${status} ${String(body).slice(0, 400)}`;
    },
    first: () => first,
  };
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** An MCP answer is a success when it is neither a JSON-RPC error nor a tool result marked isError. */
function mcpSucceeded(body: string | Buffer | undefined): boolean {
  try {
    const message = JSON.parse(String(body)) as { error?: unknown; result?: { isError?: boolean } };
    return !message.error && !message.result?.isError;
  } catch {
    return false;
  }
}

/** The n-th commit of a turn: a question and its answer, a memory, and a fact between a few recurring nodes. */
function commitBody(member: AgentMember, n: number) {
  return {
    conversation_id: member.conversation, channel_id: CHANNEL, visibility: 'private',
    messages: [{ role: 'user', content: `question ${n} about the robotics club` }, { role: 'assistant', content: `answer ${n}: it meets on Thursdays` }],
    memories: [{ kind: 'episodic', content: `asked question ${n}`, confidence: 0.6 }],
    facts: [{ subject: { kind: 'club', label: `club ${n % 20}` }, relation: 'asked_about', object: { kind: 'topic', label: `topic ${n % 30}` }, confidence: 0.7 }],
  };
}

export function kinds(s: Served): Kind[] {
  const { orgs } = s;
  const org = (n: number): LoadOrg => orgs[n % orgs.length];
  const out: Kind[] = [];
  const add = (label: string, connections: number, url: string, requests: autocannon.Request[], ok: (status: number, body: string) => boolean, verifyBody?: autocannon.Options['verifyBody']) => {
    const seen = failures(ok);
    out.push({
      label, connections, firstFailure: seen.first,
      options: { url, connections, requests: requests.map((r) => ({ ...r, onResponse: seen.onResponse })), ...(verifyBody && { verifyBody }) },
    });
  };

  let dashboard = 0;
  add('dashboard reads (officers, 8 pages in turn)', 3, s.api, [{
    method: 'GET',
    setupRequest: (req) => {
      const n = dashboard++;
      const o = org(n);
      return { ...req, path: DASHBOARD_PATHS[Math.floor(n / orgs.length) % DASHBOARD_PATHS.length](o.prefix), headers: { ...req.headers, ...bearer(o.officer) } };
    },
  }], is2xx);

  let mcp = 0;
  add('tool calls over MCP (7 tools in turn)', 2, s.mcp, [{
    method: 'POST',
    setupRequest: (req) => {
      const n = mcp++;
      const call = toolCall(n, orgs.length);
      return {
        ...req, headers: { ...req.headers, ...json, accept: 'application/json, text/event-stream', ...bearer(org(n).machine) },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: call }),
      };
    },
  }], (status, body) => is2xx(status) && mcpSucceeded(body), mcpSucceeded);

  let api = 0;
  add('tool calls over POST /api/tools/call', 2, `${s.api}/api/tools/call`, [{
    method: 'POST',
    setupRequest: (req) => {
      const n = api++;
      const call = toolCall(n, orgs.length);
      return { ...req, headers: { ...req.headers, ...json, ...bearer(org(n).machine) }, body: JSON.stringify(call) };
    },
  }], is2xx);

  let checkout = 0;
  add('checkouts (members, identity-provider tokens)', 4, s.api, [{
    method: 'POST',
    setupRequest: (req) => {
      const n = checkout++;
      const o = org(n);
      const shopper = Math.floor(n / orgs.length);
      return {
        ...req, path: `/api/storefront/${o.prefix}/checkout`, headers: { ...req.headers, ...json, ...bearer(o.shoppers[shopper % o.shoppers.length]) },
        body: JSON.stringify({ items: [{ product_id: o.products[shopper % o.products.length], quantity: 1, price: 1 }], total: 1 }),
      };
    },
  }], is2xx);

  let search = 0;
  add('knowledge searches (POST /api/knowledge/search)', 2, `${s.api}/api/knowledge/search`, [{
    method: 'POST',
    setupRequest: (req) => {
      const n = search++;
      return { ...req, headers: { ...req.headers, ...json, ...bearer(org(n).machine) }, body: JSON.stringify({ query: QUERIES[n % QUERIES.length] }) };
    },
  }], is2xx);

  // A turn is two requests on one connection: its context, then its commit for the same member (autocannon's
  // per-connection context carries the member from one to the other).
  let turn = 0;
  const agentMember = (n: number) => {
    const o = org(n);
    return { o, m: o.agentMembers[Math.floor(n / orgs.length) % o.agentMembers.length] };
  };
  add('agent turns (context, then commit)', 2, s.api, [{
    method: 'POST',
    setupRequest: (req, context) => {
      const n = turn++;
      const { o, m } = agentMember(n);
      Object.assign(context, { n, token: o.machine, member: m });
      return {
        ...req, path: `/api/agents/members/${m.id}/turn/context`, headers: { ...req.headers, ...json, ...bearer(o.machine) },
        body: JSON.stringify({ conversation_id: m.conversation, visibility: 'private' }),
      };
    },
  }, {
    method: 'POST',
    setupRequest: (req, context) => {
      const { n, token, member } = context as { n: number; token: string; member: AgentMember };
      return { ...req, path: `/api/agents/members/${member.id}/turn/commit`, headers: { ...req.headers, ...json, ...bearer(token) }, body: JSON.stringify(commitBody(member, n)) };
    },
  }], is2xx);
  return out;
}

/** The two floors, measured alone before the mix: the bare route, and a token lookup and a select in raw pg. */
export function floors(s: Served, connections: number): Kind[] {
  const tokens = s.orgs.map((o) => o.machine);
  let next = 0;
  const bare = failures(is2xx);
  const floor = failures(is2xx);
  return [
    { label: 'bare Fastify route (alone)', connections, firstFailure: bare.first, options: { url: s.bare, connections, requests: [{ method: 'GET', onResponse: bare.onResponse }] } },
    {
      label: 'floor: token lookup + org select, raw pg (alone)', connections, firstFailure: floor.first,
      options: {
        url: s.floor, connections,
        requests: [{ method: 'POST', onResponse: floor.onResponse, setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...bearer(tokens[next++ % tokens.length]) } }) }],
      },
    },
  ];
}
