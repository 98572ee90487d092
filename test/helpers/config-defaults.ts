import { configSchema, type Config } from '../../src/config/config-schema.js';

/**
 * The configuration with nothing set: every default from the config schema, the one place
 * defaults are written. Tests that build a driver's parts directly take their limits from here.
 */
export const CONFIG_DEFAULTS: Readonly<Config> = configSchema.parse({});
