import type OpenAI from 'openai';
import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';
import { JUDGE_DEFAULTS } from '../config/judge-defaults.js';
import { cutText } from '../ingest/cut-text.js';
import type {
  Judge,
  JudgeAnswer,
  JudgeCallGate,
  JudgeRequest,
  JudgeUsage,
} from '../score/llm/judge.js';
import { JUDGE_PROMPT_BOUNDS } from '../score/llm/judge-prompt-cuts.js';
import { boundedFetch } from './bounded-fetch.js';
import { endpointUsage } from './endpoint-usage.js';

/**
 * What one judge call can plausibly be billed for, the ceiling its endpoint's token counts are read
 * within (a count past it is counted at it, and said in `usageProblem`): a finite but huge count
 * (1e300 input tokens) spent the whole day's budget in one answer. Input: `tokensPerPromptChar`
 * tokens for each UTF-16 code unit sent (the messages and the JSON schema, which servers may put
 * in the prompt): a byte-level tokenizer's worst case, one token a UTF-8 byte, a code unit being at
 * most 3 bytes; plus `overheadTokens` for the chat template. Output: `judge.maxOutputTokens`, which
 * each call sends.
 */
export const JUDGE_USAGE_CEILING = Object.freeze({ tokensPerPromptChar: 3, overheadTokens: 256 });

/** Options of {@link createOpenAiJudge}. */
export interface OpenAiJudgeOptions {
  /** Any OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM, LM Studio). @defaultValue `OPENAI_BASE_URL`, else OpenAI */
  baseURL?: string;
  /** @defaultValue `OPENAI_API_KEY` */
  apiKey?: string;
  /** Per-call timeout, the answer's last byte included. @defaultValue 60000 */
  timeoutMs?: number;
  /** Bytes of one answer read at most (see `boundedFetch`). @defaultValue 4 MiB */
  maxResponseBytes?: number;
  /**
   * Retries of 408/409/429/5xx/timeouts by the `openai` client, honouring Retry-After. The
   * BullMQ worker sets 0: its judge queue retries, and pauses on a 429. @defaultValue 3
   */
  maxRetries?: number;
  /**
   * Output tokens one answer may use; a larger `usage.completion_tokens` is counted as this (see
   * {@link JUDGE_USAGE_CEILING}). @defaultValue 1024
   */
  maxOutputTokens?: number;
  /**
   * The request field `maxOutputTokens` is sent in. An endpoint that answers 400 naming it (OpenAI's
   * reasoning models refuse `max_tokens`) is asked again with the other field, which the judge then
   * sends for the rest of the process, saying so once in `log`. @defaultValue `max_tokens`
   */
  maxTokensParameter?: 'max_tokens' | 'max_completion_tokens';
  /** Where the judge says what it changed for the process. @defaultValue a line on stderr */
  log?: (line: string) => void;
}

/** The request fields an output token bound can go in. */
type MaxTokensParameter = 'max_tokens' | 'max_completion_tokens';

/** Characters of an endpoint's error message the judge's own errors quote at most. */
const MAX_QUOTED_CHARS = 500;

/**
 * A {@link Judge} on the `openai` package, temperature 0, at most `maxOutputTokens` an answer (sent
 * in `maxTokensParameter`). Asks for structured output
 * (`response_format: json_schema`, strict); a server that refuses it is asked again in plain JSON
 * mode with the schema in the prompt, and remembered. A 400 naming the max-tokens field is not
 * taken for that: the call is asked again once with the other field (`max_tokens` or
 * `max_completion_tokens`), which is then kept for the process; a 400 naming that one too is
 * `SS_USAGE`, naming `judge.maxTokensParameter`. The answer is validated; an invalid one gets
 * one repair attempt (the model is shown its answer and the error), then `SS_JUDGE_INVALID_OUTPUT`;
 * an answer stopped at `maxOutputTokens` (`finish_reason: 'length'`) that is not valid gets no
 * repair (it would be cut the same way): `SS_JUDGE_INVALID_OUTPUT` naming `judge.maxOutputTokens`.
 * `gate` hears of each call and may refuse the repair (the budget does): the refusal, its code
 * kept, then also says what the first, paid answer was and why it could not be used.
 * Retries with backoff and Retry-After, and the timeout, are the `openai` client's own, on
 * {@link boundedFetch} (the answer's size and arrival bounded, Retry-After at most 60 s); a 429 past
 * them is `SS_JUDGE_RATE_LIMITED` with the server's Retry-After, anything else
 * `SS_JUDGE_UNAVAILABLE`. No cache, cost or rate limit here: the service wraps it with its own.
 */
export function createOpenAiJudge(options: OpenAiJudgeOptions = {}): Judge {
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  if (!apiKey) {
    throw new SpanscoreError(
      'SS_USAGE',
      'the LLM judge needs an API key: set OPENAI_API_KEY (any value for local servers such as Ollama)',
    );
  }
  // The `openai` package (about 150 modules) is loaded on the first call, not with this module:
  // every process that may judge imports this one, and most never call a judge. What its client
  // reads from the environment is read here, when the judge is made, as before. A load that fails
  // is the judge's usual unavailable error, and the next call tries again.
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL;
  const organization = process.env.OPENAI_ORG_ID;
  const project = process.env.OPENAI_PROJECT_ID;
  const timeout = options.timeoutMs ?? JUDGE_DEFAULTS.timeoutMs;
  const settings = {
    apiKey,
    timeout,
    fetch: boundedFetch({
      maxResponseBytes: options.maxResponseBytes ?? JUDGE_DEFAULTS.maxResponseBytes,
      timeoutMs: timeout,
    }),
    maxRetries: options.maxRetries ?? JUDGE_DEFAULTS.maxRetries,
    ...(baseURL && { baseURL }),
    ...(organization && { organization }),
    ...(project && { project }),
  };
  let client: Promise<{ api: typeof OpenAI; client: OpenAI }> | undefined;
  const connect = (): Promise<{ api: typeof OpenAI; client: OpenAI }> =>
    (client ??= import('openai').then(
      ({ default: api }) => ({ api, client: new api(settings) }),
      (error: unknown) => {
        client = undefined;
        throw new SpanscoreError(
          'SS_JUDGE_UNAVAILABLE',
          `the judge's client (the openai package) could not be loaded: ${(error as Error).message}`,
          { cause: error },
        );
      },
    ));
  const maxOutputTokens = options.maxOutputTokens ?? JUDGE_DEFAULTS.maxOutputTokens;
  let maxTokensParameter: MaxTokensParameter =
    options.maxTokensParameter ?? JUDGE_DEFAULTS.maxTokensParameter;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  let switchSaid = false;
  let structuredOutput = true;

  async function complete(
    model: string,
    messages: OpenAI.ChatCompletionMessageParam[],
    request: JudgeRequest<unknown>,
  ): Promise<{
    text: string;
    usage: JudgeUsage;
    model: string;
    usageProblem?: string;
    cut: boolean;
  }> {
    const { api, client } = await connect();
    const schema = JSON.stringify(request.jsonSchema);
    const ask = (format: 'json_schema' | 'plain', parameter: MaxTokensParameter) =>
      client.chat.completions.create({
        model,
        temperature: 0,
        [parameter]: maxOutputTokens,
        messages:
          format === 'plain'
            ? [
                {
                  role: 'system',
                  content: `${request.system}\n\nAnswer with one JSON object only, matching this JSON schema:\n${schema}`,
                },
                ...messages.slice(1),
              ]
            : messages,
        ...(format === 'json_schema' && {
          response_format: {
            type: 'json_schema',
            json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: true },
          },
        }),
      });
    // A 400 naming the max-tokens field (OpenAI's reasoning models refuse `max_tokens`) says
    // nothing of structured output: the call is asked once more with the other field.
    const call = async (format: 'json_schema' | 'plain'): Promise<OpenAI.ChatCompletion> => {
      const parameter = maxTokensParameter;
      try {
        return await ask(format, parameter);
      } catch (error) {
        if (!(error instanceof api.BadRequestError) || !namesMaxTokens(error.message)) throw error;
        const other = parameter === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
        let completion: OpenAI.ChatCompletion;
        try {
          completion = await ask(format, other);
        } catch (again) {
          if (!(again instanceof api.BadRequestError) || !namesMaxTokens(again.message))
            throw again;
          throw new SpanscoreError(
            'SS_USAGE',
            `the judge endpoint refused judge.maxOutputTokens (${maxOutputTokens}) in both request fields (${parameter}: ${JSON.stringify(quote(error.message))}; ${other}: ${JSON.stringify(quote(again.message))}): set judge.maxTokensParameter to the field this endpoint reads, or lower judge.maxOutputTokens if it says the count is too large`,
            { cause: again },
          );
        }
        if (maxTokensParameter === parameter) maxTokensParameter = other;
        if (!switchSaid) {
          switchSaid = true;
          log(
            `spanscore: the judge endpoint refused ${parameter} (${quote(error.message)}): the judge sends ${other} from now on in this process; set judge.maxTokensParameter to ${other} to ask with it at once`,
          );
        }
        return completion;
      }
    };
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await call(structuredOutput ? 'json_schema' : 'plain');
    } catch (error) {
      if (structuredOutput && error instanceof api.BadRequestError) {
        // The server does not do structured output (or not this schema): ask in plain JSON mode.
        structuredOutput = false;
        completion = await call('plain').catch((again: unknown) => unavailable(api, again));
      } else return unavailable(api, error);
    }
    // The schema once: plain mode puts it in the system message, structured output may too.
    let promptChars = schema.length + 64;
    for (const m of messages) promptChars += typeof m.content === 'string' ? m.content.length : 0;
    const { usage, usageProblem } = endpointUsage(completion.usage, {
      input: {
        ceiling:
          promptChars * JUDGE_USAGE_CEILING.tokensPerPromptChar +
          JUDGE_USAGE_CEILING.overheadTokens,
        why: `what ${promptChars} characters of prompt can be`,
      },
      output: { ceiling: maxOutputTokens, why: 'judge.maxOutputTokens' },
    });
    // The endpoint's, untrusted: content that is not text (an object, a number) is read as its JSON.
    const content: unknown = completion.choices[0]?.message.content;
    return {
      text: typeof content === 'string' ? content : (JSON.stringify(content) ?? ''),
      model: completion.model || model,
      usage,
      ...(usageProblem !== undefined && { usageProblem }),
      cut: completion.choices[0]?.finish_reason === 'length',
    };
  }

  return {
    async ask<T>(request: JudgeRequest<T>, gate?: JudgeCallGate): Promise<JudgeAnswer<T>> {
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ];
      const first = await complete(request.model, messages, request);
      await gate?.afterCall(first.usage, first.model);
      let output: T;
      let usage = first.usage;
      let usageProblem = first.usageProblem;
      try {
        output = request.parse(parseJson(first.text));
      } catch (error) {
        // Stopped at the token bound: a repair would be stopped there too, and paid for.
        if (first.cut) throw cutAnswer(request.schemaName, maxOutputTokens, 'first', error);
        // One repair attempt: show the model its answer and what was wrong with it. The budget
        // may refuse it: the first call's cost is already counted, and the refusal says what it
        // bought and why that could not be used.
        await gate
          ?.beforeRepair()
          .catch((refused: unknown) => refusedRepair(refused, first, request.schemaName, error));
        const repair = await complete(
          request.model,
          [
            ...messages,
            // Its answer is the endpoint's, untrusted: sent back cut, not whole.
            { role: 'assistant', content: cutText(first.text, JUDGE_PROMPT_BOUNDS.maxTextChars) },
            {
              role: 'user',
              content: `That answer is not valid: ${(error as Error).message}. Answer again with only the JSON object the schema describes.`,
            },
          ],
          request,
        );
        await gate?.afterCall(repair.usage, repair.model);
        usage = {
          inputTokens: usage.inputTokens + repair.usage.inputTokens,
          outputTokens: usage.outputTokens + repair.usage.outputTokens,
        };
        usageProblem ??= repair.usageProblem;
        try {
          output = request.parse(parseJson(repair.text));
        } catch (again) {
          if (repair.cut) throw cutAnswer(request.schemaName, maxOutputTokens, 'repair', again);
          throw new SpanscoreError(
            'SS_JUDGE_INVALID_OUTPUT',
            `the judge's answer does not match the ${request.schemaName} schema after a repair attempt: ${(again as Error).message}`,
            { cause: again },
          );
        }
      }
      return {
        output,
        model: first.model,
        usage,
        cached: false,
        ...(usageProblem && { usageProblem }),
      };
    },
  };
}

/**
 * The gate's refusal of a repair (`SS_JUDGE_BUDGET_EXHAUSTED`: the scorer is `skipped`), its
 * code kept and its message saying what the first, paid call got: an answer received, its tokens
 * and model, and why it could not be used. Not a `SpanscoreError`: thrown as it is.
 */
function refusedRepair(
  refused: unknown,
  first: { usage: JudgeUsage; model: string },
  schemaName: string,
  invalid: unknown,
): never {
  if (!isSpanscoreError(refused)) throw refused;
  throw new SpanscoreError(
    refused.code,
    `${refused.message}. Its first answer was received and paid for (${first.usage.inputTokens} input and ${first.usage.outputTokens} output tokens, from ${first.model}) but could not be used: it does not match the ${schemaName} schema: ${(invalid as Error).message}`,
    {
      cause: refused,
      ...(refused.retryAfterSeconds !== undefined && {
        retryAfterSeconds: refused.retryAfterSeconds,
      }),
    },
  );
}

/** Whether an endpoint's 400 names a max-tokens request field (either). */
function namesMaxTokens(message: string): boolean {
  return /\bmax_(?:completion_)?tokens\b/.test(message);
}

/** An endpoint's message, cut to {@link MAX_QUOTED_CHARS} (it is the endpoint's, untrusted). */
function quote(message: string): string {
  return message.length > MAX_QUOTED_CHARS
    ? `${cutText(message, MAX_QUOTED_CHARS)}… (${message.length} characters)`
    : message;
}

/** `SS_JUDGE_INVALID_OUTPUT` for an invalid answer the endpoint stopped at `maxOutputTokens`. */
function cutAnswer(
  schemaName: string,
  maxOutputTokens: number,
  which: 'first' | 'repair',
  error: unknown,
): SpanscoreError {
  return new SpanscoreError(
    'SS_JUDGE_INVALID_OUTPUT',
    `the judge's ${which === 'first' ? 'answer' : 'answer to the repair attempt'} was stopped at judge.maxOutputTokens (${maxOutputTokens}) before it was whole (finish_reason 'length'), and does not match the ${schemaName} schema: ${(error as Error).message}. ${which === 'first' ? 'Not repaired: a repair would be stopped there too. ' : ''}Raise judge.maxOutputTokens (a reasoning model spends its reasoning tokens from it too)`,
    { cause: error },
  );
}

function parseJson(text: string): unknown {
  // Some servers wrap JSON in a markdown fence even when asked not to.
  const stripped = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(stripped) as unknown;
  } catch (error) {
    throw new Error(
      `not JSON (${(error as Error).message}): ${JSON.stringify(text.slice(0, 120))}`,
      { cause: error },
    );
  }
}

function unavailable(api: typeof OpenAI, error: unknown): never {
  // boundedFetch's own (an answer too large, or too slow to arrive): they say what happened.
  if (isSpanscoreError(error)) throw error;
  if (error instanceof api.RateLimitError) {
    const retryAfterSeconds = retryAfter(error.headers);
    throw new SpanscoreError(
      'SS_JUDGE_RATE_LIMITED',
      `the judge endpoint answered 429 (rate limited)${retryAfterSeconds === undefined ? '' : `, retry after ${retryAfterSeconds} s`}: ${error.message}`,
      { cause: error, ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) },
    );
  }
  const e = error as Error & { status?: number };
  const what =
    error instanceof api.APIConnectionTimeoutError
      ? 'timed out'
      : e.status
        ? `answered ${e.status}`
        : error instanceof SyntaxError
          ? 'answered with a body that is not JSON'
          : error instanceof api.APIConnectionError
            ? 'could not be reached'
            : 'failed';
  throw new SpanscoreError(
    'SS_JUDGE_UNAVAILABLE',
    `the judge endpoint ${what} after retries: ${quote(e.message)}`,
    { cause: error },
  );
}

/** Seconds the server asked to wait: `boundedFetch` left them as seconds in `retry-after`. */
function retryAfter(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after');
  return value ? Number(value) : undefined;
}
