// Resolves the org named in the URL (`:org`, a prefix or a numeric id) and binds the request's org filter.
import type { FastifyRequest } from 'fastify';
import { ORG_FILTER } from '../db/org-owned.js';
import { notFound } from './errors.js';

export async function resolveOrg(request: FastifyRequest): Promise<void> {
  const ref = (request.params as Record<string, string> | undefined)?.org;
  if (ref === undefined) return;
  const org = await request.server.orgs.find(request.em, ref);
  if (!org) throw notFound(`No org "${ref}"`, 'unknown_org');
  request.org = org;
  request.em.setFilterParams(ORG_FILTER, { orgId: org.id });
}
