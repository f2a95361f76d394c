// Resolves the org named in the URL (`:org`, a prefix or a numeric id) and binds the request's org filter. It runs in
// the onRequest hook, before schema validation, so it checks the reference itself against the shared OrgRef rule:
// on every org route, with or without a params schema, a malformed reference is a 400 and never reaches SQL.
import type { FastifyRequest } from 'fastify';
import { bindToOrg } from '../db/orm.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { MachineCaller } from '../auth/callers.js';
import { existingFork } from './decorations.js';
import { badRequest, notFound } from './errors.js';
import { isOrgRef, OrgRef } from './schemas.js';

/** Synchronous when the org is cached (the usual case): a promise only when it must be read. */
export function resolveOrg(request: FastifyRequest): void | Promise<void> {
  const ref = (request.params as Record<string, unknown> | undefined)?.org;
  if (ref === undefined) return;
  if (!isOrgRef(ref)) {
    throw badRequest(`params.org: must be an org prefix or id (${OrgRef.minLength} to ${OrgRef.maxLength} letters, digits, _ or -)`, 'validation', { field: 'params.org' });
  }
  const cached = request.server.orgs.cached(ref);
  if (cached) return bindOrg(request, cached);
  return request.server.orgs.find(ref).then((org) => {
    if (!org) throw notFound(`No org "${ref}"`, 'unknown_org');
    bindOrg(request, org);
  });
}

/**
 * A machine-token route without `:org` (the spec's `/api/knowledge/…`, `/api/agents/members/…`): the org is the
 * token's. A token whose org was removed since it was checked is 404 `unknown_org`.
 */
export function resolveTokenOrg(request: FastifyRequest): void | Promise<void> {
  const caller = request.caller;
  if (!caller || caller.kind !== 'machine') return; // the auth hook has answered already
  const ref = String((caller as MachineCaller).orgId);
  const cached = request.server.orgs.cached(ref);
  if (cached) return bindOrg(request, cached);
  return request.server.orgs.find(ref).then((org) => {
    if (!org) throw notFound('The token\'s org no longer exists', 'unknown_org');
    bindOrg(request, org);
  });
}

function bindOrg(request: FastifyRequest, org: OrgSnapshot) {
  request.org = org;
  // A fork made before now (by the auth policy) is bound here; a later one is bound when `request.em` makes it.
  const fork = existingFork(request);
  if (fork) bindToOrg(request.server.quad.orm, fork, org.id);
}
