/**
 * The fast yes for answers (src/client/_accept.ts) must never say yes where zod would say no, or
 * where zod's output would differ from the answer as it is. Checked on every kind of schema part
 * it compiles, over values built around valid answers and mutated at random, and on the
 * geocoding answer it exists for.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accepter } from '../../src/client/_accept.js';
import { check } from '../../src/client/_parse.js';
import * as contract from '../../src/contract/index.js';
import { ResponseError } from '../../src/errors.js';

const MATCH = {
  type: 'FeatureCollection',
  bbox: [6.5783, 49.6667, 6.5783, 49.6667],
  features: [
    {
      type: 'Feature',
      bbox: [6.5783, 49.6667, 6.5783, 49.6667],
      geometry: { type: 'Point', coordinates: [6.5783, 49.6667] },
      properties: {
        description: '54441 Kanzem, Rheinland-Pfalz',
        city: 'Kanzem',
        country: 'Deutschland',
        isoCountry: 'DE',
        district: 'Rheinland-Pfalz',
        cityAddon: '',
        cityPart: '',
        houseNo: '',
        street: '',
        zip: '54441',
        matchLevel: 'ZIP',
      },
    },
  ],
};
const NO_MATCH = {
  type: 'FeatureCollection',
  features: [],
  properties: { exception: { errCode: 'NO_RESULT', publicReport: 'Die Adresse wurde nicht gefunden.' } },
};

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REPLACEMENTS: readonly (() => unknown)[] = [
  () => null,
  () => undefined,
  () => '',
  () => 'x',
  () => 0,
  () => -1.5,
  () => Number.POSITIVE_INFINITY,
  () => Number.NaN,
  () => true,
  () => [],
  () => [1, 2],
  () => ({}),
  () => ({ type: 'Point', coordinates: [1, 2] }),
  () => JSON.parse('{"__proto__": {"x": 1}, "type": "Point"}'),
  () => new Date(0),
  () => Object.create(null),
];

/** `value` with one place inside it (or itself) replaced, a key deleted or an unknown key added. */
function mutate(value: unknown, next: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  if (value === null || typeof value !== 'object' || next() < 0.25) {
    return (pick(REPLACEMENTS) as () => unknown)();
  }
  if (Array.isArray(value)) {
    const copy = [...value];
    if (copy.length === 0 || next() < 0.2) copy.push(mutate(undefined, next));
    else {
      const i = Math.floor(next() * copy.length);
      copy[i] = mutate(copy[i], next);
    }
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const roll = next();
  if (roll < 0.1) copy[`extra${Math.floor(next() * 3)}`] = mutate(undefined, next);
  else if (roll < 0.2 && keys.length > 0) delete copy[pick(keys)];
  else if (keys.length > 0) {
    const key = pick(keys);
    copy[key] = mutate(copy[key], next);
  }
  return copy;
}

/** Every yes must be zod's yes with an output equal to the input; returns how many yeses. */
function soundOver(schema: z.ZodType, bases: readonly unknown[], rounds: number, seed: number): number {
  const accept = accepter(schema);
  if (accept === undefined) throw new Error('the schema did not compile');
  const next = random(seed);
  let yes = 0;
  for (let i = 0; i < rounds; i++) {
    let value = bases[i % bases.length];
    const depth = Math.floor(next() * 3);
    for (let d = 0; d < depth; d++) value = mutate(value, next);
    if (!accept(value)) continue;
    yes++;
    const parsed = schema.safeParse(value);
    expect(parsed.success, JSON.stringify(value)).toBe(true);
    expect(parsed.data).toStrictEqual(value);
  }
  return yes;
}

/** A small valid value of a schema made of the parts the predicate compiles. */
function validValue(schema: z.ZodType): unknown {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  const inner = (key: string) => validValue(def[key] as z.ZodType);
  switch (def.type) {
    case 'string':
      return 'x';
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'null':
    case 'unknown':
    case 'any':
      return null;
    case 'literal':
      return (def.values as unknown[])[0];
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'nullable':
    case 'optional':
    case 'default':
      return inner('innerType');
    case 'array':
      return [inner('element'), inner('element')];
    case 'tuple':
      return (def.items as z.ZodType[]).map(validValue);
    case 'union':
      return validValue((def.options as z.ZodType[])[0] as z.ZodType);
    case 'object':
      return Object.fromEntries(
        Object.entries(def.shape as Record<string, z.ZodType>).map(([key, part]) => [key, validValue(part)]),
      );
    default:
      throw new Error(`no valid value for a ${def.type}`);
  }
}

describe('accepter', () => {
  it('says yes to the usual geocoding answers, and only where zod gives back the answer as it is', () => {
    const schema = contract.geocodeResponseSchema;
    const accept = accepter(schema);
    expect(accept?.(MATCH)).toBe(true);
    expect(accept?.(NO_MATCH)).toBe(true);
    const yes = soundOver(schema, [MATCH, NO_MATCH], 4000, 17);
    // Mutations keep many answers valid: the fast path is taken, not just sound.
    expect(yes).toBeGreaterThan(400);
  });

  it('is sound on every answer schema of the contract that compiles, from a valid value of each', () => {
    const schemas = Object.entries(contract).filter(([, v]) => v instanceof z.ZodType) as [
      string,
      z.ZodType,
    ][];
    const compiled = schemas.filter(([, schema]) => accepter(schema) !== undefined);
    expect(compiled.map(([name]) => name)).toContain('geocodeResponseSchema');
    for (const [name, schema] of compiled) {
      // A valid value built from the schema itself: the predicate must take it, so the mutations
      // around it explore both sides of the line for this schema, not only rejections.
      const base = validValue(schema);
      expect(schema.safeParse(base).success, name).toBe(true);
      expect(accepter(schema)?.(base), name).toBe(true);
      expect(soundOver(schema, [base], 1500, name.length), name).toBeGreaterThan(0);
    }
  });

  it('follows zod on each kind of part, and leaves to zod what would change the value', () => {
    const cases: [z.ZodType, unknown, boolean][] = [
      [z.string(), 'a', true],
      [z.string(), 1, false],
      [z.number(), 1.5, true],
      [z.number(), Number.POSITIVE_INFINITY, false],
      [z.number(), Number.NaN, false],
      [z.boolean(), false, true],
      [z.null(), null, true],
      [z.literal('Point'), 'Point', true],
      [z.literal('Point'), 'point', false],
      [z.enum(['a', 'b']), 'b', true],
      [z.enum(['a', 'b']), 'c', false],
      [z.string().nullable(), null, true],
      [z.string().nullable(), undefined, false],
      [z.string().optional(), undefined, true],
      [z.string().nullish(), null, true],
      [z.array(z.number()).default([]), undefined, false],
      [z.array(z.number()).default([]), [1], true],
      [z.array(z.number()), [1, 'x'], false],
      [z.tuple([z.number(), z.number()]), [1, 2], true],
      [z.tuple([z.number(), z.number()]), [1, 2, 3], false],
      [z.tuple([z.number(), z.number()]).rest(z.number()), [1, 2, 3], true],
      [z.tuple([z.number(), z.number()]).rest(z.number()), [1], false],
      [z.union([z.string(), z.number()]), 3, true],
      [z.union([z.string(), z.number()]), null, false],
      [z.looseObject({ a: z.string() }), { a: 'x', b: 1 }, true],
      [z.looseObject({ a: z.string() }), JSON.parse('{"a": "x", "__proto__": 1}'), false],
      [z.looseObject({ a: z.string() }), [], false],
      [z.looseObject({ a: z.string() }), new Date(0), false],
      [z.object({ a: z.string() }), { a: 'x' }, true],
      [z.object({ a: z.string() }), { a: 'x', b: 1 }, false],
      [z.strictObject({ a: z.string() }), { a: 'x', b: 1 }, false],
      [z.object({ a: z.string().optional() }), {}, true],
    ];
    for (const [schema, value, expected] of cases) {
      expect(accepter(schema)?.(value), `${JSON.stringify(value)}`).toBe(expected);
      if (expected) expect(schema.parse(value)).toStrictEqual(value);
    }
  });

  it('compiles nothing with a check, a transform or a union of objects in it: zod checks those', () => {
    expect(accepter(z.number().int())).toBeUndefined();
    expect(accepter(z.string().min(1))).toBeUndefined();
    expect(accepter(z.looseObject({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(
      accepter(z.union([z.looseObject({ a: z.string() }), z.looseObject({ b: z.string() })])),
    ).toBeUndefined();
    expect(accepter(z.record(z.string(), z.number()))).toBeUndefined();
  });
});

describe('check with the fast yes', () => {
  it('gives the same result as zod for a valid answer, and the same error for an invalid one', () => {
    expect(check(contract.geocodeResponseSchema, MATCH, 'geocoding')).toStrictEqual(
      contract.geocodeResponseSchema.parse(MATCH),
    );
    const bad = { ...MATCH, features: [{ ...MATCH.features[0], properties: { city: 7 } }] };
    let caught: unknown;
    try {
      check(contract.geocodeResponseSchema, bad, 'geocoding');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ResponseError);
    expect(caught).toMatchObject({
      code: 'RESPONSE_INVALID',
      context: { path: 'features[0].properties.city', expected: 'string' },
    });
  });
});
