/**
 * The most of an error text read for a summary: the rest is never looked at, so the work on an
 * untrusted text is bounded (each step below is linear in what is read).
 */
const MAX_READ = 16_384;

/** The most schema issues named; the rest are counted. */
const MAX_ISSUES = 3;

/** The most issue lists tried in one text (an `[` opening a list of objects, parsed as JSON). */
const MAX_LISTS = 4;

/**
 * A tool call's error text as one line for a reason, at most `maxLength` characters (and the `…`).
 * A schema's issue list (zod's JSON issues, as the AI SDK, MCP servers and agent loops print them;
 * Mastra's `- path: message` lines; `message at path` lines) becomes
 * `invalid input: /amount expected number, /to is required` (`invalid output: …` for a check of
 * what the tool returned).
 * Any other text is cut at a word boundary outside quotes, so a reason never stops inside a
 * quoted JSON string. Reads at most the first 16 KiB of the text.
 *
 * @example
 * ```ts
 * summarizeError('Invalid input for tool convert_currency: … Error message: [{"code":"invalid_type","expected":"number","path":["amount"],"message":"…"}]');
 * // 'invalid input: /amount expected number'
 * ```
 */
export function summarizeError(text: string, maxLength = 200): string {
  const read = text.length > MAX_READ ? text.slice(0, MAX_READ) : text;
  const issues = issueList(read) ?? issueLines(read);
  if (issues !== undefined) {
    const what = OUTPUT_CHECK.test(read.slice(0, 1000)) ? 'output' : 'input';
    return clip(`invalid ${what}: ${issues}`, maxLength, false);
  }
  return clip(read, maxLength, read.length < text.length);
}

/** A check of what a tool returned (Mastra's `Tool output validation failed`), not of its input. */
const OUTPUT_CHECK = /\boutput validation\b|\binvalid output\b/i;

/** One issue of a schema check, as zod (3 and 4) and most validators report it. */
interface Issue {
  path: string;
  message: string;
}

// The first JSON array of issue objects in the text, formatted; undefined when there is none.
function issueList(text: string): string | undefined {
  let from = 0;
  for (let tries = 0; tries < MAX_LISTS; tries++) {
    const open = nextListOfObjects(text, from);
    if (open < 0) return undefined;
    const close = matchingBracket(text, open);
    if (close < 0) return undefined;
    const issues = asIssues(parseJson(text.slice(open, close + 1)));
    if (issues) return formatIssues(issues);
    from = close + 1;
  }
  return undefined;
}

// The index of the next `[` whose first non-space character inside is `{`, else -1.
function nextListOfObjects(text: string, from: number): number {
  for (let i = text.indexOf('[', from); i >= 0; i = text.indexOf('[', i + 1)) {
    let j = i + 1;
    while (j < text.length && /\s/.test(text[j]!)) j++;
    if (text[j] === '{') return i;
  }
  return -1;
}

// The `]` closing the `[` at `open`, brackets inside JSON strings ignored; -1 when unclosed.
function matchingBracket(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return c === ']' ? i : -1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// Zod's issues (`{code, path: [...], message, expected?, received?}`), or undefined.
function asIssues(value: unknown): Issue[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const issues: Issue[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { path, message, expected, received } = item as Record<string, unknown>;
    if (!Array.isArray(path) || typeof message !== 'string') return undefined;
    issues.push({
      path: pointer(path.map(p => String(p))),
      message:
        typeof expected === 'string' && typeof received === 'string'
          ? `Expected ${expected}, received ${received}`
          : message,
    });
  }
  return issues;
}

/**
 * Issues written one to a line, in a text that says it reports a validation: Mastra's
 * `- amount: Invalid input: expected number, received string`, the MCP SDK's
 * `Invalid input: expected number, received string at amount`, zod's pretty form (`✖ message`
 * then `→ at path`).
 */
function issueLines(text: string): string | undefined {
  if (!VALIDATION.test(text.slice(0, 1000))) return undefined;
  const lines = text.split('\n', MAX_LINES);
  const issues: Issue[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim().slice(0, 1000);
    if (line.startsWith('- ')) {
      const colon = line.indexOf(': ');
      if (colon > 2) {
        const path = line.slice(2, colon);
        issues.push({
          path: pointer(path === 'root' ? [] : path.split('.')),
          message: line.slice(colon + 2),
        });
      }
      continue;
    }
    if (line.startsWith('✖ ')) {
      const at = /^→ at (\S{1,200})$/.exec(lines[i + 1]?.trim() ?? '');
      issues.push({ path: pointer(at ? at[1]!.split('.') : []), message: line.slice(2) });
      if (at) i++;
      continue;
    }
    const at = line.lastIndexOf(' at ');
    const path = at > 0 ? line.slice(at + 4) : '';
    const start = at > 0 && PATH.test(path) ? ISSUE_START.exec(line.slice(0, at)) : null;
    if (start)
      issues.push({ path: pointer(path.split('.')), message: line.slice(start.index, at) });
  }
  return issues.length ? formatIssues(issues) : undefined;
}

const MAX_LINES = 100;
const VALIDATION = /validation|invalid arguments|did not match expected schema/i;
const PATH = /^[\w$.[\]-]{1,200}$/;
const ISSUE_START = /Invalid input|Expected |Required|Too (?:big|small)|Unrecognized/;

// `["items", 0, "id"]` → `/items/0/id`; the root is `/`.
function pointer(path: readonly string[]): string {
  const parts = path.filter(p => p !== '');
  return parts.length ? `/${parts.join('/')}` : '/';
}

function formatIssues(issues: readonly Issue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map(i => `${i.path} ${describeIssue(i.message)}`);
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join(', ')}, +${more} more` : shown.join(', ');
}

// Zod's messages in a few words: `Invalid input: expected number, received string` → `expected
// number`; a missing value → `is required`.
function describeIssue(message: string): string {
  const text = message.replace(/\s+/g, ' ').trim();
  const typed = /^(?:Invalid input: )?expected ([\w ]{1,64}), received ([\w ]{1,64})$/i.exec(text);
  if (typed) return typed[2] === 'undefined' ? 'is required' : `expected ${typed[1]}`;
  if (text === 'Required') return 'is required';
  const stripped = text.replace(/^Invalid input: /, '');
  const rest = /^[A-Z][a-z]/.test(stripped)
    ? stripped[0]!.toLowerCase() + stripped.slice(1)
    : stripped;
  if (rest.length <= 80) return rest;
  const space = rest.lastIndexOf(' ', 80);
  return `${rest.slice(0, space > 0 ? space : 80)}…`;
}

/**
 * The text on one line, at most `maxLength` characters plus `…`: cut at the last space outside a
 * JSON string (before the string when the cut falls inside one), without a trailing `:`, `,` or
 * opening bracket. `more` says the text went on past what was read.
 */
function clip(text: string, maxLength: number, more: boolean): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxLength) return more ? `${flat}…` : flat;
  let inString = false;
  let stringStart = -1;
  let lastBreak = -1;
  for (let i = 0; i <= maxLength; i++) {
    const c = flat[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      stringStart = i;
    } else if (c === ' ') lastBreak = i;
  }
  let cut = lastBreak > 0 ? lastBreak : inString && stringStart > 0 ? stringStart : maxLength;
  if (inString && stringStart > 0 && stringStart < cut) cut = stringStart;
  const kept = flat.slice(0, cut).replace(/[\s,:;([{]+$/, '');
  return `${kept || flat.slice(0, maxLength)}…`;
}
