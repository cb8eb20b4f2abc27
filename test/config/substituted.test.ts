/**
 * A message naming a key whose value the environment gave (`${MY_URL}`) names the variable too:
 * the file writes `${MY_URL}`, not the value refused, and the user looks for it there in vain.
 */
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { configError } from '../fixtures/config-error.js';

const JOB = 'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { zip: plz }\n';

function load(text: string, env: Record<string, string>) {
  return parseJobFile(text, '/jobs/geo.yaml', env, 'jobs/geo.yaml');
}

describe('where a substituted value came from', () => {
  it('names the variable with the job file key of an endpoint, for the client to name a wrong address by', () => {
    const text = `${JOB}service:\n  endpoints:\n    geojson: "\${MY_URL}"\n    area: "http://\${HOST}:\${PORT:-8080}/area"\n    token: http://tokens.example/\n`;
    const config = load(text, { MY_URL: 'http://127.0.0.1:9/wrong', HOST: 'h.example' });
    expect(config.service.endpointSources).toMatchObject({
      geojson: 'service.endpoints.geojson in jobs/geo.yaml, from ${MY_URL}',
      area: 'service.endpoints.area in jobs/geo.yaml, from ${HOST} and the default of ${PORT}',
      token: 'service.endpoints.token in jobs/geo.yaml',
    });
    // A variable of the interface set later names itself alone.
    const over = load(text, {
      MY_URL: 'http://127.0.0.1:9/wrong',
      HOST: 'h',
      GEOBATCH_GEOJSON_URL: 'http://x/',
    });
    expect(over.service.endpointSources?.geojson).toBe('GEOBATCH_GEOJSON_URL');
  });

  it("names it in the schema's refusal of an endpoint, and in a refused output path", () => {
    const url = configError(() =>
      load(`${JOB}service: { endpoints: { geojson: "\${MY_URL}" } }\n`, { MY_URL: 'ftp://x' }),
    );
    expect(url.code).toBe('CONFIG_INVALID');
    expect(url.message).toMatch(
      /^jobs\/geo\.yaml: service\.endpoints\.geojson \(from \$\{MY_URL\}\): expected an http\(s\) URL/,
    );
    expect(url.context).toMatchObject({ file: 'jobs/geo.yaml', path: 'service.endpoints.geojson' });
    const output = configError(() =>
      load(JOB.replace('output: out.csv', 'output: "${OUT}"'), { OUT: 'result.xlsx' }),
    );
    expect(output.code).toBe('CONFIG_INVALID');
    expect(output.message).toMatch(
      /^jobs\/geo\.yaml: output \(from \$\{OUT\}\): geobatch does not write \.xlsx files/,
    );
    expect(output.context).toMatchObject({ file: 'jobs/geo.yaml', path: 'output' });
  });

  it('names on each line of a refusal of several values the variables that gave that one', () => {
    const text = `${JOB}service: { endpoints: { geojson: "\${GEO}", area: "\${AREA}", token: "tok" } }\n`;
    const error = configError(() => load(text, { GEO: 'ftp://g', AREA: 'ftp://a' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message.split('\n')).toEqual([
      'jobs/geo.yaml: service.endpoints.geojson (from ${GEO}): expected an http(s) URL, got "ftp://g"',
      'jobs/geo.yaml: service.endpoints.token: expected an http(s) URL, got "tok"',
      'jobs/geo.yaml: service.endpoints.area (from ${AREA}): expected an http(s) URL, got "ftp://a"',
    ]);
    expect(error.context).toMatchObject({ file: 'jobs/geo.yaml', path: 'service.endpoints.geojson' });
  });

  it("names it for a mapping constant, whose message names the field, and for a step's name", () => {
    const zip = configError(() =>
      load(
        'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { city: c, zip: { value: "${ZIP}" }, country: { value: DE } }\n',
        {
          ZIP: '010670',
        },
      ),
    );
    expect(zip.code).toBe('CONFIG_INVALID');
    expect(zip.message).toMatch(
      /^jobs\/geo\.yaml: mapping\.zip \(from \$\{ZIP\}\): expected a 5-digit German postcode/,
    );
    expect(zip.context).toMatchObject({ path: 'mapping.zip', received: '010670' });
    const steps =
      'input: in.csv\noutput: o.csv\nsteps:\n  - job: geocode\n    name: a\n    mapping: { city: c }\n  - job: geocode\n    name: "${N}"\n    mapping: { city: c }\n';
    const name = configError(() => load(steps, { N: 'a' }));
    expect(name.message).toBe('jobs/geo.yaml: steps[1].name (from ${N}): `a` names steps[0] already');
    expect(name.context.path).toBe('steps[1].name');
  });

  it('leaves a message that quotes the reference itself, and a value written as it is, alone', () => {
    const batch = configError(() =>
      load('job: elevation\ninput: in.csv\noutput: out.csv\noptions: { batchSize: "${BS}" }\n', {
        BS: 'ten',
      }),
    );
    expect(batch.message).toBe(
      'jobs/geo.yaml: options.batchSize: expected a number, got "ten" from `${BS}` (BS="ten")',
    );
    const plain = configError(() => load(JOB.replace('output: out.csv', 'output: result.xlsx'), {}));
    expect(plain.message).toMatch(/^jobs\/geo\.yaml: output: geobatch does not write/);
    expect(plain.context).toMatchObject({
      path: 'output',
      hint: expect.stringContaining('write .csv, which Excel opens by double-click'),
    });
  });
});
