// The operator CLI (`npm run quad -- org …`) and the README's bootstrap: start, add an org from the shell,
// sign in as its officer.
import t from 'tap';
import { createTestDatabase, startTestApp } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { discordSettings, officerLogin } from '../support/sign-in.js';
import { quad } from '../cli/processes.js';

/** A `quad` command's exit code and everything it wrote (stdout, then stderr). */
async function quadCli(args: string[], env: Record<string, string>) {
  const { code, stdout, stderr } = await quad(args, { env });
  return { code, out: stdout + stderr };
}

t.test('org commands', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.url };
  const add = await quadCli(['org', 'add', '--prefix', 'acm', '--name', 'ACM Chapter', '--guild', '111111111111111111', '--officer-role', '222222222222222222'], env);
  t.equal(add.code, 0, add.out);
  t.match(add.out, /warning: BOT_TOKEN is unset/);
  t.match(add.out, /added org acm \(id \d+\) for server 111111111111111111, officer role 222222222222222222/);
  const list = await quadCli(['org', 'list'], env);
  t.match(list.out, /^acm\t\d+\tACM Chapter\tserver 111111111111111111\tofficer role 222222222222222222$/m);
  const again = await quadCli(['org', 'add', '--prefix', 'acm2', '--name', 'X', '--guild', '111111111111111111'], env);
  t.equal(again.code, 1);
  t.match(again.out, /error: Server 111111111111111111 already has an org \(acm\)/);
  const missing = await quadCli(['org', 'add', '--prefix', 'x'], env);
  t.equal(missing.code, 2, 'a missing flag is a usage error');
  t.match(missing.out, /error: required option '--name <name>' not specified\nusage: quad org add --prefix <prefix> --name <name> --guild <server id> \[options\]/);
  const bad = await quadCli(['org', 'add', '--prefix', 'Not OK', '--name', 'X', '--guild', '3'], env);
  t.match(bad.out, /error: prefix must be/);
  const role = await quadCli(['org', 'officer-role', 'acm', 'none'], env);
  t.match(role.out, /org acm: officer role cleared/);
  const usage = await quadCli(['org', 'frobnicate'], env);
  t.equal(usage.code, 2);
  t.match(usage.out, /error: unknown command 'frobnicate'\nusage: quad org /);
  const removed = await quadCli(['org', 'remove', 'acm', '--yes'], env);
  t.match(removed.out, /removed org acm and all its data/);
  t.match((await quadCli(['org', 'list'], env)).out, /no orgs yet/);
});

t.test('bootstrap: add an org from the shell, then its officer signs in', async (t) => {
  const discord = await startFakeDiscord();
  t.teardown(() => discord.close());
  const guild = discord.addGuild({ name: 'Robotics' });
  const role = discord.addRole(guild.id, { name: 'Officers' });
  const officer = discord.addUser({ username: 'grace' });
  discord.addMember(guild.id, officer.id, [role.id]);
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const settings = discordSettings(discord);
  const env = { DATABASE_URL: db.url, BOT_TOKEN: discord.botToken, DISCORD_API_URL: discord.url };

  const unknown = await quadCli(['org', 'add', '--prefix', 'robo', '--name', 'Robotics', '--guild', '123456789'], env);
  t.match(unknown.out, /error: The bot is not in that server/, 'with BOT_TOKEN the server is checked');
  const add = await quadCli(['org', 'add', '--prefix', 'robo', '--name', 'Robotics', '--guild', guild.id, '--officer-role', role.id], env);
  t.equal(add.code, 0, add.out);

  const quad = await startTestApp(t, { databaseUrl: db.url, config: settings });
  const login = await officerLogin({ quad, discord }, officer.id);
  t.ok(login.code, 'the officer of the org added from the CLI gets a sign-in code');
  const pair = (await quad.api.inject({ method: 'POST', url: '/api/auth/exchange', payload: { code: login.code } })).json();
  const modules = await quad.api.inject({ url: '/api/dashboard/robo/modules', headers: { authorization: `Bearer ${pair.access_token}` } });
  t.equal(modules.statusCode, 200);
});
