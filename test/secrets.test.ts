import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/client/client.js';
import {
  clearSecrets,
  credentialsNamed,
  redactUrl,
  registerBasicCredentials,
  registerSecret,
  SecretSet,
  scrub,
  urlCredentials,
} from '../src/secrets.js';

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

describe('registrations released', () => {
  it('scrubs a value until every registration of it is released, each release once', () => {
    const first = registerSecret('shared-key-1');
    const second = registerSecret('shared-key-1');
    first();
    first();
    expect(scrub('shared-key-1')).toBe('[redacted]');
    second();
    expect(scrub('shared-key-1')).toBe('shared-key-1');
  });

  it("releases a set's values together, leaving those another owner holds", () => {
    const owned = new SecretSet();
    owned.add('tenant-key-1');
    owned.add('common-key-9');
    registerSecret('common-key-9');
    owned.releaseAll();
    expect(scrub('tenant-key-1 common-key-9')).toBe('tenant-key-1 [redacted]');
  });

  it('lets a client built and closed per tenant key leave no key behind', async () => {
    for (let i = 0; i < 3; i++) {
      const client = createClient({
        endpoints: { geojson: 'http://127.0.0.1:9' },
        credentials: { apiKey: `tenant-key-${i}` },
      });
      expect(scrub(`tenant-key-${i}`)).toBe('[redacted]');
      await client.close();
    }
    expect(scrub('tenant-key-0 tenant-key-2')).toBe('tenant-key-0 tenant-key-2');
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

  it('masks them whatever their case, and every one of a name given twice', () => {
    const out = redactUrl('https://x.test/y?apikey=lower&APIKEY=upper&token=t&apiKey=again&q=1');
    for (const value of ['lower', 'upper', 'again']) expect(out).not.toContain(value);
    expect(out).toContain('q=1');
  });
});

describe('urlCredentials', () => {
  it.each([
    ['https://h.example/?apiKey=s1', [{ name: 'apiKey', value: 's1' }]],
    ['https://h.example/?x=1&APIKEY=s1', [{ name: 'APIKEY', value: 's1' }]],
    [
      'https://h.example/?systemPartner=p1&securityID=s1',
      [
        { name: 'systemPartner', value: 'p1' },
        { name: 'securityID', value: 's1' },
      ],
    ],
    ['https://h.example/#AuthToken=s1', [{ name: 'AuthToken', value: 's1' }]],
    [
      'https://user:s%201@h.example/',
      [
        { name: 'user info', value: 'user' },
        { name: 'user info', value: 's 1' },
      ],
    ],
    ['https://k3y@h.example/', [{ name: 'user info', value: 'k3y' }]],
    ['h.example/path?token=s1', [{ name: 'token', value: 's1' }]],
    ['htps//user:s1@h.example', [{ name: 'user info', value: 'user:s1' }]],
    // The scheme forgotten: the parser reads `user:` as a scheme and the rest as a path.
    ['user:s1@h.example:1/x', [{ name: 'user info', value: 'user:s1' }]],
    ['k3y@h.example/x', [{ name: 'user info', value: 'k3y' }]],
  ])('finds the credentials in %s', (url, found) => {
    expect(urlCredentials(url)).toEqual(found);
  });

  it.each([
    'https://h.example/api/v2',
    'https://h.example/?channel=x&apiKeys=1',
    'not a url',
    'h.example/a@b',
  ])('finds none in %s', (url) => {
    expect(urlCredentials(url)).toEqual([]);
  });

  it('names what it found without a value', () => {
    const found = urlCredentials('https://u:pw@h.example/?apiKey=a1&securityID=s1');
    expect(credentialsNamed(found)).toBe(
      'a user name or password and the query parameters apiKey and securityID',
    );
  });
});
