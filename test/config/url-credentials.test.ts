/**
 * An endpoint URL with a credential written into it (`?apiKey=...`, `https://user:key@host/`)
 * used to load, and the URL went where a key never may: the job file's text into the queue
 * database of a distributed run, the endpoint into messages. It is refused when the job file is
 * loaded (validate, a run, a worker alike), wherever the URL comes from, and never quoted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import type { ConfigError } from '../../src/errors.js';
import { clearSecrets, scrub } from '../../src/secrets.js';
import { configError } from '../fixtures/config-error.js';

afterEach(() => clearSecrets());

const SECRET = 'k3y-in-the-url-0815';
const JOB = 'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { zip: plz }\n';

function refusal(text: string, env: Record<string, string> = {}): ConfigError {
  return configError(() => parseJobFile(text, '/jobs/geo.yaml', env, 'jobs/geo.yaml'));
}

/** Everything the error carries that a person or a log may see. */
function shown(error: ConfigError): string {
  return `${error.message}\n${JSON.stringify(error.toJSON())}\n${error.stack ?? ''}`;
}

const endpoint = (name: string, url: string) => `${JOB}service:\n  endpoints:\n    ${name}: "${url}"\n`;

describe('an endpoint URL that carries a credential', () => {
  it.each([
    [
      'an apiKey query parameter',
      'geojson',
      `https://geo.example/api_rst/v2/geojson?apiKey=${SECRET}`,
      'the query parameter apiKey',
      /export GEOBATCH_API_KEY /,
    ],
    [
      'the same in other letters',
      'area',
      `https://area.example/?APIKEY=${SECRET}&x=1`,
      'the query parameter APIKEY',
      /GEOBATCH_API_KEY/,
    ],
    [
      'the legacy pair',
      'elevation',
      `https://elev.example/?systemPartner=sp-1&securityID=${SECRET}`,
      'the query parameters systemPartner and securityID',
      /GEOBATCH_SYSTEM_PARTNER and GEOBATCH_SECURITY_ID/,
    ],
    [
      'an autocomplete token',
      'autocomplete',
      `https://ac.example/api/v5/Autocomplete?AuthToken=${SECRET}`,
      'the query parameter AuthToken',
      /GEOBATCH_API_KEY \(geobatch fetches the autocomplete token/,
    ],
    [
      'a user and password',
      'addressSearch',
      `https://partner:${SECRET}@search.example/addresssearch/v2`,
      'a user name or password',
      /GEOBATCH_PARTNER and GEOBATCH_PARTNER_KEY/,
    ],
    [
      'a key in the fragment',
      'token',
      `https://token.example/#token=${SECRET}`,
      'the query parameter token',
      /GEOBATCH_API_KEY/,
    ],
  ])(
    'is refused in the job file: %s, naming the key and where credentials belong',
    (_, name, url, what, hint) => {
      const error = refusal(endpoint(name, url));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/geo.yaml: service.endpoints.${name}: the URL carries a credential (${what}); credentials come only from the environment, never in an endpoint URL`,
      );
      expect(error.context).toMatchObject({ file: 'jobs/geo.yaml', path: `service.endpoints.${name}` });
      expect(error.context.hint).toMatch(hint);
      expect(shown(error)).not.toContain(SECRET);
    },
  );

  it.each([
    ['after a ;', `https://geo.example/api?x=1;apiKey=${SECRET}`],
    ['after &amp; (pasted from a page)', `https://geo.example/api?a=1&amp;apiKey=${SECRET}`],
    ['as a path parameter', `https://geo.example/api;apiKey=${SECRET}`],
  ])('is refused %s, which a URL parser does not split at', (_, url) => {
    const error = refusal(endpoint('geojson', url));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('(the query parameter apiKey)');
    expect(shown(error)).not.toContain(SECRET);
  });

  it('leaves the message its own words when the value is one of them', () => {
    const error = refusal(endpoint('geojson', 'https://geo.example/api?token=parameter'));
    expect(scrub(error.message)).toContain('the query parameter token');
    expect(scrub(error.message)).not.toContain('[redacted]');
  });

  it('is refused when it is no URL at all, before the schema quotes it', () => {
    const error = refusal(endpoint('geojson', `geo.example/geojson?apiKey=${SECRET}`));
    expect(error.context.path).toBe('service.endpoints.geojson');
    expect(shown(error)).not.toContain(SECRET);
  });

  it('is refused in a shape the schema would refuse (and quote), by its own path', () => {
    const error = refusal(`${JOB}service:\n  endpoints:\n    - "https://geo.example/?apiKey=${SECRET}"\n`);
    expect(error.context.path).toBe('service.endpoints[0]');
    expect(shown(error)).not.toContain(SECRET);
  });

  it('is refused when a variable of the file gives it, naming the key and the variable', () => {
    const text = `${JOB}service:\n  endpoints:\n    geojson: "\${GEO_URL}"\n`;
    const error = refusal(text, { GEO_URL: `https://geo.example/?apiKey=${SECRET}` });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /^jobs\/geo\.yaml: service\.endpoints\.geojson \(from \$\{GEO_URL\}\): the URL carries a credential \(the query parameter apiKey\)/,
    );
    expect(error.context).toMatchObject({ file: 'jobs/geo.yaml', path: 'service.endpoints.geojson' });
    expect(shown(error)).not.toContain(SECRET);
  });

  it.each([
    ['GEOBATCH_GEOJSON_URL', `https://geo.example/?apiKey=${SECRET}`],
    ['GEOBATCH_ADDRESS_SEARCH_URL', `https://p:${SECRET}@search.example/`],
    ['GEOBATCH_EMULATOR_URL', `http://u:${SECRET}@127.0.0.1:8787`],
  ])('is refused from %s, naming the variable alone as where it came from', (variable, url) => {
    const error = refusal(JOB, { [variable]: url });
    expect(error.code).toBe('CONFIG_INVALID');
    // Not "jobs/geo.yaml: ... (service.endpoints)": the file holds no such key, the variable is the source.
    expect(error.message).toMatch(new RegExp(`^${variable}: the URL carries a credential \\(`));
    expect(error.message).not.toContain('service.endpoints');
    expect(error.context).toMatchObject({ field: variable });
    expect(error.context.file).toBeUndefined();
    expect(error.context.path).toBeUndefined();
    expect(shown(error)).not.toContain(SECRET);
  });

  it.each([
    ['GEOBATCH_EMULATOR_URL', 'foo', /emulator's origin/],
    ['GEOBATCH_GEOJSON_URL', 'ftp://geo.example/', /base URL of the interface/],
  ])(
    'refuses %s that is no http(s) URL by the variable and its value, not the address made of it',
    (variable, value, expected) => {
      const error = refusal(JOB, { [variable]: value });
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(
        new RegExp(`^${variable}: expected an http\\(s\\) URL, .*, got \`${value}\`$`),
      );
      expect(error.context).toMatchObject({ field: variable, received: value });
      expect(error.context.expected).toMatch(expected);
    },
  );

  it('leaves URLs without credentials alone', () => {
    const text = endpoint('geojson', 'https://geo.example/api_rst/v2/geojson?channel=nightly');
    const config = parseJobFile(text, '/jobs/geo.yaml', { GEOBATCH_AREA_URL: 'https://area.example/' });
    expect(config.service.endpoints).toMatchObject({
      geojson: 'https://geo.example/api_rst/v2/geojson?channel=nightly',
      area: 'https://area.example/',
    });
  });
});
