import fc from 'fast-check';

/**
 * Every test's fast-check draws up to the `maxLength` (or `maxKeys`) it names. fast-check 4's
 * default size ('small') caps an array, a string or a byte array at 10 items past its
 * `minLength` whatever maximum it is given: `uint8Array({ maxLength: 512 })` never drew more than
 * 10 bytes, and a fuzz written to pass a 64-span limit never reached it. With this, a named
 * maximum is the maximum drawn; an arbitrary that names none keeps the small default (a test that
 * wants larger says `size`). Every project runs this before each of its test files (vitest's
 * `setupFiles`). `configureGlobal` replaces what was set: this keeps the rest, and a file that
 * sets its own must keep this too (`fc.readConfigureGlobal()`).
 */
fc.configureGlobal({ ...fc.readConfigureGlobal(), defaultSizeToMaxWhenMaxSpecified: true });
