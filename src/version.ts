/** This spanscore's version; `test/version.test.ts` keeps it equal to package.json's. */
export const SPANSCORE_VERSION = '0.1.0';
