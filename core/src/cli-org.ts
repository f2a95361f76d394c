// `quad org …`: manage orgs from the shell, so a fresh install is bootstrapped without a browser.
//   org add --prefix acm --name "ACM" --guild <server id> [--officer-role <role id>] [--description …]
//   org list | org remove <prefix> | org officer-role <prefix> <role id|none>
import { parseArgs } from 'node:util';
import type { MikroORM } from '@mikro-orm/postgresql';
import { DiscordClient } from './adapters/discord/index.js';
import type { Settings } from './config/schema.js';
import { Organization } from './entities/organization.js';
import { HttpError } from './http/errors.js';
import type { Registry } from './modules/registry.js';
import { createOrg, removeOrg, setOfficerRole } from './orgs/org-admin.js';

export const ORG_USAGE = `  org add --prefix <p> --name <name> --guild <server id> [--officer-role <role id>] [--description <text>]
  org list
  org remove <prefix>
  org officer-role <prefix> <role id | none>`;

const ACTOR = 'cli';

export async function orgCommand(args: string[], deps: { orm: MikroORM; registry: Registry; settings: Settings; print: (line: string) => void }): Promise<number> {
  const { positionals, values } = parseArgs({
    args, allowPositionals: true,
    options: { prefix: { type: 'string' }, name: { type: 'string' }, guild: { type: 'string' }, 'officer-role': { type: 'string' }, description: { type: 'string' } },
  });
  const [sub, ...rest] = positionals;
  const em = deps.orm.em.fork();
  const discord = new DiscordClient({
    apiUrl: deps.settings.DISCORD_API_URL, authorizeUrl: deps.settings.DISCORD_AUTHORIZE_URL, botToken: deps.settings.BOT_TOKEN, timeoutMs: deps.settings.DISCORD_TIMEOUT_MS,
  });
  const find = async (prefix: string | undefined) => {
    const org = prefix ? await em.findOne(Organization, { prefix: prefix.toLowerCase() }) : null;
    if (!org) throw new HttpError(404, `No org "${prefix ?? ''}"`);
    return org;
  };
  try {
    switch (sub) {
      case 'add': {
        if (!values.prefix || !values.name || !values.guild) throw new HttpError(400, 'org add needs --prefix, --name and --guild');
        if (!discord.hasBot) deps.print('warning: BOT_TOKEN is unset, so the server and role are not checked with Discord');
        const org = await createOrg(em, deps.registry, discord, {
          prefix: values.prefix, name: values.name, guildId: values.guild, officerRoleId: values['officer-role'], description: values.description,
        }, ACTOR);
        deps.print(`added org ${org.prefix} (id ${org.id}) for server ${org.discordGuildId}${org.officerRoleId ? `, officer role ${org.officerRoleId}` : ' (no officer role yet)'}`);
        deps.print(`modules on: ${Object.keys(org.modules).join(', ') || 'none'}`);
        return 0;
      }
      case 'list': {
        const orgs = await em.find(Organization, {}, { orderBy: { prefix: 'asc' } });
        if (!orgs.length) deps.print('no orgs yet: quad org add --prefix … --name … --guild …');
        for (const o of orgs) deps.print(`${o.prefix}\t${o.id}\t${o.name}\tserver ${o.discordGuildId ?? '-'}\tofficer role ${o.officerRoleId ?? '-'}`);
        return 0;
      }
      case 'remove': {
        const org = await find(rest[0]);
        await removeOrg(em, org.id, ACTOR);
        deps.print(`removed org ${org.prefix} and all its data`);
        return 0;
      }
      case 'officer-role': {
        const org = await find(rest[0]);
        if (!rest[1]) throw new HttpError(400, 'org officer-role needs <prefix> <role id | none>');
        const updated = await setOfficerRole(em, discord, org.id, rest[1] === 'none' ? null : rest[1], ACTOR);
        deps.print(`org ${updated.prefix}: officer role ${updated.officerRoleId ?? 'cleared'}`);
        return 0;
      }
      default:
        deps.print(`usage:\n${ORG_USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof HttpError) {
      deps.print(`error: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
