import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets, redactUrl, registerBasicCredentials, registerSecret, scrub } from '../src/secrets.js';

afterEach(() => clearSecrets());

describe('scrub', () => {
  it('replaces a registered key in its plain, URL-encoded and Base64 forms', () => {
    const key = 'k3y/with+special=chars';
    registerSecret(key);
    const text = `plain ${key} url ${encodeURIComponent(key)} b64 ${Buffer.from(key).toString('base64')}`;
    const out = scrub(text);
    expect(out).not.toContain(key);
    expect(out).not.toContain(encodeURIComponent(key));
    expect(out).not.toContain(Buffer.from(key).toString('base64'));
    expect(out.match(/\[redacted\]/g)).toHaveLength(3);
  });

  it('scrubs a whole Basic header value, not just the key inside it', () => {
    registerBasicCredentials('partner-one', 'secret-key-1');
    const header = `Basic ${Buffer.from('partner-one:secret-key-1').toString('base64')}`;
    expect(scrub(header)).toBe('Basic [redacted]');
  });

  it('leaves text alone when nothing is registered, and ignores values too short to be keys', () => {
    registerSecret('ab');
    expect(scrub('ab abc')).toBe('ab abc');
  });
});

describe('redactUrl', () => {
  it('masks credential query parameters even when the value was never registered', () => {
    const url =
      'https://example.test/api/v2/Elevation/point?apiKey=unregistered&latitude=50&systemPartner=sp-9&securityID=s3';
    const out = redactUrl(url);
    expect(out).not.toContain('unregistered');
    expect(out).not.toContain('sp-9');
    expect(out).not.toContain('s3');
    expect(out).toContain('latitude=50');
  });
});
