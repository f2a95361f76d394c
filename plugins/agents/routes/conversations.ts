// Conversation routes (spec "Agent routes", prefix /api/agents/members/<member_id>): agent tokens of the org with
// agents:read or agents:write; the org is the token's (the core binds it). Not audited: they are a turn's writes.
import { ErrorBody, Type, type RoutesPlugin } from '@quad/core';
import { addSummary, appendMessages, endChannel, findConversation, history, latestOpen, putConversation } from '../conversations.js';
import {
  ChannelParams, ConversationBody, ConversationOut, ConversationParams, MESSAGES_DEFAULT, MESSAGES_MAX, MessageOut, MessagesBody,
  SummaryBody, SummaryOut, VisibilityQuery,
} from '../schemas.js';
import { Errors, MEMBER_PREFIX, read, write } from '../route-kit.js';

export default (async (app) => {
  app.put(`${MEMBER_PREFIX}/conversations/:uuid`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Create a conversation (201) or confirm it is this member\'s in this channel with this visibility (200); 409 when the id is another\'s',
      params: ConversationParams, body: ConversationBody, response: { 200: ConversationOut, 201: ConversationOut, ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const { conversation, created } = await putConversation(request.db, request.params.chat_user_id, request.params.uuid, request.body);
    return reply.code(created ? 201 : 200).send(conversation);
  });

  app.get(`${MEMBER_PREFIX}/conversations/:uuid`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'Whether the member owns the conversation (with the visibility, when given)',
      params: ConversationParams, querystring: VisibilityQuery, response: { 200: Type.Object({ owned: Type.Boolean() }), ...Errors },
    },
  }, async (request) => {
    const row = await findConversation(request.db, request.params.chat_user_id, request.params.uuid);
    return { owned: row !== null && (request.query.visibility === undefined || row.visibility === request.query.visibility) };
  });

  app.get(`${MEMBER_PREFIX}/conversations/:uuid/messages`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'The newest summary, then up to limit messages after what it covers (the newest of them), oldest first',
      params: ConversationParams,
      querystring: Type.Object({ limit: Type.Integer({ minimum: 0, maximum: MESSAGES_MAX, default: MESSAGES_DEFAULT }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ summary: Type.Union([SummaryOut, Type.Null()]), messages: Type.Array(MessageOut) }), ...Errors },
    },
  }, async (request) => history(request.db, request.params.chat_user_id, request.params.uuid, request.query.limit));

  app.post(`${MEMBER_PREFIX}/conversations/:uuid/messages`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Append messages in one transaction; their seqs (gap-free per conversation). 409 when the conversation has ended',
      params: ConversationParams, body: MessagesBody, response: { 201: Type.Object({ seqs: Type.Array(Type.Integer()) }), ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const seqs = await request.db.transaction((tx) => appendMessages(tx, request.params.chat_user_id, request.params.uuid, request.body.messages));
    return reply.code(201).send({ seqs });
  });

  app.post(`${MEMBER_PREFIX}/conversations/:uuid/summary`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Store a summary of the messages up to covers (reads then start after it)',
      params: ConversationParams, body: SummaryBody, response: { 201: SummaryOut, ...Errors },
    },
  }, async (request, reply) => reply.code(201).send(await request.db.transaction((tx) => addSummary(tx, request.params.chat_user_id, request.params.uuid, request.body))));

  app.get(`${MEMBER_PREFIX}/channels/:channel/latest`, {
    config: read,
    schema: {
      tags: ['agents'], summary: 'The member\'s open conversation of the channel with the latest update, or null',
      params: ChannelParams, querystring: VisibilityQuery, response: { 200: Type.Object({ conversation: Type.Union([ConversationOut, Type.Null()]) }), ...Errors },
    },
  }, async (request) => ({ conversation: await latestOpen(request.db, request.params.chat_user_id, request.params.channel, request.query.visibility) }));

  app.post(`${MEMBER_PREFIX}/channels/:channel/end`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'End the member\'s open conversations of the channel',
      params: ChannelParams, response: { 200: Type.Object({ ended: Type.Integer({ description: 'how many were open' }) }), ...Errors },
    },
  }, async (request) => ({ ended: await endChannel(request.db, request.params.chat_user_id, request.params.channel) }));
}) satisfies RoutesPlugin;
