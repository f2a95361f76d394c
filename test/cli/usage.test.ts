// The command line itself: --help on every command and subcommand, and usage errors as one line, the usage and
// exit 2, never a stack. Each is run in this process (quad); a real `quad` process shows what cli.ts makes of each
// kind of outcome (help, a usage error, no command, --version): the same output, as its exit code. None touch a
// database.
import t from 'tap';
import { allCommands, buildProgram, commandPath } from '../../core/src/cli/program.js';
import { VERSION } from '../../core/src/version.js';
import { quad, quadProcess, type CliResult } from './processes.js';

const { program } = buildProgram();
const commands = allCommands(program).map(commandPath);

t.test('--help works on every command and subcommand', async (t) => {
  t.ok(commands.length >= 15, `every command is walked (${commands.join(', ')})`);
  const helps: CliResult[] = [];
  for (const path of commands) helps.push(await quad([...path.split(' ').slice(1), '--help']));
  commands.forEach((path, i) => {
    t.equal(helps[i].code, 0, `${path} --help exits 0`);
    t.match(helps[i].stdout, new RegExp(`^Usage: ${path} `), `${path} --help shows its usage`);
    t.equal(helps[i].stderr, '', `${path} --help writes nothing on stderr`);
  });
  t.match(helps[commands.indexOf('quad')].stdout, /Commands:\n {2}run \[options\][^]* {2}migrate[^]* {2}org[^]* {2}token[^]* {2}plugin/);
  const viaHelp = await quad(['token', 'help', 'create']);
  t.equal(viaHelp.code, 0);
  t.match(viaHelp.stdout, /^Usage: quad token create --org <prefix> --name <name> --kind agent\|app --scopes <a,b> \[options\]/);
});

t.test('usage errors: one line, then the usage; exit 2', async (t) => {
  const cases: [string[], string, string][] = [
    [['token', 'list', '--org', 'acm', '--bogus'], "error: unknown option '--bogus'", 'quad token list --org <prefix>'],
    [['frobnicate'], "error: unknown command 'frobnicate'", 'quad [options] [command]'],
    [['org', 'frobnicate'], "error: unknown command 'frobnicate'", 'quad org [options] [command]'],
    [['run', '--role', 'boss'], "error: option '--role <role>' argument 'boss' is invalid. Allowed choices are api, worker, all.", 'quad run [options]'],
    [['token', 'create', '--org', 'acm'], "error: required option '--name <name>' not specified", 'quad token create --org <prefix> --name <name> --kind agent|app --scopes <a,b> [options]'],
    [['token', 'create', '--org', 'acm', '--name', 'x', '--kind', 'cli', '--scopes', 'org:read'], "error: option '--kind <kind>' argument 'cli' is invalid. Allowed choices are agent, app.", 'quad token create --org <prefix> --name <name> --kind agent|app --scopes <a,b> [options]'],
    [['token', 'revoke', '--org', 'acm', 'seven'], "error: command-argument value 'seven' is invalid for argument 'id'. Not a whole number.", 'quad token revoke --org <prefix> <id>'],
    [['org', 'modules', 'acm', 'points=yes'], `error: command-argument value 'points=yes' is invalid for argument 'switches'. "points=yes" is not <module>=on or <module>=off.`, 'quad org modules [options] <prefix> [switches...]'],
    [['org', 'remove'], "error: missing required argument 'prefix'", 'quad org remove [options] <prefix>'],
    [['migrate', 'now'], "error: too many arguments for 'migrate'. Expected 0 arguments but got 1.", 'quad migrate [options]'],
  ];
  const results: CliResult[] = [];
  for (const [args] of cases) results.push(await quad(args));
  cases.forEach(([args, error, usage], i) => {
    const { code, stdout, stderr } = results[i];
    const command = `quad ${args.join(' ')}`;
    t.equal(code, 2, `${command} exits 2`);
    t.equal(stdout, '', `${command}: nothing on stdout`);
    const path = usage.split(/ [[<-]/)[0];
    t.equal(stderr, `${error}\nusage: ${usage}\n(${path} --help for more)\n`, `${command}: the error in one line, then the usage`);
  });
});

t.test('a quad process: help exits 0, a usage error 2, with the same output', async (t) => {
  for (const args of [['token', 'create', '--help'], ['org', 'modules', 'acm', 'points=yes']]) {
    const [ownProcess, inProcess] = [await quadProcess(args), await quad(args)];
    t.same(ownProcess, inProcess, `quad ${args.join(' ')}`);
  }
});

t.test('quad alone shows the commands and exits 2; --version', async (t) => {
  const bare = await quadProcess([]);
  t.equal(bare.code, 2);
  t.match(bare.stderr, /^Usage: quad \[options\] \[command\]/);
  const version = await quadProcess(['--version']);
  t.equal(version.code, 0);
  t.equal(version.stdout, `${VERSION}\n`);
});
