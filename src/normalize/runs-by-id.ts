import { callKey } from './call-key.js';
import { SCAN_LIMIT } from './few-key-map.js';
import type { ToolCall } from './tool-call.js';

/**
 * A trace's runs (the first `runs` of `calls`: its executed calls, merged) by their call ids and
 * canonical names as they are now (`callKey`: a request pairs only with a run of its own tool, as
 * ids may be reused for other tools in later turns), for pairing requests with them
 * (`appendUnmatchedRequests`). Up to `SCAN_LIMIT`
 * runs are scanned where they lie, as a `FewKeyMap` of them would be, without copying their ids
 * and calls into a list of its own (about 240 bytes a trace of ten calls); past it, a `Map` of
 * them, which {@link RunsById.learn} keeps in step when a run takes a request's call id
 * (`absorb`). Of runs sharing an id and name, the last is found, as a map set in order keeps.
 */
export class RunsById {
  readonly #calls: readonly ToolCall[];
  readonly #runs: number;
  readonly #map: Map<string, ToolCall> | undefined;

  constructor(calls: readonly ToolCall[], runs: number) {
    this.#calls = calls;
    this.#runs = runs;
    if (runs <= SCAN_LIMIT) return;
    this.#map = new Map();
    for (let i = 0; i < runs; i++) {
      const c = calls[i]!;
      if (c.callId !== undefined) this.#map.set(callKey(c.callId, c.canonicalName), c);
    }
  }

  /** The run of call id `callId` and canonical name `canonicalName`. */
  get(callId: string, canonicalName: string): ToolCall | undefined {
    if (this.#map) return this.#map.get(callKey(callId, canonicalName));
    const calls = this.#calls;
    for (let i = this.#runs - 1; i >= 0; i--) {
      const c = calls[i]!;
      if (c.callId === callId && c.canonicalName === canonicalName) return c;
    }
    return undefined;
  }

  has(callId: string, canonicalName: string): boolean {
    return this.get(callId, canonicalName) !== undefined;
  }

  /** `run`, one of the runs, may have taken a call id since: it is found by it from now on. */
  learn(run: ToolCall): void {
    if (this.#map && run.callId !== undefined)
      this.#map.set(callKey(run.callId, run.canonicalName), run);
  }
}
