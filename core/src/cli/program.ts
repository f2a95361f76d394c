// The `quad` command line: every command and subcommand, with --help on each. A usage error (unknown command or
// flag, missing or bad argument) is one line, then the command's usage; it exits 2.
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { cliIo } from './io.js';
import { defineMigrateCommand } from './migrate.js';
import { defineOrgCommands } from './org.js';
import type { Act, Outcome } from './output.js';
import { definePluginCommands } from './plugin.js';
import { defineRunCommand } from './run.js';
import { defineTokenCommands } from './token.js';

export function buildProgram(): { program: Command; outcome: () => Outcome } {
  let outcome: Outcome = 0;
  const act: Act = (fn) => async (...args) => {
    outcome = await fn(...args);
  };
  // Set before the commands are added: subcommands inherit these settings.
  const program = new Command('quad')
    .description('Quad: run the service, and manage orgs, modules, machine tokens and plugins from the shell')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', 'show the help of a command')
    .exitOverride()
    // Help, version and usage errors go where the command's output goes (cli/io.ts).
    .configureOutput({ writeOut: (text) => cliIo().stdout.write(text), writeErr: (text) => cliIo().stderr.write(text) });
  defineRunCommand(program, act);
  defineMigrateCommand(program, act);
  defineOrgCommands(program, act);
  defineTokenCommands(program, act);
  definePluginCommands(program, act);
  for (const command of allCommands(program)) {
    command.showHelpAfterError(`usage: ${commandPath(command)} ${command.usage()}\n(${commandPath(command)} --help for more)`);
  }
  return { program, outcome: () => outcome };
}

/** A command and every command under it. */
export function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/** `quad token create`: how the command is typed. */
export function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}
