// Adding and removing orgs and setting their officer role: what the superadmin routes and the operator CLI share.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DiscordRequestError, type DiscordClient } from '../adapters/discord/index.js';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { recordAudit } from '../events/audit.js';
import { badRequest, conflict, notFound, unavailable } from '../http/errors.js';
import type { Registry } from '../modules/registry.js';
import { defaultModules } from './module-switches.js';

export const PREFIX_PATTERN = /^[a-z][a-z0-9-]{1,31}$/;

export interface NewOrg {
  prefix: string;
  name: string;
  guildId: string;
  officerRoleId?: string | null;
  description?: string;
}

/** Ask Discord through the bot; a refusal is the given 400 (unreachable is DiscordUnavailable: the error handler's 503). */
async function viaBot<T>(call: () => Promise<T>, refused: () => Error): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DiscordRequestError || err instanceof TypeError) throw refused();
    throw err;
  }
}

/** The officer role must be one of the server's roles (checked when the bot is configured). */
async function checkRole(discord: DiscordClient, guildId: string, roleId: string) {
  if (!discord.hasBot) return;
  const roles = await viaBot(() => discord.roles(guildId), () => badRequest('The bot cannot read this server\'s roles', 'bot_not_in_server'));
  if (!roles.some((r) => r.id === roleId)) throw badRequest(`Role ${roleId} is not a role of server ${guildId}`, 'unknown_role');
}

export async function createOrg(em: EntityManager, registry: Registry, discord: DiscordClient, input: NewOrg, actor: string): Promise<OrganizationEntity> {
  const prefix = input.prefix.trim().toLowerCase();
  if (!PREFIX_PATTERN.test(prefix)) throw badRequest('prefix must be 2–32 characters: lower-case letters, digits and -, starting with a letter', 'invalid_prefix');
  if (!/^\d{1,20}$/.test(input.guildId)) throw badRequest('guild_id must be a Discord server id', 'invalid_guild');
  const name = input.name.trim();
  if (!name) throw badRequest('name must not be empty', 'validation');
  // The bot must be in the server: it reads the officer roles there.
  if (discord.hasBot) await viaBot(() => discord.guild(input.guildId), () => badRequest('The bot is not in that server; invite it first', 'bot_not_in_server'));
  if (input.officerRoleId) await checkRole(discord, input.guildId, input.officerRoleId);
  try {
    return await em.transactional(async (tem) => {
      const org = tem.create(Organization, {
        prefix, name, discordGuildId: input.guildId, officerRoleId: input.officerRoleId ?? null,
        description: input.description ?? '', modules: defaultModules(registry),
      });
      await tem.flush();
      await recordAudit(tem, { orgId: org.id, actor, action: 'org.create', details: { prefix, guild_id: input.guildId } });
      return org;
    });
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const guildTaken = await em.fork().findOne(Organization, { discordGuildId: input.guildId });
    if (guildTaken) throw conflict(`Server ${input.guildId} already has an org (${guildTaken.prefix})`, 'server_has_org', { org: guildTaken.prefix });
    throw conflict(`The prefix "${prefix}" is taken`, 'prefix_taken');
  }
}

/** Remove an org and, through its foreign keys, all of its data, in one transaction. */
export async function removeOrg(em: EntityManager, orgId: number, actor: string): Promise<{ prefix: string }> {
  return em.transactional(async (tem) => {
    const org = await tem.findOne(Organization, { id: orgId });
    if (!org) throw notFound(`No org ${orgId}`, 'unknown_org');
    const { prefix } = org;
    await tem.nativeDelete(Organization, { id: orgId });
    await recordAudit(tem, { orgId: null, actor, action: 'org.remove', details: { org_id: orgId, prefix } });
    return { prefix };
  });
}

export async function setOfficerRole(em: EntityManager, discord: DiscordClient, orgId: number, roleId: string | null, actor: string): Promise<OrganizationEntity> {
  return em.transactional(async (tem) => {
    const org = await tem.findOne(Organization, { id: orgId });
    if (!org) throw notFound(`No org ${orgId}`, 'unknown_org');
    if (roleId && org.discordGuildId) await checkRole(discord, org.discordGuildId, roleId);
    org.officerRoleId = roleId;
    await tem.flush();
    await recordAudit(tem, { orgId, actor, action: 'org.officer_role', details: { role_id: roleId } });
    return org;
  });
}

/** The server's roles, for choosing the officer role. */
export async function serverRoles(discord: DiscordClient, guildId: string) {
  if (!discord.hasBot) throw unavailable('BOT_TOKEN is not configured', 'bot_unavailable');
  const roles = await viaBot(() => discord.roles(guildId), () => badRequest('The bot cannot read this server\'s roles', 'bot_not_in_server'));
  return roles.filter((r) => r.id !== guildId).sort((a, b) => b.position - a.position);
}
