// The member's own data (spec "Authentication": /api/agents/<org>/me, a chat session with chat_user_id): what the
// org's agents keep about them — conversations, memories (sensitive ones opened for their owner) and the profile
// graph — and deleting any of it or all of it. Officers and the superadmin have no route to it. Deletes are audited.
import { OrgParams, OrgRef, Type, type Caller, type RoutesPlugin } from '@quad/core';
import { deleteConversation, listConversations } from '../conversations.js';
import { deleteMemory, listMemories } from '../memories.js';
import { deleteEverything, readProfile } from '../profile.js';
import { ConversationOut, MemoryOut, ProfileOut } from '../schemas.js';
import { Errors } from '../route-kit.js';

interface SessionCaller extends Caller { chatUserId: string }
const LIST_MAX = 200;
const me = { auth: 'member' as const };

export default (async (app) => {
  /** The signed-in member: their rows in the org of the path (`request.db`). */
  const member = (request: { caller?: Caller | null }) => (request.caller as SessionCaller).chatUserId;

  app.get('/api/agents/:org/me', {
    config: me,
    schema: {
      tags: ['agents'], summary: 'What the org\'s agents keep about the signed-in member: conversations, memories and the profile graph',
      params: OrgParams,
      response: { 200: Type.Object({ conversations: Type.Array(ConversationOut), memories: Type.Array(MemoryOut), profile: ProfileOut }), ...Errors },
    },
  }, async (request) => ({
    conversations: await listConversations(request.db, member(request), LIST_MAX),
    memories: await listMemories(request.db, app.quad, member(request), { limit: LIST_MAX }, request.log),
    profile: await readProfile(request.db, member(request), LIST_MAX * 10),
  }));

  app.delete('/api/agents/:org/me/conversations/:uuid', {
    config: me,
    schema: {
      tags: ['agents'], summary: 'Delete one of the member\'s conversations with its messages',
      params: Type.Object({ org: OrgRef, uuid: Type.String({ format: 'uuid' }) }), response: { 200: Type.Object({ deleted: Type.String() }), ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    await deleteConversation(tx, member(request), request.params.uuid);
    await request.audit(tx.em, 'agents.own_conversation_deleted', { id: request.params.uuid });
    return { deleted: request.params.uuid };
  }));

  app.delete('/api/agents/:org/me/memories/:id', {
    config: me,
    schema: {
      tags: ['agents'], summary: 'Delete one of the member\'s memories',
      params: Type.Object({ org: OrgRef, id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }), response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    await deleteMemory(tx, member(request), request.params.id);
    await request.audit(tx.em, 'agents.own_memory_deleted', { id: request.params.id });
    return { deleted: request.params.id };
  }));

  app.delete('/api/agents/:org/me', {
    config: me,
    schema: {
      tags: ['agents'], summary: 'Delete everything the org\'s agents keep about the member',
      params: OrgParams,
      response: { 200: Type.Object({ conversations: Type.Integer(), pending: Type.Integer(), memories: Type.Integer(), nodes: Type.Integer(), relations: Type.Integer() }), ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    const counts = await deleteEverything(tx, member(request));
    await request.audit(tx.em, 'agents.own_data_deleted', counts);
    return counts;
  }));
}) satisfies RoutesPlugin;
