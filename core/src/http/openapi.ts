// The OpenAPI document a client generator can use: one operationId per operation, one shared `Error` component,
// a described tag per module, and security that names the credential each route's auth policy takes.
// Credentials are four security schemes; the machine scope a route needs is in the operation's `x-quad-auth`
// extension (`{ policy, scope? }`): OpenAPI 3.0 allows scopes in a security requirement only for OAuth2 schemes,
// and machine tokens are not issued by an OAuth2 flow.
import type { RouteOptions } from 'fastify';
import type { Module } from '../modules/types.js';
import { CLI_SCOPE } from '../auth/machine-tokens.js';
import { parsePolicy } from './auth-policies.js';
import { ErrorBody } from './schemas.js';

export const SECURITY_SCHEMES = {
  officerToken: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'An officer\'s platform token: the access token of Discord sign-in (/api/auth/login, then /api/auth/exchange) or a legacy app token.',
  },
  idpToken: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'A token of the identity provider (storefront members and officers signed in there).',
  },
  machineToken: {
    type: 'http', scheme: 'bearer', bearerFormat: 'plat_…',
    description: 'A machine token (plat_…) of one org (`quad token create` or POST /api/organizations/{org}/tokens). The scope an operation needs is in its x-quad-auth extension.',
  },
  memberSession: {
    type: 'apiKey', in: 'cookie', name: 'quad_session',
    description: 'A member\'s session cookie, set by the Discord member sign-in (/api/accounts/chat/login).',
  },
} as const;

type Requirement = Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>;

/** The credentials each auth policy accepts, as alternatives. */
const POLICY_SECURITY: Record<string, Requirement[]> = {
  public: [],
  officer: [{ officerToken: [] }],
  superadmin: [{ officerToken: [] }],
  dual: [{ officerToken: [] }, { idpToken: [] }],
  orgOfficer: [{ officerToken: [] }, { idpToken: [] }],
  member: [{ memberSession: [] }],
  memberOrCli: [{ memberSession: [] }, { machineToken: [] }],
  machine: [{ machineToken: [] }],
  officerOrMachine: [{ officerToken: [] }, { machineToken: [] }],
};

/** The stable operationId of `METHOD path` (`:org` or `{org}`): `GET /api/points/:org/members` -> `getPointsByOrgMembers`. */
export function operationIdOf(method: string, path: string): string {
  const words = path.split('/').filter((s) => s && s !== 'api').map((segment) => {
    const param = /^[:{](\w+)}?$/.exec(segment)?.[1];
    const word = (param ?? segment).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase());
    return (param ? 'By' : '') + word.charAt(0).toUpperCase() + word.slice(1);
  });
  return method.toLowerCase() + (words.join('') || 'Root');
}

/**
 * Document a route from its auth policy (set by then): the security requirement and `x-quad-auth`. A public route
 * may declare its own security (an optional credential, e.g. `[{ idpToken: [] }, {}]`); for every other policy the
 * policy, which is what the core enforces, decides. Returns a problem with a route's own security, or null.
 */
export function documentRoute(route: RouteOptions): string | null {
  const policy = (route.config as { auth?: string } | undefined)?.auth;
  if (typeof policy !== 'string') return null;
  const [name, argument] = parsePolicy(policy);
  const schema = (route.schema ?? {}) as { security?: Record<string, unknown>[] };
  const scope = name === 'memberOrCli' ? CLI_SCOPE : argument;
  const auth = { policy, ...(scope && { scope }) };
  if (name === 'public' && schema.security !== undefined) {
    const unknown = schema.security.flatMap((r) => Object.keys(r)).find((s) => !(s in SECURITY_SCHEMES));
    if (unknown) return `security names "${unknown}"; the schemes are ${Object.keys(SECURITY_SCHEMES).join(', ')}`;
    route.schema = { ...schema, 'x-quad-auth': auth } as RouteOptions['schema'];
    return null;
  }
  route.schema = { ...schema, security: POLICY_SECURITY[name] ?? [], 'x-quad-auth': auth } as RouteOptions['schema'];
  return null;
}

/** The tags a route shows under: its own, or its module's name. */
export function routeTags(route: RouteOptions, module: string): void {
  const schema = (route.schema ?? {}) as { tags?: string[] };
  if (!schema.tags?.length) route.schema = { ...schema, tags: [module] };
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
type Operation = { operationId?: string; tags?: string[]; responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };

/**
 * An error response's schema: the shared Error itself, or Error with the route's own extra fields. A body without
 * `error` is no error body (GET /health's 503 is the health report) and stays as the route declares it.
 */
function errorSchema(schema: Record<string, any> | undefined) {
  if (!schema || schema.title === ErrorBody.title) return ERROR_REF;
  return schema.properties?.error ? { allOf: [ERROR_REF, schema] } : schema;
}

/**
 * Finish the generated document: the Error component (every 4xx/5xx error body and each operation's `default`
 * response point to it), an operationId on every operation (declared or derived), and a description for every tag
 * used: a module's title and description for its name, or those of the first module whose route uses the tag.
 */
export function finishDocument(doc: Record<string, any>, modules: readonly Module[], tagModules: ReadonlyMap<string, string>) {
  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, Error: JSON.parse(JSON.stringify(ErrorBody)) };
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, shared] of Object.entries(item)) {
      // One route of several methods shares one object: each method gets its own copy, and its own id.
      const op: Operation = { ...shared };
      const several = Object.values(item).filter((o) => o === shared).length > 1;
      op.operationId = op.operationId && !several ? op.operationId : operationIdOf(method, path);
      const responses: Operation['responses'] = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        responses[status] = /^[45]/.test(status) && response.content
          ? { ...response, content: Object.fromEntries(Object.entries(response.content).map(([type, c]) => [type, { ...c, schema: errorSchema(c.schema) }])) }
          : response;
      }
      responses.default ??= { description: 'An error: `{ error, reason? }` with the status that says what went wrong', content: { 'application/json': { schema: ERROR_REF } } } as never;
      op.responses = responses;
      for (const tag of op.tags ?? []) used.add(tag);
      item[method] = op as never;
    }
  }
  const byName = new Map(modules.map((m) => [m.name, m]));
  doc.tags = [...used].sort().map((tag) => {
    const mod = byName.get(tag) ?? byName.get(tagModules.get(tag) ?? '');
    return { name: tag, ...(mod && { description: `${mod.title}: ${mod.description}` }) };
  });
  return doc;
}
