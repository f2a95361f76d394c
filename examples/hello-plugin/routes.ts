// Routes of the hello module. Paths are the public contract; `config.auth` is required on each.
import { Type, badRequest, type RoutesPlugin } from '@quad/core';
import { Greeting, Tally } from './entities.js';

const Org = Type.Object({ org: Type.String() });
const GreetingOut = Type.Object({ id: Type.Integer(), name: Type.String(), message: Type.String(), created_at: Type.String({ format: 'date-time' }) });

export const helloRoutes: RoutesPlugin = async (app) => {
  const greetingWord = () => app.quad.moduleSettings<{ HELLO_GREETING: string }>('hello').HELLO_GREETING;

  app.get('/api/hello/:org/greetings', {
    config: { auth: 'public' },
    schema: { tags: ['hello'], summary: 'Greetings of the org, newest first', params: Org, response: { 200: Type.Object({ greetings: Type.Array(GreetingOut) }) } },
  }, async (request) => {
    // The org filter is already bound to the org in the URL: no organization condition needed here.
    const rows = await request.em.find(Greeting, {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100 });
    return { greetings: rows.map((g) => ({ id: g.id, name: g.name, message: `${greetingWord()}, ${g.name}!`, created_at: g.createdAt.toISOString() })) };
  });

  app.post('/api/hello/:org/greetings', {
    config: { auth: 'machine:hello:write' },
    schema: {
      tags: ['hello'], summary: 'Leave a greeting', params: Org,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false }),
      response: { 201: GreetingOut },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const name = request.body.name.trim();
    if (!name) throw badRequest('name must not be blank', 'blank_name');
    const greeting = await request.em.transactional(async (em) => {
      // Writes take the org from the request, never from input.
      const row = em.create(Greeting, { organization: org.id, name });
      await em.flush();
      await app.quad.audit(em, { orgId: org.id, actor: request.caller?.actor ?? 'anonymous', action: 'hello.greet', details: { name } });
      await app.quad.emit(em, { orgId: org.id, kind: 'hello.greeted', title: `${name} was greeted` });
      return row;
    });
    return reply.code(201).send({ id: greeting.id, name: greeting.name, message: `${greetingWord()}, ${greeting.name}!`, created_at: greeting.createdAt.toISOString() });
  });

  app.post('/api/hello/:org/tally', {
    config: { auth: 'machine:hello:write' },
    schema: {
      tags: ['hello'], summary: 'Start counting the greetings (one run per org at a time; 409 while one runs)', params: Org,
      response: { 202: Type.Object({ run_id: Type.Integer() }) },
    },
  }, async (request, reply) => {
    const { runId } = await app.quad.startJob(request.em, 'hello.tally', {}, { orgId: request.org!.id });
    return reply.code(202).send({ run_id: runId });
  });

  app.get('/api/hello/:org/tally', {
    config: { auth: 'public' },
    schema: { tags: ['hello'], summary: 'The last tally', params: Org, response: { 200: Type.Object({ greetings: Type.Union([Type.Integer(), Type.Null()]), counted_at: Type.Union([Type.String(), Type.Null()]) }) } },
  }, async (request) => {
    const tally = await request.em.findOne(Tally, { organization: request.org!.id });
    return { greetings: tally?.greetings ?? null, counted_at: tally?.countedAt.toISOString() ?? null };
  });
};
