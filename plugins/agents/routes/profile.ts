// Profile graph routes (spec "Agent routes": /profile…, DELETE /data). Deletes are audited; fact writes are a turn's
// and are not.
import { ErrorBody, Type, type RoutesPlugin } from '@quad/core';
import { deleteMemberData, deleteNodes, deleteRelation, matching, prepareFacts, readProfile, similar, writeFacts } from '../profile.js';
import { FactsBody, MemberParams, PROFILE_DEFAULT, PROFILE_MAX, ProfileOut, RelationBody, RelationOut, NodeRef } from '../schemas.js';
import { Errors, MEMBER_PREFIX, read, write } from '../route-kit.js';

export default (async (app) => {
  app.get(`${MEMBER_PREFIX}/profile`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'The member\'s relations, highest confidence first, and the nodes they link',
      params: MemberParams, querystring: Type.Object({ limit: Type.Integer({ minimum: 0, maximum: PROFILE_MAX, default: PROFILE_DEFAULT }) }, { additionalProperties: false }),
      response: { 200: ProfileOut, ...Errors },
    },
  }, async (request) => readProfile(request.db, request.params.chat_user_id, request.query.limit));

  app.post(`${MEMBER_PREFIX}/profile/facts`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Add facts (subject, relation, object, confidence): exact nodes, an existing relation keeps the higher confidence',
      params: MemberParams, body: FactsBody, response: { 201: Type.Object({ facts: Type.Array(RelationOut) }), ...Errors, 429: ErrorBody, 502: ErrorBody },
    },
  }, async (request, reply) => {
    // Embedded before the transaction: no connection waits on the embeddings service.
    const prepared = await prepareFacts(request.db, app.quad, request.params.chat_user_id, request.body.facts);
    const facts = await request.db.transaction((tx) => writeFacts(tx, request.params.chat_user_id, prepared, app.quad.extensions.vector === true));
    return reply.code(201).send({ facts });
  });

  app.get(`${MEMBER_PREFIX}/profile/matching`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'Relations from a subject label (and a relation), case not minded',
      params: MemberParams,
      querystring: Type.Object({ subject: Type.String({ minLength: 1, maxLength: 500 }), relation: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ relations: Type.Array(RelationOut) }), ...Errors },
    },
  }, async (request) => ({ relations: await matching(request.db, request.params.chat_user_id, request.query.subject, request.query.relation) }));

  app.get(`${MEMBER_PREFIX}/profile/similar`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'The member\'s nodes nearest to a text by embedding, with cosine distance; 503 when the org has no embeddings service',
      params: MemberParams,
      querystring: Type.Object({ text: Type.String({ minLength: 1, maxLength: 2000 }), limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ nodes: Type.Array(Type.Object({ ...NodeRef.properties, distance: Type.Number() })) }), ...Errors, 429: ErrorBody, 502: ErrorBody, 503: ErrorBody },
    },
  }, async (request) => ({ nodes: await similar(request.db, app.quad, request.params.chat_user_id, request.query.text, request.query.limit) }));

  app.delete(`${MEMBER_PREFIX}/profile/relations`, {
    config: write,
    schema: { tags: ['agents'], summary: 'Delete one relation', params: MemberParams, body: RelationBody, response: { 200: Type.Object({ deleted: Type.Literal(1) }), ...Errors } },
  }, async (request) => request.db.transaction(async (tx) => {
    await deleteRelation(tx, request.params.chat_user_id, request.body);
    await request.audit(tx.em, 'agents.relation_deleted', { member_id: request.params.chat_user_id, ...request.body });
    return { deleted: 1 as const };
  }));

  app.delete(`${MEMBER_PREFIX}/profile/nodes`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Delete the nodes of a label (case not minded) with their relations',
      params: MemberParams, querystring: Type.Object({ label: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    const deleted = await deleteNodes(tx, request.params.chat_user_id, request.query.label);
    await request.audit(tx.em, 'agents.nodes_deleted', { member_id: request.params.chat_user_id, label: request.query.label, deleted });
    return { deleted };
  }));

  app.delete(`${MEMBER_PREFIX}/data`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Delete the member\'s profile graph and memories',
      params: MemberParams, response: { 200: Type.Object({ memories: Type.Integer(), nodes: Type.Integer(), relations: Type.Integer() }), ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    const counts = await deleteMemberData(tx, request.params.chat_user_id);
    await request.audit(tx.em, 'agents.member_data_deleted', { member_id: request.params.chat_user_id, ...counts });
    return counts;
  }));
}) satisfies RoutesPlugin;
