/**
 * The commands init prints (`next: ...`) and writes into the job file's header can be pasted into
 * a shell: a path a shell would split or cut is in single quotes, a plain one stays as it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/shell-word.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli } from './_cli.js';
import { expectGolden } from './init-golden.js';

/** The words `sh` makes of a command line's arguments, one per line. */
function shellWords(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
  return out.split('\n').slice(0, -1);
}

let dir: string;

beforeAll(() => {
  dir = tempDir();
});

describe('shellWord', () => {
  it.each(['sites.yaml', 'drafts/sites.geocode.yaml', '/tmp/x_y-1.csv', 'Straße+Hausnr.csv', 'a=b,c@d:e%f'])(
    'leaves the plain word %s as it is',
    (word) => {
      expect(shellWord(word)).toBe(word);
    },
  );

  it.each([
    ['#1 Kunden: 2024.csv', "'#1 Kunden: 2024.csv'"],
    ["O'Brien.csv", "'O'\\''Brien.csv'"],
    ['$HOME.csv', "'$HOME.csv'"],
    ['~/x.csv', "'~/x.csv'"],
    ['a;b.csv', "'a;b.csv'"],
    ['', "''"],
  ])('quotes %j as %s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });

  it.each(['#1 Kunden: 2024.csv', "O'Brien.csv", '$HOME `x` "y" \\z.csv', 'tab\there.csv', '*.csv'])(
    'gives the shell back %j as one word',
    (word) => {
      expect(shellWords(shellWord(word))).toEqual([word]);
    },
  );
});

describe('geobatch init: commands to paste', () => {
  it('quotes the input and job file names in the next line and the job file header', async () => {
    const name = '#1 Kunden: 2024.csv';
    writeFileSync(join(dir, name), 'strasse,hausnummer,plz,ort\nHauptstraße,5,10115,Berlin\n');
    const run = cli(['init', name], {}, { cwd: dir });
    expect(await run.exited).toBe(0);
    const job = '#1 Kunden: 2024.geocode.yaml';
    const next = run.err().match(/^next: geobatch (.*)$/m)?.[1] ?? '';
    expect(next).toBe(`run '${job}' --emulator --limit 50`);
    expect(shellWords(next)).toEqual(['run', job, '--emulator', '--limit', '50']);

    const text = readFileSync(join(dir, job), 'utf8');
    expectGolden('kunden.geocode.yaml', text);
    const commands = [...text.matchAll(/^# {3}geobatch (.*?)(?: +# .*)?$/gm)].map((m) => m[1] as string);
    expect(commands.map(shellWords)).toEqual([
      ['validate', job],
      ['run', job, '--emulator', '--limit', '50'],
      ['run', job],
    ]);
    expect(text).toContain(`written by \`geobatch init '${name}'\``);
  });

  it('writes the input into the header as it was given, directory and all, quoted as the next line quotes', async () => {
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'places.csv'), 'lon,lat\n13.4,52.5\n');
    const plain = cli(['init', 'data/places.csv'], {}, { cwd: dir });
    expect(await plain.exited).toBe(0);
    expect(readFileSync(join(dir, 'places.reverse-geocode.yaml'), 'utf8').split('\n')[0]).toBe(
      '# A geobatch reverse-geocode job, written by `geobatch init data/places.csv`.',
    );

    const input = 'raw files/#2 Orte.csv';
    mkdirSync(join(dir, 'raw files'));
    writeFileSync(join(dir, input), 'lon,lat\n13.4,52.5\n');
    const quoted = cli(['init', input, '--kind', 'elevation', '-o', 'orte.yaml'], {}, { cwd: dir });
    expect(await quoted.exited).toBe(0);
    const first = readFileSync(join(dir, 'orte.yaml'), 'utf8').split('\n')[0] ?? '';
    expect(first).toBe(
      "# A geobatch elevation job, written by `geobatch init 'raw files/#2 Orte.csv' --kind elevation`.",
    );
    const command = first.match(/`geobatch (.*)`/)?.[1] ?? '';
    expect(shellWords(command)).toEqual(['init', input, '--kind', 'elevation']);
  });

  it('leaves plain names unquoted', async () => {
    writeFileSync(join(dir, 'plain.csv'), 'lon,lat\n13.4,52.5\n');
    const run = cli(['init', 'plain.csv'], {}, { cwd: dir });
    expect(await run.exited).toBe(0);
    expect(run.err()).toContain('next: geobatch run plain.reverse-geocode.yaml --emulator --limit 50');
    expect(readFileSync(join(dir, 'plain.reverse-geocode.yaml'), 'utf8')).toContain(
      '#   geobatch validate plain.reverse-geocode.yaml\n',
    );
  });
});
