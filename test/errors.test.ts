import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  EXIT_BY_CODE,
  EXIT_STATUS,
  exitStatusOf,
  GeobatchError,
  isFatalCode,
  ServiceError,
} from '../src/errors.js';
import { clearSecrets, registerSecret } from '../src/secrets.js';

afterEach(() => clearSecrets());

describe('GeobatchError', () => {
  it('keeps a stable code and printable context', () => {
    const error = new ServiceError('HTTP_STATUS', 'geocoding answered 400', {
      status: 400,
      attempts: 1,
      service: 'geocoding',
    });
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.context).toEqual({ status: 400, attempts: 1, service: 'geocoding' });
    expect(error.fatal).toBe(false);
    expect(error).toBeInstanceOf(GeobatchError);
    expect(error.name).toBe('ServiceError');
  });

  it('scrubs registered secrets out of the message and string context', () => {
    registerSecret('super-secret-key');
    const error = new ConfigError('bad value super-secret-key', {
      received: 'super-secret-key',
      path: 'service',
    });
    expect(error.message).toBe('bad value [redacted]');
    expect(error.context.received).toBe('[redacted]');
    expect(JSON.stringify(error)).not.toContain('super-secret-key');
  });

  it('marks auth, quota and I/O codes as fatal and row codes as not', () => {
    expect(isFatalCode('AUTH_REJECTED')).toBe(true);
    expect(isFatalCode('AUTH_MISSING')).toBe(true);
    expect(isFatalCode('QUOTA_EXCEEDED')).toBe(true);
    expect(isFatalCode('IO_ERROR')).toBe(true);
    expect(isFatalCode('RETRIES_EXHAUSTED')).toBe(false);
    expect(isFatalCode('NO_MATCH')).toBe(false);
  });
});

/** The README's exit-code table: each status with the codes (`UPPER_CASE` in backticks) its row names. */
function readmeExitTable(): Map<number, Set<string>> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split('### Exit codes')[1]?.split(/\n#{2,3} /)[0] ?? '';
  const table = new Map<number, Set<string>>();
  for (const line of section.split('\n')) {
    const m = /^\| (\d+) \|(.*)\|$/.exec(line);
    if (m === null) continue;
    table.set(
      Number(m[1]),
      new Set([...(m[2] ?? '').matchAll(/`([A-Z][A-Z_]+)`/g)].map((c) => c[1] as string)),
    );
  }
  return table;
}

describe('exit statuses', () => {
  it('are listed in the README exactly as the one table maps them', () => {
    const readme = readmeExitTable();
    expect([...readme.keys()].sort()).toEqual([...new Set(Object.values(EXIT_STATUS))].sort());
    for (const [code, status] of Object.entries(EXIT_BY_CODE)) {
      expect(readme.get(status)?.has(code), `README lists ${code} under exit ${status}`).toBe(true);
    }
    for (const [status, codes] of readme) {
      for (const code of codes) {
        expect(EXIT_BY_CODE[code as keyof typeof EXIT_BY_CODE], `README row ${status}: ${code}`).toBe(status);
      }
    }
  });

  it('follow from how a run ended: its code, else whether rows failed', () => {
    expect(exitStatusOf(undefined, 0)).toBe(0);
    expect(exitStatusOf(undefined, 2)).toBe(3);
    expect(exitStatusOf('AUTH_REJECTED', 0)).toBe(1);
    expect(exitStatusOf('CONFIG_INVALID')).toBe(2);
    expect(exitStatusOf('INPUT_EMPTY')).toBe(4);
    // An input cut short is not whole either, whatever its rows did; a stop says more.
    expect(exitStatusOf(undefined, 0, true)).toBe(4);
    expect(exitStatusOf(null, 2)).toBe(3);
    expect(exitStatusOf(null, 0, true)).toBe(4);
    expect(exitStatusOf(undefined, 7, true)).toBe(4);
    expect(exitStatusOf('QUOTA_EXCEEDED', 7, true)).toBe(1);
    expect(exitStatusOf('OUTPUT_CLOSED', 5)).toBe(0);
    // An exception that is not a run-ending code (a defect) means the run stopped.
    expect(exitStatusOf('INTERNAL')).toBe(1);
  });
});

describe('error classes pin their codes', () => {
  it('gives every code exactly one class', async () => {
    const { CODES_BY_CLASS } = await import('../src/errors.js');
    const { ERROR_ADVICE } = await import('../src/report/advice.js');
    const pinned = Object.values(CODES_BY_CLASS).flat();
    expect(new Set(pinned).size).toBe(pinned.length);
    expect([...pinned].sort()).toEqual(Object.keys(ERROR_ADVICE).sort());
  });

  it('raises each code as its class, with the name and code a caller can test', async () => {
    const errors = await import('../src/errors.js');
    const make: Record<string, (code: never) => import('../src/errors.js').GeobatchError> = {
      ServiceError: (code) => new errors.ServiceError(code, 'm'),
      IoError: (code) => new errors.IoError(code, 'm'),
      InputError: (code) => new errors.InputError(code, 'm'),
      RunError: (code) => new errors.RunError(code, 'm'),
      ConfigError: () => new errors.ConfigError('m'),
      UsageError: () => new errors.UsageError('m'),
      ResponseError: () => new errors.ResponseError('m'),
    };
    for (const [cls, codes] of Object.entries(errors.CODES_BY_CLASS)) {
      for (const code of codes) {
        const error = make[cls]?.(code as never);
        expect(error?.name, code).toBe(cls);
        expect(error?.code, cls).toBe(code);
        expect(errors.isGeobatchError(error)).toBe(true);
        // A caller's test of the class by code, which type-checks where `includes` does not.
        const name = cls as keyof typeof errors.CODES_BY_CLASS;
        expect(errors.isCodeOf(name, error?.code ?? ''), code).toBe(true);
        expect(errors.isCodeOf(name === 'UsageError' ? 'ConfigError' : 'UsageError', code), code).toBe(false);
        for (const other of ['GeobatchError', 'toString'])
          expect(errors.isCodeOf(other as typeof name, code), other).toBe(false);
      }
    }
  });

  it('are told by isGeobatchError across two copies of the module, where instanceof cannot', async () => {
    const errors = await import('../src/errors.js');
    // A second instance of the module, as two versions of geobatch in one program load it.
    const path = '../src/errors.js?copy';
    const copy = (await import(/* @vite-ignore */ path)) as typeof errors;
    const foreign = new copy.UsageError('from the other copy');
    expect(foreign instanceof errors.GeobatchError).toBe(false);
    expect(errors.isGeobatchError(foreign)).toBe(true);
    expect(errors.isGeobatchError(Object.assign(new Error('m'), { code: 'USAGE' }))).toBe(false);
    expect(errors.isGeobatchError(null)).toBe(false);
  });
});
