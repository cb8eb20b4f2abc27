import { describe, expect, it } from 'vitest';
// Through the package's exports: these are the library's entries.
import { ConfigError, createJob, resolveMapping } from '../../src/index.js';

function refusal(f: () => unknown): ConfigError {
  try {
    f();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('resolveMapping, a library caller’s mapping', () => {
  it('refuses a misspelt key of a field source in the job file’s words, at its path', () => {
    const error = refusal(() => resolveMapping({ lon: { colum: 'nonexistent' }, lat: 'lat' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('resolveMapping: mapping.lon: unknown key `colum` (did you mean `column`?)');
    expect(error.context).toMatchObject({ path: 'mapping.lon' });
  });

  it('refuses a number, null or a list as a field source instead of dropping the field', () => {
    expect(refusal(() => resolveMapping({ lon: 5 })).message).toBe(
      'resolveMapping: mapping.lon: expected a column name, or a constant written { value: 5 }, got 5',
    );
    for (const source of [null, ['a']]) {
      const error = refusal(() => resolveMapping({ lon: source }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context).toMatchObject({ path: 'mapping.lon' });
      expect(error.message).toContain('expected a column name, { column: <name> } or { value: <constant> }');
    }
  });

  it('refuses a constant that is neither text nor a number, and an empty column name', () => {
    expect(refusal(() => resolveMapping({ lon: { value: [1] } })).context).toMatchObject({
      path: 'mapping.lon.value',
      expected: 'a string or a number',
    });
    expect(refusal(() => resolveMapping({ lon: { column: '' } })).message).toBe(
      'resolveMapping: mapping.lon.column: expected a non-empty string, got ""',
    );
  });

  it('refuses a key no kind reads, a mapping that is no object and a decimal mark other than . or ,', () => {
    expect(refusal(() => resolveMapping({ lonn: 'x' })).message).toBe(
      'resolveMapping: mapping: unknown key `lonn` (did you mean `lon`?)',
    );
    expect(refusal(() => resolveMapping('lon' as never)).context).toMatchObject({ path: 'mapping' });
    const decimal = refusal(() => resolveMapping({ lon: 'x' }, ';' as never));
    expect(decimal.code).toBe('CONFIG_INVALID');
    expect(decimal.message).toBe(
      'resolveMapping: decimal: expected one of ".", ",", got ";" (did you mean "."?)',
    );
  });

  it('still resolves what a job file takes', () => {
    expect(resolveMapping({ lon: 'x', lat: { column: 'y' }, street: { value: 5 } })).toEqual({
      lon: { column: 'x' },
      lat: { column: 'y' },
      street: { value: '5' },
    });
  });
});

describe('createJob', () => {
  it('refuses a mapping field its kind does not read, as a job file of that kind does', async () => {
    const context = {
      client: {} as never,
      mapping: resolveMapping({ street: 'strasse' }),
      options: {},
      endpoints: {},
      readRows: () => [],
      resolvePath: (path: string) => path,
    };
    await expect(createJob('elevation', context as never)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'elevation: mapping: unknown key `street`; known here: `lon`, `lat`',
      context: { path: 'mapping' },
    });
  });
});
