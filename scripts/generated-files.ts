import { format, resolveConfig } from 'prettier';
import { configJsonSchema, configReference, suiteJsonSchema } from './config-reference.js';

/**
 * Every generated file, by its path in the repository; JSON formatted as `prettier --check`
 * wants it (Markdown is not checked by prettier: its tables stay unpadded, so a change to one
 * field changes one line).
 */
export async function generatedFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {
    'docs/configuration.md': configReference(),
    'schema/config.schema.json': JSON.stringify(configJsonSchema()),
    'schema/suite.schema.json': JSON.stringify(suiteJsonSchema()),
  };
  for (const file of Object.keys(files).filter(f => f.endsWith('.json'))) {
    const options = (await resolveConfig(file)) ?? {};
    files[file] = await format(files[file]!, { ...options, filepath: file });
  }
  return files;
}
