// A world for the knowledge tests: Quad with the knowledge plugin against the fake embeddings service, two orgs
// (acm, signed in through the fake Discord, and beta) with the module on, machine tokens of each, an officer's
// token of acm, and helpers that write sources and search through the real routes.
import type { LightMyRequestResponse } from 'fastify';
import { bearer, signInOfficer, startSignInWorld, type SignInWorld, type TeardownHost, startFakeEmbeddings, type FakeEmbeddings } from '@quad/core/testing';
import type { Module, OrganizationEntity } from '@quad/core';

export interface KnowledgeWorld extends SignInWorld {
  fake: FakeEmbeddings;
  beta: OrganizationEntity;
  /** Machine tokens with knowledge:read and knowledge:write. */
  acmToken: string;
  betaToken: string;
  /** acm's token with knowledge:read only. */
  readerToken: string;
  officerToken: string;
  put(key: string, body: Record<string, unknown>, token?: string): Promise<LightMyRequestResponse>;
  search(body: Record<string, unknown>, token?: string): Promise<LightMyRequestResponse>;
  get(url: string, token?: string): Promise<LightMyRequestResponse>;
  asOfficer(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface KnowledgeWorldOptions {
  /** Run with the fake as the deployment embedder. Default: true. */
  embedder?: boolean;
  config?: Record<string, unknown>;
  /** Listen on loopback ports (the MCP server answers only then). Default: false. */
  listen?: boolean;
  /** 'all' runs the job worker too (jobs run); 'api' leaves started jobs queued. Default: 'api'. */
  role?: 'api' | 'all';
  /** Modules loaded besides knowledge (e.g. a stand-in for another module's service). Default: none. */
  plugins?: Module[];
}

export async function startKnowledgeWorld(t: TeardownHost, options: KnowledgeWorldOptions = {}): Promise<KnowledgeWorld> {
  const fake = await startFakeEmbeddings(t);
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/knowledge', ...(options.plugins ?? [])],
    orgModules: { knowledge: true },
    role: options.role ?? 'api',
    listen: options.listen,
    config: { ...(options.embedder !== false && { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-1' }), ...options.config },
  });
  const { quad } = world;
  const beta = await quad.createOrg({ prefix: 'beta', modules: { knowledge: true } });
  const scopes = ['knowledge:read', 'knowledge:write'];
  const acmToken = (await quad.issueToken(world.org.id, { scopes })).token;
  const betaToken = (await quad.issueToken(beta.id, { scopes })).token;
  const readerToken = (await quad.issueToken(world.org.id, { scopes: ['knowledge:read'] })).token;
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  const em = quad.orm.em.fork();
  return {
    ...world, fake, beta, acmToken, betaToken, readerToken, officerToken,
    put: (key, body, token = acmToken) => quad.api.inject({ method: 'PUT', url: `/api/knowledge/sources/${key}`, headers: bearer(token), payload: body }),
    search: (body, token = acmToken) => quad.api.inject({ method: 'POST', url: '/api/knowledge/search', headers: bearer(token), payload: body }),
    get: (url, token = acmToken) => quad.api.inject({ url, headers: bearer(token) }),
    asOfficer: (method, url, payload) => quad.api.inject({ method, url, headers: bearer(officerToken), ...(payload !== undefined && { payload: payload as object }) }),
    sql: (text, params = []) => em.getConnection().execute(text, params as never[]),
  };
}

/** Page-text chunks from texts, ordinals 0…n-1. */
export const pages = (...texts: string[]) => texts.map((content, ordinal) => ({ ordinal, content }));
