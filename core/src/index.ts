// @quad/core: the plugin API. Third-party plugins compile against these named exports only;
// breaking one is a documented, versioned event (see README "Write a plugin").
export { defineModule, defineTool, defineJob, defineService, provide } from './modules/define.js';
export type {
  AuthPolicy, DatabaseExtensionDecl, JobContext, JobDecl, LimitDecl, Module, ModuleManifest, NeedDecl,
  ScopeDecl, ToolAnnotations, ToolCaller, ToolContext, ToolDecl, IntegrationDecl, IntegrationContext, RemoteMcpDecl, SecretDecl,
  DaemonDecl, DaemonContext, EmittedEvent, EventHandlerDecl, DashboardDecl, DashboardContext, ClaimsDecl, PageDecl, PagesDecl, ActivityTabDecl, ExploreTabDecl, MemberPageDecl,
} from './modules/types.js';
export { defineOrgEntity, orgOwned, orgFilter, ORG_FILTER } from './db/org-owned.js';
export { OrgDb, orgDb, orgDbFor, withDb } from './db/org-db.js';
export type { AcrossOrgsDb, AcrossOrgsWork } from './core-services.js';
export { prepared, sql, SqlFragment } from './db/sql.js';
export type { TableDeclaration, TableTenancy } from './modules/types.js';
export { Organization, type OrganizationEntity } from './entities/organization.js';
export type { OrgSnapshot } from './orgs/org-cache.js';
export { HttpError, badRequest, unauthorized, forbidden, notFound, conflict, tooManyRequests, unavailable } from './http/errors.js';
export type { Caller } from './http/types.js';
export {
  ErrorBody, OrgRef, OrgParams, orgParams, Id, BigId, INT4_MAX, Paging, PAGE_MAX, pagingQuery, pageOf, pageWindow, type PagingQuery,
} from './http/schemas.js';
export { User, type UserEntity } from './auth/entities.js';
export { credentialOf, type OfficerCaller, type MachineCaller, type IdpCaller, type MemberCaller } from './auth/callers.js';
export type { CredentialKind, AccessReason } from './auth/access.js';
export {
  DiscordUnavailable, DiscordRequestError, displayName, isDiscordWebhookUrl, isAllowedWebhookUrl, scrubWebhookUrl, describeWebhookFailure,
} from './adapters/discord/index.js';
export type {
  CoreServices, ServiceRef, ServiceProvision, ModuleRegistry, LimitsService, SecretsService, EventInput, ProblemInput,
  RaisedProblem, StartOptions as JobStartOptions, StartedJob,
} from './core-services.js';
export { bucketByDay, dayIndexSql } from './dashboard/trends.js';
export type { AuditInput } from './events/audit.js';
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { defineEntity, p } from '@mikro-orm/core';
export type { EntityManager } from '@mikro-orm/postgresql';
export type { FastifyPluginAsyncTypebox as RoutesPlugin } from '@fastify/type-provider-typebox';
export { SecretDecryptError } from './secrets/crypto.js';
export { safeFetch, assertPublicUrl, SafeFetchError, type SafeFetchOptions, type SafeResponse, type SafeFetchFailure } from './net/safe-fetch.js';
import type { Quad, StartOptions } from './quad.js';
export type { Quad, StartOptions, Role } from './quad.js';
export { VERSION } from './version.js';
export { importSpecifier } from './modules/package-entry.js';

/**
 * Start Quad in this process: the API and/or the job worker (StartOptions.role). Loaded on first call: plugins import
 * this package for its definitions, and a process that only reads the registry (the operator CLI) need not load the
 * API and the worker.
 */
export async function startQuad(options?: StartOptions): Promise<Quad> {
  const { startQuad: start } = await import('./quad.js');
  return start(options);
}
export { ConfigSource } from './config/load.js';
import './http/types.js';
