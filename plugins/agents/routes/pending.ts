// Pending actions (spec "Agent routes"): hold an action for the member's answer, and claim it once. Claims (the
// member's confirmations) are audited.
import { ErrorBody, type RoutesPlugin } from '@quad/core';
import { claimAction, holdAction } from '../pending.js';
import { ClaimBody, ClaimOut, PendingBody, PendingOut, PendingParams } from '../schemas.js';
import { Errors, MEMBER_PREFIX, write } from '../route-kit.js';

const PREFIX = `${MEMBER_PREFIX}/pending/:uuid`;

export default (async (app) => {
  app.put(PREFIX, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Hold an action until the member answers (ttl_seconds, default 600): 201 new, 200 the same again, 409 another under the id',
      params: PendingParams, body: PendingBody, response: { 200: PendingOut, 201: PendingOut, ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const { pending, created } = await holdAction(request.db, request.params.chat_user_id, request.params.uuid, request.body);
    return reply.code(created ? 201 : 200).send(pending);
  });

  app.post(`${PREFIX}/claim`, {
    config: write,
    schema: {
      tags: ['agents'], summary: 'Answer a held action (approved true or false) and get it, once; 404 when unknown, expired, answered or another member\'s',
      params: PendingParams, body: ClaimBody, response: { 200: ClaimOut, ...Errors },
    },
  }, async (request) => request.db.transaction(async (tx) => {
    const claimed = await claimAction(tx, request.params.chat_user_id, request.params.uuid, request.body.approved);
    await request.audit(tx.em, 'agents.pending_claimed', { member_id: request.params.chat_user_id, id: claimed.id, action: claimed.action, approved: claimed.approved });
    return claimed;
  }));
}) satisfies RoutesPlugin;
