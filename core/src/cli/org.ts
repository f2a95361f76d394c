// `quad org …`: manage orgs from the shell, so a fresh install is bootstrapped without a browser. The rules and
// messages are the superadmin and officer routes' own (shared functions); every change is audited as `cli`.
import { InvalidArgumentError, type Command } from 'commander';
import { cliIo } from './io.js';
import { CLI_ACTOR, failure, print, reasonOf, tell, type Act } from './output.js';

export function defineOrgCommands(program: Command, act: Act) {
  const org = program.command('org').description('add, list and remove orgs; set their officer role; switch their modules');

  org.command('add')
    .usage('--prefix <prefix> --name <name> --guild <server id> [options]')
    .description('add an org for a Discord server (the server and role are checked with Discord when BOT_TOKEN is set)')
    .requiredOption('--prefix <prefix>', 'the org in URLs: 2–32 lower-case letters, digits and -')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--guild <server id>', 'the Discord server id')
    .option('--officer-role <role id>', 'the Discord role whose holders are the org\'s officers')
    .option('--description <text>', 'a short description')
    .action(act(addOrg));

  org.command('list')
    .description('list the orgs: prefix, id, name, server, officer role')
    .action(act(listOrgs));

  org.command('remove')
    .description('remove an org and all its data (asks first; --yes when stdin is not a terminal)')
    .argument('<prefix>', 'the org')
    .option('-y, --yes', 'remove without asking')
    .action(act(removeOrg));

  org.command('officer-role')
    .description('set or clear the Discord role whose holders are the org\'s officers')
    .argument('<prefix>', 'the org')
    .argument('<role>', 'a role id of the org\'s server, or none')
    .action(act(setOfficerRole));

  org.command('modules')
    .description('list the org\'s modules (on/off and their needs), or switch them with name=on|off …')
    .argument('<prefix>', 'the org')
    .argument('[switches...]', 'module switches such as points=on store=off', parseSwitch)
    .action(act(moduleSwitches));
}

interface AddOptions { prefix: string; name: string; guild: string; officerRole?: string; description?: string }

async function addOrg(options: AddOptions): Promise<number> {
  const [{ withDatabase }, { createOrg }] = await Promise.all([import('./database.js'), import('../orgs/org-admin.js')]);
  return withDatabase(async ({ orm, registry, discord }) => {
    if (!discord.hasBot) tell('warning: BOT_TOKEN is unset, so the server and role are not checked with Discord');
    const org = await createOrg(orm.em.fork(), registry, discord, {
      prefix: options.prefix, name: options.name, guildId: options.guild, officerRoleId: options.officerRole, description: options.description,
    }, CLI_ACTOR);
    print(`added org ${org.prefix} (id ${org.id}) for server ${org.discordGuildId}${org.officerRoleId ? `, officer role ${org.officerRoleId}` : ' (no officer role yet)'}`);
    print(`modules on: ${Object.keys(org.modules).join(', ') || 'none'}`);
    tell(`next: quad org modules ${org.prefix} <module>=on   (switch its modules)`);
    tell(`      quad token create --org ${org.prefix} --name <name> --kind agent --scopes org:read   (a token for an agent)`);
    return 0;
  });
}

async function listOrgs(): Promise<number> {
  const [{ withDatabase }, { Organization }] = await Promise.all([import('./database.js'), import('../entities/organization.js')]);
  return withDatabase(async ({ orm }) => {
    const orgs = await orm.em.fork().find(Organization, {}, { orderBy: { prefix: 'asc' } });
    if (!orgs.length) tell('no orgs yet: quad org add --prefix <prefix> --name <name> --guild <server id>');
    for (const o of orgs) print(`${o.prefix}\t${o.id}\t${o.name}\tserver ${o.discordGuildId ?? '-'}\tofficer role ${o.officerRoleId ?? '-'}`);
    return 0;
  });
}

async function removeOrg(prefix: string, options: { yes?: boolean }): Promise<number> {
  // Refused before touching the database: nobody can answer the question.
  if (!options.yes && !cliIo().stdin.isTTY) {
    tell(`error: org remove deletes the org "${prefix}" and all its data at once; stdin is not a terminal, so confirm with: quad org remove ${prefix} --yes`);
    return 1;
  }
  const [{ withDatabase }, orgAdmin] = await Promise.all([import('./database.js'), import('../orgs/org-admin.js')]);
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(prefix);
    if (!options.yes && !(await confirm(`Remove the org ${org.prefix} (${org.name}) and all its data? Type its prefix to confirm: `, org.prefix))) {
      tell('not removed');
      return 1;
    }
    await orgAdmin.removeOrg(em, org.id, CLI_ACTOR);
    print(`removed org ${org.prefix} and all its data`);
    return 0;
  });
}

async function confirm(question: string, expected: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const { stdin, stderr } = cliIo();
  const rl = createInterface({ input: stdin, output: stderr });
  try {
    return (await rl.question(question)).trim() === expected;
  } finally {
    rl.close();
  }
}

async function setOfficerRole(prefix: string, role: string): Promise<number> {
  const [{ withDatabase }, orgAdmin] = await Promise.all([import('./database.js'), import('../orgs/org-admin.js')]);
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(prefix);
    const updated = await orgAdmin.setOfficerRole(em, admin.discord, org.id, role === 'none' ? null : role, CLI_ACTOR);
    print(`org ${updated.prefix}: officer role ${updated.officerRoleId ?? 'cleared'}`);
    return 0;
  });
}

/** `name=on` / `name=off`, collected into the switches the officer route takes. */
function parseSwitch(value: string, previous: Record<string, boolean> = {}): Record<string, boolean> {
  const match = /^([^=\s]+)=(on|off)$/.exec(value);
  if (!match) throw new InvalidArgumentError(`"${value}" is not <module>=on or <module>=off.`);
  if (match[1] in previous) throw new InvalidArgumentError(`${match[1]} is switched twice.`);
  return { ...previous, [match[1]]: match[2] === 'on' };
}

async function moduleSwitches(prefix: string, given: Record<string, boolean>): Promise<number> {
  // Commander hands an empty list when no switch is given.
  const switches = Object.keys(given).length ? given : null;
  const [{ withDatabase }, { listModules, switchModulesAudited }] = await Promise.all([import('./database.js'), import('../orgs/module-switches.js')]);
  return withDatabase(async (admin) => {
    const { org, em } = await admin.org(prefix);
    let current = org.modules;
    if (switches) {
      try {
        const result = await switchModulesAudited(em, admin.registry, admin.secrets, org.id, switches, CLI_ACTOR);
        current = result.modules;
        const changed = Object.entries(result.changed).map(([name, on]) => `${name} ${on ? 'on' : 'off'}`);
        tell(changed.length ? `switched ${changed.join(', ')}` : 'nothing to change');
      } catch (err) {
        const hint = switchHint(org.prefix, err);
        if (!hint) throw err;
        return failure(err, `hint: ${hint}`);
      }
    }
    const { modules } = await listModules(em, admin.registry, admin.secrets, { id: org.id, modules: current });
    for (const m of modules) {
      const needs = m.needs.map((n) => `${n.key} (${n.kind === 'module' ? (n.connected ? 'on' : 'off') : (n.connected ? 'connected' : 'not connected')}${n.optional ? ', optional' : ''})`);
      print(`${m.name}\t${m.enabled ? 'on' : 'off'}\t${needs.length ? `needs ${needs.join(', ')}` : 'needs nothing'}`);
    }
    if (!switches && modules.length) tell(`switch with: quad org modules ${org.prefix} <module>=on|off …`);
    return 0;
  });
}

/** The command that gets past a 409 when the fix is another switch in the same command. */
function switchHint(prefix: string, err: unknown): string | null {
  const reason = reasonOf(err);
  const details = (err as { details?: Record<string, unknown> }).details;
  const module = String(details?.module ?? '');
  if (reason === 'needs_missing') {
    const missing = (details?.missing ?? []) as { key: string; kind: string }[];
    if (!missing.every((m) => m.kind === 'module')) return null; // an integration is connected by setting its secrets
    return `quad org modules ${prefix} ${missing.map((m) => `${m.key}=on`).join(' ')} ${module}=on`;
  }
  if (reason === 'needed_by') {
    const dependents = (details?.needed_by ?? []) as string[];
    return `quad org modules ${prefix} ${dependents.map((d) => `${d}=off`).join(' ')} ${module}=off`;
  }
  return null;
}
