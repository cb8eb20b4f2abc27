import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/config/env.js';
import { configError } from '../fixtures/config-error.js';

const FILE = 'jobs/x.yaml';

describe('interpolate', () => {
  it('says a variable that is set but empty is empty, not that it is unset', () => {
    const error = configError(() => interpolate({ output: `out/\${OUTNAME}.csv` }, { OUTNAME: '' }, FILE));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('jobs/x.yaml: output: environment variable OUTNAME is empty');
    expect(error.context).toEqual({
      file: FILE,
      path: 'output',
      expected: 'OUTNAME set to a value',
      hint: `export OUTNAME=... before running, or give a default with \${OUTNAME:-value}`,
    });
    const unset = configError(() => interpolate({ output: `out/\${OUTNAME}.csv` }, {}, FILE));
    expect(unset.message).toBe('jobs/x.yaml: output: environment variable OUTNAME is not set');
    expect(unset.context).toMatchObject({ path: 'output', expected: 'OUTNAME set in the environment' });
    // With a default, an empty variable takes it as an unset one does, as shells do.
    const { document } = interpolate({ output: `out/\${OUTNAME:-run}.csv` }, { OUTNAME: '' }, FILE);
    expect(document).toEqual({ output: 'out/run.csv' });
  });

  it('records which strings came from a substitution, and from which variables', () => {
    const { document, substitutionAt } = interpolate(
      { description: 'plain', options: { levels: [`\${A}`, `x\${B:-2}`] } },
      { A: '4' },
      FILE,
    );
    expect(document).toEqual({ description: 'plain', options: { levels: ['4', 'x2'] } });
    expect(substitutionAt(['description'])).toBeUndefined();
    expect(substitutionAt(['options', 'levels', 0])).toEqual({
      written: `\${A}`,
      variables: [{ name: 'A', value: '4' }],
    });
    expect(substitutionAt(['options', 'levels', 1])).toEqual({
      written: `x\${B:-2}`,
      variables: [{ name: 'B', value: undefined }],
    });
  });
});
