// A world for the submodules tests: Quad with the submodules plugin (and the knowledge plugin when asked) against the
// fake campus sites (every campus base points at it) and the fake search service, the org acm (signed in through the
// fake Discord, module on), a superadmin, machine tokens of each kind, and helpers that call the routes and tools.
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer, signInOfficer, startFakeCampus, startFakeSearch, startSignInWorld,
  type FakeCampus, type FakeSearch, type SignInWorld, type TeardownHost,
} from '@quad/core/testing';

export const ADMIN = '999000777';

export interface SubmodulesWorld extends SignInWorld {
  campus: FakeCampus;
  search: FakeSearch;
  officerToken: string;
  adminToken: string;
  /** Tokens of acm: the read scope of the query routes (knowledge:read with the knowledge module, else submodules:read), submodules:read, submodules:manage. */
  readerToken: string;
  listerToken: string;
  managerToken: string;
  call(method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, token: string, body?: unknown): Promise<LightMyRequestResponse>;
  tool(name: string, args: Record<string, unknown>, token: string): Promise<LightMyRequestResponse>;
  sql<T = Record<string, any>>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface SubmodulesWorldOptions {
  /** Load the knowledge plugin too (and switch it on for acm). Default: false. */
  knowledge?: boolean;
  /** Point SEARCH_URL at the fake. Default: true. */
  searchUrl?: boolean;
  config?: Record<string, unknown>;
  /** 'all' runs the job worker too; 'api' leaves started jobs queued. Default: 'api'. */
  role?: 'api' | 'all';
}

export async function startSubmodulesWorld(t: TeardownHost, options: SubmodulesWorldOptions = {}): Promise<SubmodulesWorld> {
  const campus = await startFakeCampus(t);
  const search = await startFakeSearch(t);
  const world = await startSignInWorld(t, {
    plugins: ['./plugins/submodules', ...(options.knowledge ? ['./plugins/knowledge'] : [])],
    orgModules: { submodules: true, ...(options.knowledge && { knowledge: true }) },
    role: options.role ?? 'api',
    config: {
      SUBMODULES_BASE_URLS: [`campus.*=${campus.url}`],
      ...(options.searchUrl !== false && { SEARCH_URL: search.url }),
      SYS_ADMIN: [ADMIN],
      ...options.config,
    },
  });
  const { quad, org } = world;
  const read = options.knowledge ? 'knowledge:read' : 'submodules:read';
  const readerToken = (await quad.issueToken(org.id, { scopes: [read] })).token;
  const listerToken = (await quad.issueToken(org.id, { scopes: ['submodules:read'] })).token;
  const managerToken = (await quad.issueToken(org.id, { scopes: ['submodules:manage'] })).token;
  const officerToken = (await signInOfficer(world, world.officer.id)).access_token;
  world.discord.addUser({ id: ADMIN, username: 'root' });
  const adminToken = (await signInOfficer(world, ADMIN)).access_token;
  const em = quad.orm.em.fork();
  const call: SubmodulesWorld['call'] = (method, url, token, body) => quad.api.inject({
    method, url, headers: bearer(token), ...(body !== undefined && { payload: body as object }),
  });
  return {
    ...world, campus, search, officerToken, adminToken, readerToken, listerToken, managerToken, call,
    tool: (name, args, token) => call('POST', '/api/tools/call', token, { name, arguments: args }),
    sql: (text, params = []) => em.getConnection().execute(text, params as never[]),
  };
}
