// The agents tools (for agent tokens over MCP and /api/tools): a whole turn — agents.context before answering,
// agents.commit after — and the member's memories and profile, the same as the routes.
import { Type, defineTool } from '@quad/core';
import { listMemories, parseKinds } from './memories.js';
import { readProfile } from './profile.js';
import { CommitBody, CommitOut, ContextBody, ContextOut, MemoryOut, MemoriesQuery, ProfileOut, SnowflakePattern, PROFILE_DEFAULT, PROFILE_MAX } from './schemas.js';
import { turnCommit, turnContext } from './turn.js';

const Member = { chat_user_id: Type.String({ pattern: SnowflakePattern, description: 'the member\'s Discord user id' }) };

export const contextTool = defineTool({
  name: 'agents.context',
  title: 'Read a turn\'s context',
  description: 'Everything to answer a member in a conversation: who they are in the org\'s Discord server (name, roles, officer), the '
    + 'conversation\'s summary and latest messages, their memories and their profile graph (with profile_query, the nodes nearest to it). '
    + 'Call it first in every turn. Fails when the member is not in the server. '
    + 'Example: {"chat_user_id": "123456789012345678", "conversation_id": "0d6f…", "visibility": "private", "profile_query": "courses"}',
  scope: 'agents:read',
  input: Type.Object({ ...Member, ...ContextBody.properties }, { additionalProperties: false }),
  output: ContextOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db, org, services, log }, { chat_user_id, ...input }) {
    return turnContext(db, services, org, chat_user_id, input, log);
  },
});

export const commitTool = defineTool({
  name: 'agents.commit',
  title: 'Write a turn',
  description: 'Writes what a turn produced, all or nothing: the conversation (created on first use), the messages of the turn, '
    + 'a summary, new memories (sensitivity "sensitive" is encrypted), profile facts and actions waiting for the member\'s yes. '
    + 'Call it last in every turn. Example: {"chat_user_id": "123456789012345678", "conversation_id": "0d6f…", "channel_id": "987654321098765432", '
    + '"visibility": "private", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello!"}]}',
  scope: 'agents:write',
  input: Type.Object({ ...Member, ...CommitBody.properties }, { additionalProperties: false }),
  output: CommitOut,
  async handler({ db, org, services }, { chat_user_id, ...input }) {
    return turnCommit(db, services, org, chat_user_id, input);
  },
});

export const memoriesTool = defineTool({
  name: 'agents.memories',
  title: 'Read a member\'s memories',
  description: 'What the agents remember about a member, highest confidence first, optionally of some kinds (episodic, semantic, '
    + 'profile, task). Example: {"chat_user_id": "123456789012345678", "kinds": "task", "limit": 10}',
  scope: 'agents:read',
  input: Type.Object({ ...Member, kinds: MemoriesQuery.properties.kinds, limit: Type.Optional(MemoriesQuery.properties.limit) }, { additionalProperties: false }),
  output: Type.Object({ memories: Type.Array(MemoryOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db, services, log }, input) {
    return { memories: await listMemories(db, services, input.chat_user_id, { kinds: parseKinds(input.kinds), limit: input.limit ?? 20 }, log) };
  },
});

export const profileTool = defineTool({
  name: 'agents.profile',
  title: 'Read a member\'s profile graph',
  description: 'The member\'s profile: relations (subject, relation, object, confidence), highest confidence first, and the nodes they '
    + 'link. Example: {"chat_user_id": "123456789012345678", "limit": 50}',
  scope: 'agents:read',
  input: Type.Object({ ...Member, limit: Type.Optional(Type.Integer({ minimum: 0, maximum: PROFILE_MAX, default: PROFILE_DEFAULT })) }, { additionalProperties: false }),
  output: ProfileOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    return readProfile(db, input.chat_user_id, input.limit ?? PROFILE_DEFAULT);
  },
});

export const agentsTools = [contextTool, commitTool, memoriesTool, profileTool];
