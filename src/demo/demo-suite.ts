import { fileURLToPath } from 'node:url';

/** The suite of the sample agent's test cases (`demo`, and `serve --demo`), in the package. */
export const DEMO_SUITE = fileURLToPath(new URL('../../config/suites/demo.yaml', import.meta.url));
