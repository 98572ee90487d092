import { Command, CommanderError } from 'commander';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import type { CliIo } from './io.js';
import { processIo } from './io.js';

const VERSION = '0.1.0';

/**
 * Runs the `spanscore` command line and returns the exit code (it never calls `process.exit`).
 * Usage errors exit 2, like input errors; `--help` and `--version` exit 0.
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const program = new Command('spanscore')
    .description('Score how AI agents use tools, from their OpenTelemetry traces.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: s => io.stdout.write(s), writeErr: s => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  let code = 0;
  const setExitCode = (c: number): void => {
    code = c;
  };
  const { scoreCommand } = await import('./commands/score.js');
  const { serveCommand, workerCommand } = await import('./commands/serve.js');
  const { demoCommand } = await import('./commands/demo.js');
  // addCommand does not pass settings on; exit handling and output streams must reach subcommands.
  for (const command of [
    scoreCommand(io, setExitCode),
    serveCommand(io, setExitCode),
    workerCommand(io, setExitCode),
    demoCommand(io, setExitCode),
  ]) {
    program.addCommand(command.copyInheritedSettings(program));
  }
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
