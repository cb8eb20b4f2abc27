import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, GeobatchError, isFatalCode, ServiceError } from '../src/errors.js';
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
