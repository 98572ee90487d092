import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

/** A config file holding `text`, in a folder of its own. */
function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'spanscore-config-errors-')), 'spanscore.yaml');
  writeFileSync(file, text);
  return file;
}

describe('a misspelled config key, on the command line', () => {
  it.each([
    {
      command: 'serve',
      text: 'toolHeath: { sampleRate: 0.5 }\n',
      where: ' (top level)',
      message: 'unknown field(s) "toolHeath" (did you mean "toolHealth"?)',
    },
    {
      command: 'worker',
      text: 'reciever: { port: 4318 }\n',
      where: ' (top level)',
      message: 'unknown field(s) "reciever" (did you mean "receiver"?)',
    },
    {
      command: 'serve',
      text: 'sessions: { idleMS: 1000 }\n',
      where: ': sessions',
      message: 'unknown field(s) "idleMS" (did you mean "idleMs"?)',
    },
  ])(
    'spanscore $command --config: exit 2, naming the key meant ($message)',
    async ({ command, text, where, message }) => {
      const file = configFile(text);
      const { code, stdout, stderr } = await runCli([command, '--config', file]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(`spanscore: invalid configuration, ${file}${where}: ${message}\n`);
    },
  );
});
