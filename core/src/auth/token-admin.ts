// Creating, listing and revoking an org's machine tokens, shared by the token routes and the tokens.* tools.
import type { EntityManager } from '@mikro-orm/postgresql';
import { knownError, notFound } from '../http/errors.js';
import type { CoreServices } from '../services.js';
import type { ToolService } from '../tools/tool-service.js';
import { MachineToken } from './entities.js';
import { checkTokenRequest, createMachineToken, forgetMachineToken, tokenView, type IssuedToken, type TokenCreator, type TokenRequest } from './machine-tokens.js';

/** Create a token (the plain value is in the result, once) and audit it, in one transaction. */
export async function issueToken(em: EntityManager, services: Pick<CoreServices, 'registry' | 'audit'>, orgId: number, request: TokenRequest, creator: TokenCreator): Promise<IssuedToken> {
  const limits = checkTokenRequest(services.registry, request, creator);
  return em.transactional(async (tem) => {
    const made = await createMachineToken(tem, orgId, {
      name: request.name, kind: request.kind, scopes: request.scopes, limits, expiresDays: request.expires_days, createdBy: creator.actor,
    });
    await services.audit(tem, {
      orgId, actor: creator.actor, action: 'tokens.create',
      details: { token_id: made.record.id, name: made.record.name, kind: made.record.kind, scopes: made.record.scopes, prefix: made.record.tokenPrefix },
    });
    return made;
  });
}

/** Revoke a token of the org bound to `em` (another org's id is unknown: 404). Idempotent. */
export async function revokeToken(em: EntityManager, services: Pick<CoreServices, 'audit'>, orgId: number, tokenId: number, actor: string): Promise<void> {
  await em.transactional(async (tem) => {
    const token = await tem.findOne(MachineToken, { id: tokenId, organization: orgId });
    if (!token) throw notFound('No such token', 'unknown_token');
    if (token.revokedAt) return;
    token.revokedAt = new Date();
    await services.audit(tem, { orgId, actor, action: 'tokens.revoke', details: { token_id: token.id, name: token.name } });
  });
  // Refused at once in this process; the others hear the trigger's NOTIFY.
  forgetMachineToken(tokenId);
}

export async function listTokens(em: EntityManager, orgId: number) {
  return (await em.find(MachineToken, { organization: orgId }, { orderBy: { id: 'desc' } })).map(tokenView);
}

/**
 * Every scope a token can hold (with the services it calls) and every integration: whether the org connected
 * it, its own scopes, the tools of each of them (a connected remote integration's from its MCP server's listing),
 * whether those come from the service's MCP server, why that server could not list them (`remote_error`), the
 * platform scopes that call it, the modules that need it, and the limits that meter it.
 */
export async function tokenCatalog(em: EntityManager, services: CoreServices, orgId: number, toolService?: ToolService) {
  const { registry } = services;
  const scopes = [...registry.scopes.values()].map((s) => ({
    name: s.name, description: s.description, module: s.module, integration: s.integration ?? null, uses: s.uses ?? [],
  }));
  const tools = [...registry.tools.values()];
  const connected = await services.secrets.connectedIntegrations(em, orgId);
  const remote = await remoteToolNames(em, orgId, connected, toolService);
  const integrations = [...registry.integrations.values()].map((i) => {
    const own = scopes.filter((s) => s.integration === i.key);
    const served = remote.get(i.key);
    return {
      key: i.key,
      title: i.title,
      description: i.description,
      module: i.module,
      connected: connected.has(i.key),
      scopes: own.map((s) => s.name),
      tools: Object.fromEntries(own.map((s) => [s.name, [...tools.filter((t) => t.scope === s.name).map((t) => t.name), ...(served?.names ?? [])]])),
      remote: i.remote ?? false,
      remote_error: served?.error ?? null,
      through: scopes.filter((s) => s.uses.includes(i.key)).map((s) => s.name),
      used_by: registry.modules.filter((m) => m.needs.some((n) => n.kind === 'integration' && n.key === i.key)).map((m) => m.name),
      limits: [...registry.limits.values()].filter((l) => l.integrations?.includes(i.key)).map((l) => l.key),
    };
  });
  return { scopes, integrations };
}

/** The remote tools of each connected remote integration (from the cached listing), or why they could not be listed. */
async function remoteToolNames(em: EntityManager, orgId: number, connected: ReadonlySet<string>, toolService?: ToolService) {
  const names = new Map<string, { names: string[]; error: string | null }>();
  const remote = toolService?.remote;
  const keys = remote ? [...remote.integrations.keys()].filter((k) => connected.has(k)) : [];
  if (!remote || !keys.length) return names;
  const states = await remote.states(em, orgId);
  await Promise.all(keys.map(async (key) => {
    try {
      const listing = await remote.listing(em, orgId, key, states.get(key)!);
      names.set(key, { names: listing?.tools.map((t) => t.name) ?? [], error: null });
    } catch (err) {
      names.set(key, { names: [], error: knownError(err)?.message ?? `The tools of ${key} could not be listed` });
    }
  }));
  return names;
}
