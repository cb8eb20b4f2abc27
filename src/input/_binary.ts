/**
 * Inputs that are not text at all (a workbook renamed `.csv`, a compressed file, a database), told
 * by their first bytes. Read as text they fail on their first byte that is not UTF-8, whose
 * advice (set windows-1252) would turn them into garbage; named for what they are, the advice is
 * what to do with such a file.
 */
import { type GeobatchError, InputError } from '../errors.js';

interface Kind {
  /** What the file looks like, after "The input is". */
  readonly what: string;
  readonly hint: string;
}

const SAVE_AS_CSV =
  'Open it in the spreadsheet program and save it as "CSV UTF-8" (Excel: File > Save As > ' +
  '"CSV UTF-8 (Comma delimited)"), then give that file as the input.';

function decompress(tool: string, extension: string): string {
  return `Decompress it first, or stream it in: \`${tool} file.${extension} | geobatch run job.yaml -i -\`.`;
}

const SIGNATURES: readonly { readonly bytes: readonly number[]; readonly kind: Kind }[] = [
  { bytes: [0x1f, 0x8b], kind: { what: 'a gzip-compressed file', hint: decompress('zcat', 'gz') } },
  // `BZh`, the block size digit and the first block's magic (pi's digits; an empty stream's sqrt(pi)).
  ...['1AY&SY', '\x17rE8P\x90'].flatMap((block) =>
    [...'123456789'].map((size) => ({
      bytes: [...Buffer.from(`BZh${size}${block}`, 'latin1')],
      kind: { what: 'a bzip2-compressed file', hint: decompress('bzcat', 'bz2') },
    })),
  ),
  {
    bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
    kind: { what: 'an xz-compressed file', hint: decompress('xzcat', 'xz') },
  },
  {
    bytes: [0x28, 0xb5, 0x2f, 0xfd],
    kind: { what: 'a zstd-compressed file', hint: decompress('zstdcat', 'zst') },
  },
  {
    bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
    kind: {
      what: 'a 7-Zip archive',
      hint: 'Unpack it (`7z x file.7z`) and give the file inside as the input.',
    },
  },
  {
    bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    kind: { what: 'an Excel 97-2003 workbook (.xls) or another Office file', hint: SAVE_AS_CSV },
  },
  {
    bytes: [...Buffer.from('SQLite format 3\0')],
    kind: {
      what: 'an SQLite database (a GeoPackage?)',
      hint: 'Export the layer as GeoJSON or CSV first, e.g. `ogr2ogr -f GeoJSON out.geojson file.gpkg`.',
    },
  },
  {
    bytes: [...Buffer.from('%PDF-')],
    kind: {
      what: 'a PDF document',
      hint: 'geobatch reads CSV, NDJSON or GeoJSON text: check the input path.',
    },
  },
];

/** ZIP local file header, or the end record of an empty archive. */
function isZip(head: Buffer): boolean {
  return (
    head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05) && head[3] === head[2] + 1
  );
}

/** A ZIP file's names say what it is: Office Open XML and OpenDocument files are ZIP archives. */
function zipKind(head: Buffer): Kind {
  const names = head.toString('latin1', 0, Math.min(head.length, 65536));
  if (names.includes('xl/')) return { what: 'an Excel workbook (.xlsx, a ZIP file)', hint: SAVE_AS_CSV };
  if (names.includes('opendocument.spreadsheet'))
    return { what: 'an OpenDocument spreadsheet (.ods, a ZIP file)', hint: SAVE_AS_CSV };
  return {
    what: 'a ZIP archive',
    hint: 'Unpack it and give the file inside as the input, or stream it in: `unzip -p file.zip data.csv | geobatch run job.yaml -i -`.',
  };
}

/** Bytes searched for a NUL, which no text in UTF-8 or windows-1252 holds. */
const NUL_WINDOW = 1024;

/** UTF-16 text without a byte order mark: NUL in every other byte (the high byte of ASCII). */
function utf16Kind(window: Buffer): Kind | undefined {
  let even = 0;
  let odd = 0;
  for (let i = 0; i < window.length; i++) if (window[i] === 0) i % 2 === 0 ? even++ : odd++;
  const half = window.length / 2;
  const order =
    odd > half * 0.4 && even < half * 0.05 ? 'LE' : even > half * 0.4 && odd < half * 0.05 ? 'BE' : '';
  if (order === '') return undefined;
  return {
    what: `UTF-16${order} text without a byte order mark`,
    hint: `Convert it to UTF-8 (Excel: Save As "CSV UTF-8"; or \`iconv -f UTF-16${order} -t UTF-8 in > out\`).`,
  };
}

/** What the input looks like when its first bytes say it is not text; undefined for text. */
export function binaryKind(head: Buffer): Kind | undefined {
  if (isZip(head)) return zipKind(head);
  for (const { bytes, kind } of SIGNATURES) if (bytes.every((byte, i) => head[i] === byte)) return kind;
  const window = head.subarray(0, NUL_WINDOW);
  const nul = window.indexOf(0);
  if (nul === -1) return undefined;
  return (
    utf16Kind(window) ?? {
      what: `binary data, not text (byte ${nul + 1} is NUL, which text never holds)`,
      hint: 'Check that the input path names the CSV, NDJSON or GeoJSON file.',
    }
  );
}

export function binaryError(kind: Kind): GeobatchError {
  return new InputError(
    'INPUT_ENCODING',
    `The input is ${kind.what}; geobatch reads CSV, NDJSON or GeoJSON text`,
    {
      path: 'input',
      expected: 'CSV, NDJSON or GeoJSON text (utf-8 or windows-1252)',
      received: kind.what,
      hint: kind.hint,
    },
  );
}
