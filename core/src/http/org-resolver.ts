// Resolves the org named in the URL (`:org`, a prefix or a numeric id) and binds the request's org filter.
import type { FastifyRequest } from 'fastify';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { ORG_FILTER } from '../db/org-owned.js';
import { notFound } from './errors.js';

export async function findOrg(request: FastifyRequest, ref: string): Promise<OrganizationEntity | null> {
  const where = /^\d+$/.test(ref) ? { id: Number(ref) } : { prefix: ref.toLowerCase() };
  return request.em.findOne(Organization, where);
}

export async function resolveOrg(request: FastifyRequest): Promise<void> {
  const ref = (request.params as Record<string, string> | undefined)?.org;
  if (ref === undefined) return;
  const org = await findOrg(request, ref);
  if (!org) throw notFound(`No org "${ref}"`, 'unknown_org');
  request.org = org;
  request.em.setFilterParams(ORG_FILTER, { orgId: org.id });
}
