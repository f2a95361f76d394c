// Turn routes (spec "Turn routes", prefix /api/agents/members/<chat_user_id>/turn): an agent's whole read before it
// answers and its whole write after, each checking the member is in the org's Discord server. Not audited.
import { ErrorBody, type RoutesPlugin } from '@quad/core';
import { turnCommit, turnContext } from '../turn.js';
import { CommitBody, CommitOut, ContextBody, ContextOut, MemberParams } from '../schemas.js';
import { Errors, MEMBER_PREFIX, read, write } from '../route-kit.js';

const TurnErrors = { ...Errors, 503: ErrorBody };
const PREFIX = `${MEMBER_PREFIX}/turn`;

export default (async (app) => {
  app.post(`${PREFIX}/context`, {
    config: read,
    schema: {
      tags: ['agents'],
      summary: 'What an agent needs to answer: the member from Discord (403 not in the server, 503 Discord unavailable), the conversation\'s summary and messages, memories and the profile (a limit of 0 leaves a part out)',
      params: MemberParams, body: ContextBody, response: { 200: ContextOut, ...TurnErrors },
    },
  }, async (request) => turnContext(request.db, app.quad, request.org!, request.params.chat_user_id, request.body, request.log));

  app.post(`${PREFIX}/commit`, {
    config: write,
    schema: {
      tags: ['agents'],
      summary: 'Write a turn in one transaction: the conversation (created or confirmed), then messages, summary, memories, facts and pending actions; one invalid part writes nothing',
      params: MemberParams, body: CommitBody, response: { 201: CommitOut, ...TurnErrors, 409: ErrorBody, 429: ErrorBody, 502: ErrorBody },
    },
  }, async (request, reply) => reply.code(201).send(await turnCommit(request.db, app.quad, request.org!, request.params.chat_user_id, request.body)));
}) satisfies RoutesPlugin;
