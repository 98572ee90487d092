import { cutText } from '../../ingest/cut-text.js';
import { dataBlock, neutralizeTags } from './prompt-data.js';

/**
 * What one judge prompt carries of a trace at most, in UTF-16 code units. Traces are untrusted and
 * every character sent is paid for: a trace of 10,000 tool calls with 3 KB arguments and results
 * and a 1 MB request and answer made a 42 MB prompt (about 10 million tokens) before these bounds.
 * docs/llm-scorers.md lists them.
 */
export const JUDGE_PROMPT_BOUNDS = Object.freeze({
  /** The user message in all (the data blocks, their tags and marks; the criteria count too). */
  maxPromptChars: 100_000,
  /** The user request, and the agent's answer, each. */
  maxTextChars: 8_000,
  /** One call's arguments, or its result. */
  maxValueChars: 2_000,
  /**
   * Calls shown: `tool_call_appropriateness` asks a verdict for each, about 40 output tokens (four
   * times an input token's price), and 7,207 one-word calls fitted in the characters alone: an
   * answer near 290,000 tokens, past any model's output limit, so the answer was cut off and invalid.
   */
  maxCalls: 200,
  /** One offered tool's line (its name and description). */
  maxToolLineChars: 500,
  /** The offered tools' block. */
  maxToolsChars: 10_000,
});

/** What a judge prompt left out, as a scorer's result details say it (`details.promptCut`). */
export interface PromptCutSummary {
  /** Texts cut to their bound (a request, an answer, an argument, a result, a tool's line). */
  textsCut: number;
  /** Lists shown in part, by what they list (`tool calls`, `offered tools`). */
  lists: Record<string, { shown: number; total: number }>;
}

/**
 * Cuts the data of one judge prompt to its bounds and counts what it left out, so the result can
 * say the judge saw part of the trace ({@link PromptCuts.summary}, {@link PromptCuts.sentence}).
 * Texts are cut with {@link cutText} and marked with how many characters were left out; lists are
 * rendered an item at a time while they fit, so the items past a bound are never rendered.
 */
export class PromptCuts {
  private textsCut = 0;
  private readonly lists: Record<string, { shown: number; total: number }> = {};

  /** `tags`: the prompt's own, neutralized in each line as its data block will (`dataBlock`). */
  constructor(private readonly tags: readonly string[]) {}

  /** `text` itself, or its first `max` characters and a mark saying how many more there were. */
  text(text: string, max: number): string {
    if (text.length <= max) return text;
    this.textsCut++;
    return `${cutText(text, max)}… [${text.length - max} more characters not shown]`;
  }

  /**
   * A call's arguments or its result as a judge prompt shows it: text as it is, anything else as
   * its JSON, cut to `maxValueChars`; `''` when there is none.
   */
  value(value: unknown): string {
    if (value === undefined) return '';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return this.text(text, JUDGE_PROMPT_BOUNDS.maxValueChars);
  }

  /** The `tag` data block of `text` cut to `maxTextChars`, or of `ifEmpty` when it is empty. */
  textBlock(tag: string, text: string, ifEmpty: string): string {
    return dataBlock(tag, this.text(text, JUDGE_PROMPT_BOUNDS.maxTextChars) || ifEmpty, this.tags);
  }

  /**
   * The `tool_calls` data block: a line a call (`render`), at most `maxCalls` of them and as many
   * as fit in `maxChars` ({@link PromptCuts.lines}), or `(no tool was called)`.
   */
  callsBlock<T>(
    calls: readonly T[],
    render: (call: T, index: number) => string,
    maxChars: number,
  ): string {
    return dataBlock(
      'tool_calls',
      calls.length
        ? this.lines(calls, render, maxChars, 'tool calls', JUDGE_PROMPT_BOUNDS.maxCalls)
        : '(no tool was called)',
      this.tags,
    );
  }

  /**
   * The items rendered a line each while they are at most `maxItems` and the lines, as the data
   * block holds them (`neutralizeTags`), fit in `maxChars` with the line saying how many of
   * `what` were left out, which ends them when any was. How many were shown is what
   * {@link PromptCuts.shown} answers.
   */
  lines<T>(
    items: readonly T[],
    render: (item: T, index: number) => string,
    maxChars: number,
    what: string,
    maxItems = Infinity,
  ): string {
    const out: string[] = [];
    // textsCut before each line shown, to take back the cuts of a line taken back.
    const cutsBefore: number[] = [];
    let used = 0;
    for (const [i, item] of items.entries()) {
      if (i >= maxItems) break;
      const cutBefore = this.textsCut;
      const line = neutralizeTags(render(item, i), this.tags);
      if (used + line.length + 1 > maxChars) {
        this.textsCut = cutBefore; // not shown: its cuts are not the judge's
        break;
      }
      out.push(line);
      cutsBefore.push(cutBefore);
      used += line.length + 1;
    }
    if (out.length < items.length) {
      const note = () =>
        `… ${items.length - out.length} more ${what} not shown (of ${items.length}; the prompt is bounded)`;
      // The note is within maxChars too: the last lines make room for it.
      while (out.length && used + note().length > maxChars) {
        used -= out.pop()!.length + 1;
        this.textsCut = cutsBefore.pop()!;
      }
      this.lists[what] = { shown: out.length, total: items.length };
      out.push(note());
    }
    return out.join('\n');
  }

  /** How many of `total` items of `what` a {@link PromptCuts.lines} call showed. */
  shown(what: string, total: number): number {
    return this.lists[what]?.shown ?? total;
  }

  /** What was left out, or `undefined` when the judge saw everything. */
  summary(): PromptCutSummary | undefined {
    if (this.textsCut === 0 && Object.keys(this.lists).length === 0) return undefined;
    return { textsCut: this.textsCut, lists: { ...this.lists } };
  }

  /** A sentence for the result's reason, or `''` when the judge saw everything. */
  sentence(): string {
    const summary = this.summary();
    if (!summary) return '';
    const parts = Object.entries(summary.lists).map(
      ([what, { shown, total }]) => `${shown} of ${total} ${what} shown`,
    );
    if (summary.textsCut) parts.push(`${summary.textsCut} text(s) cut`);
    return ` (the judge saw part of the trace, its prompt bounded: ${parts.join(', ')})`;
  }
}
