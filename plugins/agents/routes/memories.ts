// Memory routes (spec "Agent routes": /memories). Deletes are audited; writes are a turn's and are not.
import { ErrorBody, Type, type RoutesPlugin } from '@quad/core';
import { addMemories, deleteMemory, listMemories, parseKinds } from '../memories.js';
import { MemberParams, MemoriesQuery, MemoryIn, MemoryOut, MemoryParams } from '../schemas.js';
import { Errors, MEMBER_PREFIX, read, write } from '../route-kit.js';

const PREFIX = `${MEMBER_PREFIX}/memories`;

export default (async (app) => {
  app.get(PREFIX, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'The member\'s unexpired memories, highest confidence first (sensitive ones only with SECRETS_KEY)',
      params: MemberParams, querystring: MemoriesQuery, response: { 200: Type.Object({ memories: Type.Array(MemoryOut) }), ...Errors },
    },
  }, async (request) => ({
    memories: await listMemories(request.db, app.quad, request.params.chat_user_id,
      { kinds: parseKinds(request.query.kinds), limit: request.query.limit }, request.log),
  }));

  app.post(PREFIX, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Remember something about the member (sensitive: encrypted at rest; 503 without SECRETS_KEY)',
      params: MemberParams, body: MemoryIn, response: { 201: MemoryOut, ...Errors, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const [memory] = await addMemories(request.db, app.quad, request.params.chat_user_id, [request.body]);
    return reply.code(201).send(memory);
  });

  app.delete(`${PREFIX}/:id`, {
    config: write,
    schema: { tags: ['agents'], summary: 'Forget one memory', params: MemoryParams, response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors } },
  }, async (request) => request.db.transaction(async (tx) => {
    await deleteMemory(tx, request.params.chat_user_id, request.params.id);
    await request.audit(tx.em, 'agents.memory_deleted', { member_id: request.params.chat_user_id, id: request.params.id });
    return { deleted: request.params.id };
  }));
}) satisfies RoutesPlugin;
