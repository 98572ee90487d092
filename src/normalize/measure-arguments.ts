import { isRecord } from './attribute-values.js';
import { hasOwnKey } from './has-own-key.js';

/** The bounds a call's arguments are measured against. */
export interface ArgumentBounds {
  /** Values (the root, each item, each property's value), at most. */
  maxNodes: number;
  /** Nesting, at most. */
  maxDepth: number;
  /** Characters of strings and keys, at most. */
  maxChars: number;
}

/** What {@link measureArguments} found, counted up to just past a bound. */
export interface ArgumentsSize {
  /** Values reached: at most `maxNodes + 1`, and at most the steps it was given. */
  nodes: number;
  depth: number;
  chars: number;
  /** A bound was passed (the walk stopped there): too large to check. */
  pastBounds: boolean;
  /**
   * The walk used every step it was given before it could tell: the arguments are neither
   * known within the bounds nor past them.
   */
  outOfSteps: boolean;
}

/**
 * Measures a call's arguments against `bounds` before they are validated: a step per value
 * reached, stopped at the first bound passed or at `steps` values, whichever comes first, so it
 * costs at most `min(bounds.maxNodes + 1, steps)` values whatever the arguments hold (each array's
 * items and object's keys are taken one at a time; the walk stops mid-array). Its steps
 * (`nodes`) are charged to the call's, and so the trace's, checking budget. Iterative: no input
 * can overflow the stack. Pure.
 */
export function measureArguments(
  value: unknown,
  bounds: ArgumentBounds,
  steps: number,
): ArgumentsSize {
  let nodes = 0;
  let deepest = 0;
  let chars = 0;
  let pastBounds = false;
  let outOfSteps = false;
  const stack: Array<[unknown, number]> = [];
  // Counts one value; false once the walk must stop.
  const reach = (v: unknown, depth: number): boolean => {
    if (nodes >= steps) {
      outOfSteps = true;
      return false;
    }
    nodes++;
    if (depth > deepest) deepest = depth;
    if (typeof v === 'string') chars += v.length;
    if (nodes > bounds.maxNodes || deepest > bounds.maxDepth || chars > bounds.maxChars) {
      pastBounds = true;
      return false;
    }
    if (Array.isArray(v) || isRecord(v)) stack.push([v, depth]);
    return true;
  };
  let going = reach(value, 0);
  while (going && stack.length) {
    const [v, depth] = stack.pop()!;
    if (Array.isArray(v)) {
      for (const item of v) if (!(going = reach(item, depth + 1))) break;
      continue;
    }
    const object = v as Record<string, unknown>;
    for (const key in object) {
      if (!hasOwnKey(object, key)) continue;
      chars += key.length;
      if (!(going = reach(object[key], depth + 1))) break;
    }
  }
  return { nodes, depth: deepest, chars, pastBounds, outOfSteps };
}
