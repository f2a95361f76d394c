// /api/tools on the main port: list, call one, call a batch — the same handlers as the MCP server. Machine tokens
// only; tools run as the token's org. Each call of a batch counts against mcp.calls_per_minute and succeeds or
// fails on its own.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { MachineCaller } from '../auth/callers.js';
import { HttpError } from '../http/errors.js';
import { toolCaller } from './caller.js';
import type { ToolOutcome, ToolService } from './tool-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    tools: ToolService;
  }
}

const Call = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  confirm: Type.Optional(Type.Boolean({ description: 'for tools that need confirmation; same as arguments.confirm' })),
}, { additionalProperties: false });

/** One call's outcome: `{ ok: true, result }`, `{ ok: true, confirm_required, preview }` or a refusal. */
const Outcome = Type.Object({
  ok: Type.Boolean(),
  result: Type.Optional(Type.Unknown()),
  confirm_required: Type.Optional(Type.Boolean()),
  preview: Type.Optional(Type.Unknown()),
  status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  request_id: Type.Optional(Type.String()),
}, { additionalProperties: true });

/**
 * A refusal: the tool's own (`{ ok: false, status, error, reason? }`) or the core's before the handler ran (no
 * token, a bad body: the error shape every route answers, without `ok`).
 */
const Refusal = Type.Object({
  ok: Type.Optional(Type.Literal(false)),
  status: Type.Optional(Type.Integer()),
  error: Type.String(),
  reason: Type.Optional(Type.String()),
  request_id: Type.Optional(Type.String()),
}, { additionalProperties: true });

const outcomeBody = (o: ToolOutcome) => (o.ok ? o : { ok: false, status: o.status, error: o.error, ...(o.reason && { reason: o.reason }), ...o.details });

export const toolRoutes: FastifyPluginAsyncTypebox = async (app) => {
  async function context(request: FastifyRequest) {
    const caller = request.caller as MachineCaller;
    const org = await app.orgs.find(String(caller.orgId));
    if (!org) throw new HttpError(401, 'The token\'s org no longer exists', 'token_invalid');
    return { org, caller: toolCaller(caller.token) };
  }
  const args = (call: { arguments?: Record<string, unknown>; confirm?: boolean }) => ({ ...call.arguments, ...(call.confirm !== undefined && { confirm: call.confirm }) });

  app.get('/api/tools', {
    config: { auth: 'machine' },
    schema: { tags: ['tools'], summary: 'The tools this token may call for its org' },
  }, async (request) => {
    const { org, caller } = await context(request);
    return { tools: await app.tools.list(org, caller) };
  });

  app.post('/api/tools/call', {
    config: { auth: 'machine' },
    schema: {
      tags: ['tools'], summary: 'Call one tool: {name, arguments, confirm?}', body: Call,
      response: { 200: Outcome, '4xx': Refusal, '5xx': Refusal },
    },
  }, async (request, reply) => {
    const { org, caller } = await context(request);
    const outcome = await app.tools.call(org, caller, request.body.name, args(request.body), 'api', request.id);
    if (!outcome.ok && outcome.details?.retry_after) reply.header('retry-after', String(outcome.details.retry_after));
    return reply.code(outcome.ok ? 200 : outcome.status).send(outcomeBody(outcome));
  });

  app.post('/api/tools/batch', {
    config: { auth: 'machine' },
    schema: {
      tags: ['tools'], summary: 'Call several tools in order; each counts and succeeds or fails on its own',
      body: Type.Object({ calls: Type.Array(Call, { minItems: 1, maxItems: 50 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ results: Type.Array(Outcome) }), '4xx': Refusal, '5xx': Refusal },
    },
  }, async (request) => {
    const { org, caller } = await context(request);
    const results = [];
    for (const call of request.body.calls) results.push(outcomeBody(await app.tools.call(org, caller, call.name, args(call), 'api', request.id)));
    return { results };
  });
};
