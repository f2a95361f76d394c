// Greetings: read by everyone, left by machine tokens with hello:write. Each file of routes/ default-exports a
// route plugin; the core mounts them all with @fastify/autoload behind its hooks.
import { OrgParams, Type, badRequest, type RoutesPlugin } from '@quad/core';
import { Greeting } from '../entities.js';
import { helloGreeter } from '../greeter.js';

const GreetingOut = Type.Object({ id: Type.Integer(), name: Type.String(), message: Type.String(), created_at: Type.String({ format: 'date-time' }) });

export default (async (app) => {
  const greeter = app.quad.service(helloGreeter);

  app.get('/api/hello/:org/greetings', {
    config: { auth: 'public' },
    schema: { tags: ['hello'], summary: 'Greetings of the org, newest first', params: OrgParams, response: { 200: Type.Object({ greetings: Type.Array(GreetingOut) }) } },
  }, async (request) => {
    // The org filter is already bound to the org in the URL: no organization condition needed here.
    const rows = await request.em.find(Greeting, {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100 });
    return { greetings: rows.map((g) => ({ id: g.id, name: g.name, message: greeter.greet(g.name), created_at: g.createdAt.toISOString() })) };
  });

  app.post('/api/hello/:org/greetings', {
    config: { auth: 'machine:hello:write' },
    schema: {
      tags: ['hello'], summary: 'Leave a greeting', params: OrgParams,
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
      // Audited as the request's caller, in its org, in this transaction.
      await request.audit(em, 'hello.greet', { name });
      await app.quad.emit(em, { orgId: org.id, kind: 'hello.greeted', title: `${name} was greeted` });
      return row;
    });
    return reply.code(201).send({ id: greeting.id, name: greeting.name, message: greeter.greet(greeting.name), created_at: greeting.createdAt.toISOString() });
  });
}) satisfies RoutesPlugin;
