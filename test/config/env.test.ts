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

  it('refuses a ${ that no reference reads, saying how to write it, instead of keeping it as text', () => {
    const refused = (text: string, path = 'output') => {
      const key = path.split('.');
      const document = key.reduceRight<unknown>((inner, name) => ({ [name]: inner }), text);
      return configError(() => interpolate(document, { DATE: '2026-11-28' }, FILE));
    };
    const spaced = refused('out/${ DATE }.csv');
    expect(spaced.code).toBe('CONFIG_INVALID');
    expect(spaced.message).toBe('jobs/x.yaml: output: `${ DATE }` is not a reference geobatch reads');
    expect(spaced.context).toEqual({
      file: FILE,
      path: 'output',
      expected: '${NAME} or ${NAME:-default}',
      received: '${ DATE }',
      hint: 'write ${DATE}, without spaces',
    });
    expect(refused('out/${DATE-today}.csv').context.hint).toBe(
      'write ${DATE:-today} (the default stands in for an unset or empty variable)',
    );
    expect(refused('${DATE:=x}').context.hint).toBe(
      'only ${NAME:-default} takes a default here: write ${DATE:-...}',
    );
    expect(refused('out/${DATE.csv').context).toMatchObject({
      received: '${DATE.csv',
      hint: expect.stringMatching(/^close it with }: write \$\{NAME\} or/),
    });
    expect(refused('${1X}').context.hint).toBe(
      'write ${NAME} or ${NAME:-default}: a name of letters, digits and _, not starting with a digit',
    );
    // A reference read beside one that is not still refuses the string.
    expect(refused('${DATE}/${ DATE }').context.received).toBe('${ DATE }');
    // A credential's text is never shown.
    const key = refused('${ab}c${def-secret', 'service.credentials.apiKey');
    expect(key.message).toBe(
      'jobs/x.yaml: service.credentials.apiKey: a ${ that is no reference is not a reference geobatch reads',
    );
    expect(JSON.stringify(key.context)).not.toContain('secret');
    // Well-formed references pass.
    expect(interpolate({ output: 'out/${DATE}-${RUN:-a}.csv' }, { DATE: 'd' }, FILE).document).toEqual({
      output: 'out/d-a.csv',
    });
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
