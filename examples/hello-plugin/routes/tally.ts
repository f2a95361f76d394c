// The tally: start the hello.tally job, read its last result.
import { OrgParams, Type, type RoutesPlugin } from '@quad/core';
import { Tally } from '../entities.js';

export default (async (app) => {
  app.post('/api/hello/:org/tally', {
    config: { auth: 'machine:hello:write' },
    schema: {
      tags: ['hello'], summary: 'Start counting the greetings (one run per org at a time; 409 while one runs)', params: OrgParams,
      response: { 202: Type.Object({ run_id: Type.Integer() }) },
    },
  }, async (request, reply) => {
    const { runId } = await app.quad.startJob(request.em, 'hello.tally', {}, { orgId: request.org!.id });
    return reply.code(202).send({ run_id: runId });
  });

  app.get('/api/hello/:org/tally', {
    config: { auth: 'public' },
    schema: { tags: ['hello'], summary: 'The last tally', params: OrgParams, response: { 200: Type.Object({ greetings: Type.Union([Type.Integer(), Type.Null()]), counted_at: Type.Union([Type.String(), Type.Null()]) }) } },
  }, async (request) => {
    const tally = await request.em.findOne(Tally, { organization: request.org!.id });
    return { greetings: tally?.greetings ?? null, counted_at: tally?.countedAt.toISOString() ?? null };
  });
}) satisfies RoutesPlugin;
