import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * The CLI as users run it, built before every test run (test/setup/build-dist.global.ts): tests
 * start it as `node CLI_ENTRY …`.
 */
export const CLI_ENTRY = join(ROOT, 'dist/cli/bin.js');
