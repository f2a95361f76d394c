// Auth policies: each route names one in config.auth; one core hook enforces it. Credential checks
// (officer tokens, sessions, machine tokens) register their handlers here.
import type { FastifyRequest } from 'fastify';
import type { AuthPolicy } from '../modules/types.js';
import { unauthorized } from './errors.js';
import type { MaybePromise } from './maybe-async.js';
import { resolveOrg } from './org-resolver.js';

type Step = (request: FastifyRequest) => MaybePromise<void>;

/** A check returns nothing when it decided at once (from caches), or a promise when it had to wait. */
export interface PolicyHandler {
  /** Identify the caller from the request's credential (401/403 for missing, bad or expired ones). Runs first. */
  authenticate(request: FastifyRequest, argument: string | undefined): MaybePromise<void>;
  /** Check the caller may act on `request.org` (resolved by then). Optional. */
  authorize?(request: FastifyRequest, argument: string | undefined): MaybePromise<void>;
}

/** `metrics` is the core's GET /metrics only: the METRICS_TOKEN bearer (metrics/access.ts). */
export const POLICY_NAMES = ['public', 'officer', 'dual', 'orgOfficer', 'superadmin', 'member', 'memberOrCli', 'machine', 'officerOrMachine', 'metrics'] as const;
/** Policies that take a scope argument (`machine:<scope>`); `machine` alone accepts any valid machine token. */
const SCOPED = new Set(['machine', 'officerOrMachine']);
export type PolicyName = (typeof POLICY_NAMES)[number];

/** `machine:store:read` -> ['machine', 'store:read']. */
export function parsePolicy(policy: string): [string, string | undefined] {
  const i = policy.indexOf(':');
  return i < 0 ? [policy, undefined] : [policy.slice(0, i), policy.slice(i + 1)];
}

const noCredential: PolicyHandler = {
  async authenticate() {
    throw unauthorized();
  },
};

export class AuthPolicies {
  private readonly handlers = new Map<string, PolicyHandler>();

  constructor() {
    this.handlers.set('public', { authenticate() {} });
    // Until a credential layer registers a handler, a policy accepts no credential.
    for (const name of POLICY_NAMES) if (name !== 'public') this.handlers.set(name, noCredential);
  }

  register(name: PolicyName, handler: PolicyHandler) {
    this.handlers.set(name, handler);
    this.stepLists.clear();
  }

  private readonly stepLists = new Map<string, readonly Step[]>();

  /**
   * What the core's request hook runs for a route with this policy, in order: authenticate the caller, resolve the
   * org in the URL, authorize the caller for it. Made once per policy.
   */
  steps(policy: AuthPolicy): readonly Step[] {
    let steps = this.stepLists.get(policy);
    if (!steps) {
      const [handler, argument] = this.handler(policy);
      const { authenticate, authorize } = handler;
      steps = [
        (request) => authenticate.call(handler, request, argument),
        resolveOrg,
        ...(authorize ? [(request: FastifyRequest) => authorize.call(handler, request, argument)] : []),
      ];
      this.stepLists.set(policy, steps);
    }
    return steps;
  }

  /** Why a declared policy is not acceptable, or null. `scopes` are the declared scope names. */
  problem(policy: unknown, scopes: ReadonlySet<string>): string | null {
    if (policy === undefined) return 'declares no auth policy (set config.auth)';
    if (typeof policy !== 'string') return 'config.auth must be a string';
    const [name, argument] = parsePolicy(policy);
    if (!this.handlers.has(name)) return `unknown auth policy "${policy}" (one of ${POLICY_NAMES.join(', ')}, machine:<scope>, officerOrMachine:<scope>)`;
    if (name === 'officerOrMachine' && !argument) return `auth policy "${policy}" needs a scope (officerOrMachine:<scope>)`;
    if (SCOPED.has(name) && argument !== undefined && !scopes.has(argument)) return `auth policy "${policy}" names a scope no loaded module declares`;
    if (!SCOPED.has(name) && argument !== undefined) return `auth policy "${policy}" takes no argument`;
    return null;
  }

  private handler(policy: AuthPolicy): [PolicyHandler, string | undefined] {
    const [name, argument] = parsePolicy(policy);
    return [this.handlers.get(name)!, argument];
  }
}
