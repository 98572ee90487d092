import fc from 'fast-check';

/**
 * Tool schemas and argument values for differential tests of a JSON Schema validator: a grammar of
 * what tool schemas use (types, nullable types, objects, arrays and tuples, enum and const, bounds,
 * combinators, local `$ref`s to `$defs` or `definitions`), and values of three kinds: derived
 * from the schema to satisfy it, the same with one mutation (mostly near misses), and JSON
 * generated with no regard to it.
 *
 * Left out on purpose, because validators legitimately read them differently: `format` (an
 * annotation by default since 2019-09, asserted by some), patterns outside a subset every regex
 * engine reads alike ({@link PATTERNS}), fractional `multipleOf` (floating-point division), and
 * property names an object inherits (`toString`, `__proto__`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = boolean | { [key: string]: Json };
export type Draft = 'draft-07' | '2020-12';

/** Property names: plain, with a separator, a space, a non-ASCII letter. None is inherited. */
export const KEYS = ['a', 'b', 'name', 'count', 'tags', 'x-y', 'a b', 'é'] as const;

/**
 * Patterns both RE2 and ECMAScript (`u` flag) read alike: no `.` (RE2's matches `\r` and U+2028),
 * no `\s` (ECMAScript's has Unicode spaces), no `\b`, flags or Unicode classes.
 */
export const PATTERNS = ['^[a-z]+$', '^[0-9]{2,3}$', '[A-Z]', '^(red|green|blue)$', 'ab?c'];

const STRING_UNIT = fc.constantFrom('a', 'b', 'z', 'A', '1', ' ', '-', 'é', '😀');
const str = (min = 0, max = 5) => fc.string({ unit: STRING_UNIT, minLength: min, maxLength: max });
const num = fc.oneof(
  fc.integer({ min: -12, max: 12 }),
  fc.constantFrom(0.5, -1.5, 2.25, 1e3, -1e-3, 3.0000001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const bound = fc.oneof(fc.integer({ min: -10, max: 10 }), fc.constantFrom(-2.5, 0.5, 3.5));

/** JSON with no regard to any schema: small, keys mostly from {@link KEYS}. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ json: Json }>(tie => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    num,
    str(),
    fc.array(tie('json'), { maxLength: 3 }),
    // `__proto__` too: JSON.parse makes it an own key like any other.
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS, '__proto__'), str(1, 3)), tie('json'), {
      maxKeys: 3,
    }),
  ),
})).json;

const smallJson = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), str());
const annotation = fc.constantFrom('a tool argument', 'Ünïcödé', '');

/** Where a subschema sits: its draft, the `$ref`s it may use, how much deeper it may nest. */
interface Place {
  draft: Draft;
  /** Pointers usable anywhere: definitions before this one (no cycle without data between). */
  refs: string[];
  /** Pointers usable only below a keyword that moves into the data (self, root). */
  cyclic: string[];
  /** Below `properties`, `items`…: a cycle through here consumes the value, so it ends. */
  consumed: boolean;
  depth: number;
}

const MAX_DEPTH = 3;
const deeper = (p: Place, consumed = p.consumed): Place => ({ ...p, consumed, depth: p.depth + 1 });

/** `arb`'s value one time in four, else `undefined`. */
function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, arb);
}

/** `[low, high]`, low ≤ high, from `arb`. */
function ordered(arb: fc.Arbitrary<number>): fc.Arbitrary<[number, number]> {
  return fc.tuple(arb, arb).map(([x, y]) => (x <= y ? [x, y] : [y, x]));
}

function stringSchema(): fc.Arbitrary<Schema> {
  const description = fc.option(annotation, { nil: undefined });
  return fc.oneof(
    fc
      .record({ range: ordered(fc.nat(6)), use: fc.nat(3), description })
      .map(({ range: [min, max], use, description }) => ({
        type: 'string',
        ...(use & 1 && { minLength: min }),
        ...(use & 2 && { maxLength: max }),
        ...(description !== undefined && { description }),
      })),
    fc.constantFrom(...PATTERNS).map(pattern => ({ type: 'string', pattern })),
  );
}

function numberSchema(): fc.Arbitrary<Schema> {
  return fc
    .record({
      type: fc.constantFrom('number', 'integer'),
      range: ordered(bound),
      // Each bound absent, inclusive or exclusive.
      low: fc.nat(2),
      high: fc.nat(2),
      multipleOf: rarely(fc.constantFrom(1, 2, 3)),
      // An annotation: never a verdict.
      default: rarely(smallJson),
    })
    .map(({ type, range: [min, max], low, high, multipleOf, default: dflt }) => ({
      type,
      ...(low === 1 && { minimum: min }),
      ...(low === 2 && { exclusiveMinimum: min }),
      ...(high === 1 && { maximum: max }),
      ...(high === 2 && { exclusiveMaximum: max }),
      ...(multipleOf !== undefined && { multipleOf }),
      ...(dflt !== undefined && { default: dflt }),
    }));
}

const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'];
const ALL_TYPES = [...SCALAR_TYPES, 'object', 'array'];

function leaf(p: Place): fc.Arbitrary<Schema> {
  const leaves: Array<fc.WeightedArbitrary<Schema>> = [
    { weight: 3, arbitrary: fc.constantFrom(...ALL_TYPES).map(type => ({ type })) },
    {
      weight: 2,
      arbitrary: fc
        .uniqueArray(fc.constantFrom(...ALL_TYPES), { minLength: 1, maxLength: 3 })
        .map(type => ({ type })),
    },
    { weight: 3, arbitrary: stringSchema() },
    { weight: 3, arbitrary: numberSchema() },
    {
      weight: 2,
      arbitrary: fc
        .uniqueArray(fc.oneof(smallJson, anyJson), {
          minLength: 1,
          maxLength: 4,
          selector: v => JSON.stringify(v),
        })
        .map(values => ({ enum: values })),
    },
    { weight: 1, arbitrary: fc.oneof(smallJson, anyJson).map(value => ({ const: value })) },
    // Bounds with no type: they apply to their own type only.
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.record({ minLength: fc.nat(3) }),
        fc.record({ minimum: bound }),
        fc.record({ maxItems: fc.nat(2) }),
        fc.record({ required: fc.subarray([...KEYS], { minLength: 1, maxLength: 2 }) }),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom<Schema>(true, {}, { description: 'anything' }) },
    { weight: 1, arbitrary: fc.constant(false) },
  ];
  const refs = p.consumed ? [...p.refs, ...p.cyclic] : p.refs;
  if (refs.length)
    leaves.push({
      weight: 4,
      // draft-07 ignores what sits beside a `$ref` (Ajv applies it): annotations only there;
      // 2020-12 applies it.
      arbitrary: fc.record(
        {
          $ref: fc.constantFrom(...refs),
          description: annotation,
          ...(p.draft === '2020-12' && { type: fc.constantFrom(...ALL_TYPES) }),
        },
        { requiredKeys: ['$ref'] },
      ),
    });
  return fc.oneof(...leaves);
}

function objectSchema(p: Place): fc.Arbitrary<Schema> {
  const inner = deeper(p, true);
  return fc
    .record({
      properties: fc.dictionary(fc.constantFrom(...KEYS), schema(inner), {
        maxKeys: 4,
        noNullPrototype: true,
      }),
      // Mostly among the properties, as tool schemas have them; sometimes not.
      others: rarely(fc.subarray([...KEYS], { minLength: 1, maxLength: 2 })),
      additionalProperties: fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.boolean() },
        { weight: 1, arbitrary: schema(inner) },
      ),
      typed: fc.nat(3),
      description: rarely(annotation),
    })
    .chain(({ properties, others, additionalProperties, typed, description }) =>
      fc.subarray(Object.keys(properties)).map(required => ({
        ...(typed > 0 && { type: 'object' }),
        properties,
        ...((required.length || others) && {
          required: [...new Set([...required, ...(others ?? [])])],
        }),
        ...(additionalProperties !== undefined && { additionalProperties }),
        ...(description !== undefined && { description }),
      })),
    );
}

function arraySchema(p: Place): fc.Arbitrary<Schema> {
  const inner = deeper(p, true);
  const common = fc.record({
    type: fc.constant('array'),
    range: ordered(fc.nat(4)),
    use: fc.nat(3),
    uniqueItems: rarely(fc.boolean()),
  });
  const tuple = fc.array(schema(inner), { minLength: 1, maxLength: 3 });
  const items =
    p.draft === '2020-12'
      ? fc.oneof(
          schema(inner).map(items => ({ items })),
          fc
            .tuple(tuple, rarely(fc.oneof(fc.constant(false), schema(inner))))
            .map(([prefixItems, items]) => ({
              prefixItems,
              ...(items !== undefined && { items }),
            })),
        )
      : fc.oneof(
          schema(inner).map(items => ({ items })),
          fc
            .tuple(tuple, rarely(fc.oneof(fc.boolean(), schema(inner))))
            .map(([items, additionalItems]) => ({
              items,
              ...(additionalItems !== undefined && { additionalItems }),
            })),
        );
  return fc.tuple(common, items).map(([{ type, range, use, uniqueItems }, items]) => ({
    type,
    ...items,
    ...(use & 1 && { minItems: range[0] }),
    ...(use & 2 && { maxItems: range[1] }),
    ...(uniqueItems !== undefined && { uniqueItems }),
  }));
}

function combinator(p: Place): fc.Arbitrary<Schema> {
  const branches = fc.array(schema(deeper(p)), { minLength: 1, maxLength: 3 });
  return fc.oneof(
    branches.map(anyOf => ({ anyOf })),
    branches.map(oneOf => ({ oneOf })),
    // A wrapper (Pydantic's `allOf: [{$ref}]`), or object fragments merged.
    schema(deeper(p)).map(s => ({ allOf: [s] })),
    fc.array(objectSchema(deeper(p)), { minLength: 2, maxLength: 3 }).map(allOf => ({ allOf })),
    schema(deeper(p)).map(not => ({ not })),
    // Nullable as OpenAI's strict mode and Pydantic write it.
    schema(deeper(p)).map(s => ({ anyOf: [s, { type: 'null' }] })),
    fc.tuple(objectSchema(deeper(p)), fc.boolean()).map(([s, inOrder]) => ({
      ...(s as object),
      type: inOrder ? ['object', 'null'] : ['null', 'object'],
    })),
  );
}

// Arbitraries by place: each is built once (building one builds all it may nest).
const schemas = new Map<string, fc.Arbitrary<Schema>>();

/** A subschema at `p`. */
function schema(p: Place): fc.Arbitrary<Schema> {
  const key = JSON.stringify(p);
  let arb = schemas.get(key);
  if (!arb) {
    arb =
      p.depth >= MAX_DEPTH
        ? leaf(p)
        : fc.oneof(
            { weight: 5, arbitrary: leaf(p) },
            { weight: 2, arbitrary: objectSchema(p) },
            { weight: 1, arbitrary: arraySchema(p) },
            { weight: 2, arbitrary: combinator(p) },
          );
    schemas.set(key, arb);
  }
  return arb;
}

/**
 * A tool's parameters schema in `draft`: mostly an object, with up to three definitions, each
 * able to refer to those before it anywhere and to itself or the root below a property or item.
 */
export function toolSchema(draft: Draft): fc.Arbitrary<Schema> {
  return fc
    .record({
      count: fc.nat(3),
      container:
        draft === '2020-12' ? fc.constant('$defs') : fc.constantFrom('definitions', '$defs'),
      declared: fc.boolean(),
      id: fc.boolean(),
    })
    .chain(({ count, container, declared, id }) => {
      const names = Array.from({ length: count }, (_, i) => `d${i}`);
      const pointer = (name: string) => `#/${container}/${name}`;
      const defs = names.map((name, i) =>
        schema({
          draft,
          refs: names.slice(0, i).map(pointer),
          cyclic: [pointer(name), '#'],
          consumed: false,
          depth: 1,
        }),
      );
      const rootPlace: Place = {
        draft,
        refs: names.map(pointer),
        cyclic: ['#'],
        consumed: false,
        depth: 0,
      };
      const root = fc.oneof({ weight: 4, arbitrary: objectSchema(rootPlace) }, schema(rootPlace));
      return fc.tuple(root, ...defs).map(([body, ...definitions]) => {
        const out: Record<string, Json> = {};
        if (draft === '2020-12') out.$schema = 'https://json-schema.org/draft/2020-12/schema';
        else if (declared) out.$schema = 'http://json-schema.org/draft-07/schema#';
        if (id) out.$id = 'https://example.com/tools/search.json';
        if (definitions.length)
          out[container] = Object.fromEntries(definitions.map((d, i) => [names[i]!, d as Json]));
        return typeof body === 'boolean' ? { ...out, not: !body } : { ...out, ...body };
      });
    });
}

type SchemaObject = { [key: string]: Json };

/** The subschema a local `$ref` (`#` or `#/a/b`) points at, in `root`. */
function resolve(root: Schema, ref: string): Schema {
  let at: Json = root;
  for (const segment of ref.slice(2).split('/').filter(Boolean))
    at = (at as SchemaObject)[decodeURIComponent(segment)]!;
  return at as Schema;
}

/** `allOf`'s branches as one schema: the first alone, or object fragments' properties merged. */
function merged(branches: Schema[]): Schema {
  if (branches.length === 1) return branches[0]!;
  const objects = branches.filter((b): b is SchemaObject => typeof b === 'object');
  return {
    type: 'object',
    properties: Object.assign({}, ...objects.map(b => b.properties ?? {})) as SchemaObject,
    required: [...new Set(objects.flatMap(b => (b.required ?? []) as string[]))],
  };
}

function typesOf(s: SchemaObject): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type as string[];
  if ('properties' in s || 'required' in s) return ['object'];
  if ('items' in s || 'prefixItems' in s || 'maxItems' in s) return ['array'];
  if ('minLength' in s || 'pattern' in s) return ['string'];
  if ('minimum' in s) return ['number'];
  return [];
}

/**
 * Values meant to satisfy `s` (in `root`): as a generator of test data would write them, each
 * constraint read on its own. Best effort: `allOf` merges object fragments, and `not` or an
 * unsatisfiable combination gets values that fail, which the validators then judge.
 */
export function valueOf(s: Schema, root: Schema, fuel = 6): fc.Arbitrary<Json> {
  if (typeof s === 'boolean' || fuel <= 0) return anyJson;
  if (typeof s.$ref === 'string') return valueOf(resolve(root, s.$ref), root, fuel - 1);
  if ('const' in s) return fc.constant(s.const!);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map(b => valueOf(b, root, fuel - 1)));
  if (Array.isArray(s.allOf)) return valueOf(merged(s.allOf as Schema[]), root, fuel - 1);
  if ('not' in s) return anyJson;
  const types = typesOf(s);
  if (!types.length) return anyJson;
  return fc.oneof(...types.map(type => valueOfType(type, s, root, fuel)));
}

function valueOfType(
  type: string,
  s: SchemaObject,
  root: Schema,
  fuel: number,
): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const minLength = (s.minLength as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, (s.maxLength as number | undefined) ?? minLength + 4);
      if (typeof s.pattern === 'string')
        return fc.stringMatching(new RegExp(s.pattern), { size: 'xsmall' });
      return str(minLength, maxLength);
    }
    case 'number':
    case 'integer':
      return numberIn(s, type === 'integer');
    case 'object':
      return objectOf(s, root, fuel);
    case 'array':
      return arrayOf(s, root, fuel);
    default:
      return anyJson;
  }
}

function numberIn(s: SchemaObject, integer: boolean): fc.Arbitrary<Json> {
  const low = Math.max(
    (s.minimum as number | undefined) ?? -20,
    ((s.exclusiveMinimum as number | undefined) ?? -21) + 0.5,
  );
  const high = Math.min(
    (s.maximum as number | undefined) ?? 20,
    ((s.exclusiveMaximum as number | undefined) ?? 21) - 0.5,
  );
  const step = (s.multipleOf as number | undefined) ?? 1;
  const [from, to] = [Math.ceil(low / step), Math.floor(high / step)];
  const whole = from <= to ? fc.integer({ min: from, max: to }).map(k => k * step) : num;
  if (integer || s.multipleOf !== undefined || low > high) return whole;
  return fc.oneof(whole, fc.double({ min: low, max: high, noNaN: true }));
}

function objectOf(s: SchemaObject, root: Schema, fuel: number): fc.Arbitrary<Json> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = (s.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const key of Object.keys(properties)) model[key] = valueOf(properties[key]!, root, fuel - 1);
  for (const key of required) model[key] ??= smallJson;
  const known = fc.record(model, { requiredKeys: required });
  if (s.additionalProperties === false) return known;
  const rest = KEYS.filter(k => !(k in model));
  const extra =
    typeof s.additionalProperties === 'object'
      ? valueOf(s.additionalProperties as Schema, root, fuel - 1)
      : smallJson;
  return fc
    .tuple(known, fc.dictionary(fc.constantFrom('zz', ...rest), extra, { maxKeys: 1 }))
    .map(([own, more]) => ({ ...more, ...own }));
}

function arrayOf(s: SchemaObject, root: Schema, fuel: number): fc.Arbitrary<Json> {
  const tuple = (
    Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []
  ) as Schema[];
  const restSchema = (Array.isArray(s.items) ? s.additionalItems : s.items) as Schema | undefined;
  const minItems = (s.minItems as number | undefined) ?? 0;
  const maxItems = Math.max(minItems, (s.maxItems as number | undefined) ?? minItems + 2);
  const head = fc.tuple(...tuple.map(t => valueOf(t, root, fuel - 1)));
  const rest =
    restSchema === false
      ? fc.constant([])
      : fc.array(
          restSchema === undefined || restSchema === true
            ? smallJson
            : valueOf(restSchema, root, fuel - 1),
          { maxLength: Math.max(0, maxItems - tuple.length) },
        );
  return fc.tuple(head, rest).map(([h, r]) => {
    const items = [...h, ...r].slice(0, Math.max(maxItems, tuple.length));
    if (s.uniqueItems !== true) return items;
    const seen = new Set<string>();
    return items.filter(v => !seen.has(JSON.stringify(v)) && !!seen.add(JSON.stringify(v)));
  });
}

/**
 * `value` with one change at one of its nodes (`at` picks it, `how` picks the change): another
 * type, a key removed or added, a number or a length moved past a likely bound. Mostly a near
 * miss of the schema the value was derived from; sometimes still valid.
 */
export function mutate(value: Json, at: number, how: number): Json {
  const nodes: Array<{ node: Json; replace: (v: Json) => void }> = [];
  let out: Json = structuredClone(value);
  const walk = (node: Json, replace: (v: Json) => void) => {
    nodes.push({ node, replace });
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, w => (node[i] = w)));
    else if (node !== null && typeof node === 'object')
      for (const key of Object.keys(node)) walk(node[key]!, w => (node[key] = w));
  };
  walk(out, v => (out = v));
  const { node, replace } = nodes[at % nodes.length]!;
  const other: Json[] = ['1', 1, 1.5, true, null, [], {}];
  if (how % 3 === 0) replace(other[how % other.length]!);
  else if (typeof node === 'number') replace(node + [1, -1, 0.5, 100, -100][how % 5]!);
  else if (typeof node === 'string') replace(how % 2 ? `${node}xY9` : node.slice(1));
  else if (Array.isArray(node)) {
    if (how % 2 && node.length) node.push(node[0]!);
    else node.pop();
  } else if (node !== null && typeof node === 'object') {
    const keys = Object.keys(node);
    if (how % 2 && keys.length) delete node[keys[how % keys.length]!];
    else node[KEYS[how % KEYS.length]!] = other[how % other.length]!;
  } else replace(other[(how + 1) % other.length]!);
  return out;
}
