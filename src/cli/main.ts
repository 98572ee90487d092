import { Command, CommanderError } from 'commander';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import type { CliIo } from './io.js';
import { processIo } from './io.js';
import { SPANSCORE_VERSION } from '../version.js';

/**
 * Runs the `spanscore` command line and returns the exit code (it never calls `process.exit`).
 * Usage errors exit 2, like input errors; `--help` and `--version` exit 0.
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const program = new Command('spanscore')
    .description('Score how AI agents use tools, from their OpenTelemetry traces.')
    .version(SPANSCORE_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: s => io.stdout.write(s), writeErr: s => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  let code = 0;
  const setExitCode = (c: number): void => {
    code = c;
  };
  // Only the command being run is loaded (all of them for help or an unknown command), so a
  // receiver-only `serve` never loads the scorers, the judge client or the demo's OTel SDK.
  const wanted = argv[0] ?? '';
  const known = [
    'score',
    'compare',
    'suite',
    'inspect',
    'serve',
    'worker',
    'demo',
    'jobs',
  ].includes(wanted);
  // `--version` alone needs no command: it answers in about a tenth of the time.
  const versionOnly = argv.length === 1 && (wanted === '--version' || wanted === '-V');
  const needs = (...names: string[]): boolean => !versionOnly && (!known || names.includes(wanted));
  const commands: Command[] = [];
  if (needs('score'))
    commands.push((await import('./commands/score.js')).scoreCommand(io, setExitCode));
  if (needs('inspect'))
    commands.push((await import('./commands/inspect.js')).inspectCommand(io, setExitCode));
  if (needs('suite'))
    commands.push((await import('./commands/suite.js')).suiteCommand(io, setExitCode));
  if (needs('compare'))
    commands.push((await import('./commands/compare.js')).compareCommand(io, setExitCode));
  if (needs('serve', 'worker')) {
    const { serveCommand, workerCommand } = await import('./commands/serve.js');
    commands.push(serveCommand(io, setExitCode), workerCommand(io, setExitCode));
  }
  if (needs('jobs'))
    commands.push((await import('./commands/jobs.js')).jobsCommand(io, setExitCode));
  if (needs('demo'))
    commands.push((await import('./commands/demo.js')).demoCommand(io, setExitCode));
  // addCommand does not pass settings on; exit handling and output streams must reach subcommands.
  const inherit = (command: Command, parent: Command): Command => {
    command.copyInheritedSettings(parent);
    for (const sub of command.commands) inherit(sub, command);
    return command;
  };
  for (const command of commands) program.addCommand(inherit(command, program));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
        ? 0
        : 2;
    }
    if (isSpanscoreError(error)) {
      io.stderr.write(`spanscore: ${error.message}\n`);
      return error.category === 'input' ? 2 : 1;
    }
    throw error;
  }
  return code;
}
