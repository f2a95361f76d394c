// One whole turn of an agent that answers a member in Discord, through Quad's tool server:
//   1. agents.context  — who the member is, the conversation so far, what the agents remember about them;
//   2. knowledge.search — passages of the org's knowledge that answer the question;
//   3. agents.commit   — the question and the answer (and what was learnt), written all or nothing.
// A real agent would give 1 and 2 to its language model at the marked step; this one quotes the best passage.
// Run: QUAD_TOKEN=plat_… npx tsx turn.ts <member's Discord id> <channel id> "<question>" [conversation uuid]
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectToQuad, isMain, runMain, settingsFromEnv } from './connect.js';

export const TURN_SCOPES = 'agents:read,agents:write,knowledge:read';

export interface TurnOptions {
  url: string;
  token: string;
  /** The member's Discord user id; Quad checks they are in the org's server. */
  member: string;
  /** The Discord channel the question came from. */
  channel: string;
  question: string;
  /** Continue a conversation; a new one when unset. */
  conversation?: string;
}

export interface TurnResult { conversation: string; answer: string; seqs: number[]; source: string | null }

interface Context {
  member: { display_name: string; officer: boolean };
  conversation: { owned: boolean };
  messages: { role: string; content: string }[];
  memories: { content: string }[];
}
interface Passage { content: string; title: string; source_key: string }

export async function runTurn(options: TurnOptions): Promise<TurnResult> {
  const client = await connectToQuad(options.url, options.token);
  try {
    const conversation = options.conversation ?? randomUUID();
    const context = await call<Context>(client, 'agents.context', {
      chat_user_id: options.member, conversation_id: conversation, visibility: 'private', message_limit: 20, memory_limit: 10, profile_limit: 0,
    });
    const { results } = await call<{ results: Passage[] }>(client, 'knowledge.search', { query: options.question, top_k: 3 });

    // The language model's step: context.messages, context.memories and results in, an answer out.
    const best = results[0];
    const answer = best
      ? `${context.member.display_name}, from "${best.title}": ${best.content}`
      : `Sorry ${context.member.display_name}, the club's knowledge has nothing on that yet; an officer can add it.`;

    const committed = await call<{ seqs: number[] }>(client, 'agents.commit', {
      chat_user_id: options.member, conversation_id: conversation, channel_id: options.channel, visibility: 'private',
      messages: [{ role: 'user', content: options.question }, { role: 'assistant', content: answer }],
      memories: [{ kind: 'episodic', content: `Asked: ${options.question}`, confidence: 0.5 }],
    });
    return { conversation, answer, seqs: committed.seqs, source: best?.source_key ?? null };
  } finally {
    await client.close();
  }
}

/** A tool's structured result; a tool error (refused member, bad input) becomes a thrown Error with its message. */
async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join(' ');
    throw new ToolError(name, text);
  }
  return result.structuredContent as T;
}

export class ToolError extends Error {
  constructor(readonly tool: string, message: string) {
    super(`${tool}: ${message}`);
  }
}

if (isMain(import.meta.url)) {
  const { url, token } = settingsFromEnv(TURN_SCOPES);
  const [member, channel, question, conversation] = process.argv.slice(2);
  if (!member || !channel || !question) {
    console.error('Usage: turn.ts <member\'s Discord id> <channel id> "<question>" [conversation uuid]');
    process.exit(2);
  }
  await runMain(url, TURN_SCOPES, async () => {
    try {
      const turn = await runTurn({ url, token, member, channel, question, conversation });
      console.log(turn.answer);
      console.log(`(conversation ${turn.conversation}, messages ${turn.seqs.join(', ')}; continue it by passing the conversation id)`);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      console.error(err.message);
      process.exit(4);
    }
  });
}
