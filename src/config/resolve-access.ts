import type { Config } from './config-schema.js';

/** Who may do what on the serve port, as the configuration says. */
export interface AccessPolicy {
  /** Tokens for `POST /v1/traces`, `/v1/logs` and `/v1/metrics`; empty: ingest is open. */
  ingestTokens: readonly string[];
  /** Tokens for `/api/v1`; empty: the results API needs none (see `loopbackOnly`). */
  readTokens: readonly string[];
  /**
   * The results page and API answer loopback clients only: the service listens on a non-loopback
   * address, no read token is set and `results.public` is off.
   */
  loopbackOnly: boolean;
  /** What start-up should say about it, one line each. */
  notes: string[];
}

/**
 * The access policy of a config: ingest tokens (`receiver.authTokens`, plus the single
 * `receiver.authToken` of earlier releases), read tokens (`results.readTokens`; the single token
 * too when none is set, as before scopes existed), and whether results are kept to loopback
 * clients. Pure.
 */
export function resolveAccess(config: Readonly<Config>): AccessPolicy {
  const legacy = config.receiver.authToken;
  const ingestTokens = [...config.receiver.authTokens, ...(legacy ? [legacy] : [])];
  const readTokens = [...config.results.readTokens];
  const notes: string[] = [];
  if (legacy && readTokens.length === 0) {
    readTokens.push(legacy);
    notes.push(
      'spanscore: receiver.authToken (SPANSCORE_AUTH_TOKEN) is both the ingest and the read token: set SPANSCORE_INGEST_TOKENS and SPANSCORE_READ_TOKENS to give agents a token that cannot read results',
    );
  }
  const loopbackOnly =
    readTokens.length === 0 && !config.results.public && !isLoopbackHost(config.receiver.host);
  if (loopbackOnly)
    notes.push(
      `spanscore: the results page and API answer loopback clients only (listening on ${config.receiver.host} with no read token): set SPANSCORE_READ_TOKENS (results.readTokens), or results.public: true (SPANSCORE_RESULTS_PUBLIC=true) to serve them to anyone`,
    );
  return { ingestTokens, readTokens, loopbackOnly, notes };
}

/** A listen address or host name only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
