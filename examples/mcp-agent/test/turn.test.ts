// The example agent's whole turn — agents.context, knowledge.search, agents.commit — against a real Quad with the
// knowledge and agents modules, through the MCP SDK client: once as its own process, then continuing the
// conversation in process, and refused for someone outside the org's Discord server.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { bearer, moduleCommand, startFakeEmbeddings, startSignInWorld } from '@quad/core/testing';
import { runTurn, ToolError, TURN_SCOPES } from '../turn.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const CHANNEL = '930000000000000001';

t.test('the example agent answers a member from the knowledge and remembers the turn', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const w = await startSignInWorld(t, {
    plugins: ['./plugins/knowledge', './plugins/agents'], orgModules: { agents: true, knowledge: true }, role: 'api', listen: true,
    config: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1' },
  });
  const { quad, org, member } = w;
  const { token } = await quad.issueToken(org.id, { name: 'agent', kind: 'agent', scopes: TURN_SCOPES.split(',') });
  const writer = (await quad.issueToken(org.id, { scopes: ['knowledge:write'], kind: 'app' })).token;
  const put = await quad.api.inject({
    method: 'PUT', url: '/api/knowledge/sources/club/meetings', headers: bearer(writer),
    payload: { title: 'Meetings', chunks: [{ ordinal: 0, content: 'The robotics club meets on Thursdays at six in room 101.' }, { ordinal: 1, content: 'Dues are ten dollars a semester.' }] },
  });
  t.equal(put.statusCode, 201);
  const url = `http://127.0.0.1:${(quad.mcp!.server.address() as { port: number }).port}/mcp`;

  // As its own process, the way an operator tries it.
  const [file, ...args] = moduleCommand('examples/mcp-agent/turn', member.id, CHANNEL, 'When does the robotics club meet?');
  const { stdout } = await promisify(execFile)(file, args, {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, QUAD_MCP_URL: url, QUAD_TOKEN: token },
  });
  const [answer, footer] = stdout.trim().split('\n');
  t.equal(answer, 'bob, from "Meetings": The robotics club meets on Thursdays at six in room 101.', 'the best passage, for the member by name');
  const conversation = /conversation ([0-9a-f-]{36}), messages 1, 2;/.exec(footer)?.[1];
  t.ok(conversation, footer);

  // The next turn continues the conversation: the commit's seqs follow on, and the context holds all four messages.
  const next = await runTurn({ url, token, member: member.id, channel: CHANNEL, question: 'How much are dues?', conversation });
  t.same(next.seqs, [3, 4]);
  t.equal(next.source, 'club/meetings');
  t.match(next.answer, /ten dollars a semester/);
  const history = await quad.api.inject({ method: 'GET', url: `/api/agents/members/${member.id}/conversations/${conversation}/messages`, headers: bearer(token) });
  t.same(history.json().messages.map((m: { role: string; content: string }) => `${m.role}: ${m.content.slice(0, 20)}`), [
    'user: When does the roboti', 'assistant: bob, from "Meetings"', 'user: How much are dues?', 'assistant: bob, from "Meetings"',
  ]);
  const memories = await quad.api.inject({ method: 'GET', url: `/api/agents/members/${member.id}/memories?kinds=episodic`, headers: bearer(token) });
  t.same(memories.json().memories.map((m: { content: string }) => m.content).sort(), ['Asked: How much are dues?', 'Asked: When does the robotics club meet?']);

  // Someone who is not in the org's Discord server gets no turn, and nothing is written for them.
  const stranger = '100000000000000099';
  const refused = await runTurn({ url, token, member: stranger, channel: CHANNEL, question: 'hi' }).catch((err: unknown) => err);
  t.ok(refused instanceof ToolError);
  t.match((refused as ToolError).message, /^agents\.context: .*not in the org's Discord server/);
  const none = await quad.api.inject({ method: 'GET', url: `/api/agents/members/${stranger}/memories`, headers: bearer(token) });
  t.same(none.json().memories, []);
});
