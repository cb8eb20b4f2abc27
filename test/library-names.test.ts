/**
 * The README's library sections name functions, classes and tables as `geobatch` exports: each
 * must be one, so that a reader's `import { x } from 'geobatch'` works (four did not).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AreaResult, CallOptions, GeocodeResult, RouteResult, RoutingOptions } from '../src/index.js';
import * as geobatch from '../src/index.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end);
}

/** Backticked calls (`name(...)`), error classes and tables (`DEFAULTS`, `JOB_KINDS`...). */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) {
    const call = /^(?:new )?([A-Za-z][A-Za-z0-9]*)\(/.exec(code as string);
    if (call) names.add(call[1] as string);
    else if (/^[A-Z][A-Za-z]*Error$/.test(code as string)) names.add(code as string);
    else if (/^(DEFAULTS|[A-Z]+(_[A-Z]+)*_(KINDS|CLASS|CODE|NAMES))$/.test(code as string))
      names.add(code as string);
  }
  return names;
}

describe('the names the README gives the library', () => {
  it('are all exported by the package', () => {
    const named = new Set([
      ...namesIn(section('geobatch as a library')),
      ...namesIn(section('Using the client as a library')),
    ]);
    // Methods of the objects those return, not exports: they are called on a client or a summary.
    // So are createJob's context's readRows and resolvePath.
    for (const method of [
      'metrics',
      'close',
      'geocode',
      'reverseGeocode',
      'elevation',
      'readRows',
      'resolvePath',
    ])
      named.delete(method);
    expect(named.size).toBeGreaterThan(10);
    const missing = [...named].filter((name) => !(name in geobatch)).sort();
    expect(missing).toEqual([]);
  });
});

describe('the values the package exports', () => {
  it("are each named in the README's library sections", () => {
    const text = `${section('geobatch as a library')}${section('Using the client as a library')}`;
    const unnamed = Object.keys(geobatch).filter((name) => !new RegExp(`\`${name}[\`(]`).test(text));
    expect(Object.keys(geobatch).length).toBeGreaterThan(40);
    expect(unnamed.sort()).toEqual([]);
  });
});

describe('the values the client and the emulator export', () => {
  it('are values of the package too, not names a type-only re-export hides', async () => {
    const client = await import('../src/client/index.js');
    const emulator = await import('../src/emulator/index.js');
    const values = [...Object.keys(client), ...Object.keys(emulator)];
    expect(values.length).toBeGreaterThan(10);
    expect(values.filter((name) => !(name in geobatch)).sort()).toEqual([]);
  });
});

describe('a job built in code', () => {
  it('takes a mapping written as in a job file, resolved with the input’s decimal mark', async () => {
    const context = (decimal?: geobatch.DecimalMark) => ({
      client: {} as geobatch.JobClient,
      mapping: geobatch.resolveMapping({ lon: 'x', lat: 'y' }, decimal),
      options: {},
      endpoints: {},
      readRows: () => {
        throw new Error('elevation reads no side input');
      },
      resolvePath: (path: string) => path,
    });
    const row = (x: string, y: string): geobatch.Row => ({
      kind: 'row',
      ref: { index: 0, line: 2 },
      fields: { x, y },
    });
    const comma = await geobatch.createJob('elevation', context(','));
    expect(comma.plan(row('8,4278', '49,0133'))).toEqual([[8.4278, 49.0133]]);
    expect(comma.plan(row('8.4278', '49.0133'))).toMatchObject({ code: 'FIELD_INVALID', field: 'x' });
    // Without a mark, either is read, as a job file without input.decimal.
    const either = await geobatch.createJob('elevation', context());
    expect(either.plan(row('8.4278', '49,0133'))).toEqual([[8.4278, 49.0133]]);
  });
});

describe('the types the package exports', () => {
  it('give a caller the types of the client calls and their answers by name', () => {
    // Checked by the type checker (npm test runs tsc over the tests): each must be a named export,
    // and none may be `any`.
    expectTypeOf<GeocodeResult>().not.toBeAny();
    expectTypeOf<CallOptions>().toHaveProperty('signal');
    expectTypeOf<AreaResult>().toHaveProperty('features');
    expectTypeOf<RouteResult>().not.toBeAny();
    expectTypeOf<RoutingOptions>().not.toBeAny();
    expect(typeof geobatch.createClient).toBe('function');
  });
});
