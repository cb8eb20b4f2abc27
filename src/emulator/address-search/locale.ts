/**
 * IsoLocale, "language for multilingual content" (spec; default `de-DE`). EMULATOR CHOICE: the
 * only multilingual content the emulator's records have is their category names, kept in German
 * and English; any other well-formed locale is answered in German, as a service without that
 * language would. A value that is no locale at all is refused as another bad parameter is (200,
 * StatusCode 2), so that a client sending one is caught here rather than answered in German.
 */
import { ADDRESS_SEARCH_STATUS } from '../../contract/index.js';
import { BASE_BRANCH, BRANCHES } from './branches.js';
import type { Problem } from './params.js';

export type Language = 'de' | 'en';

/** The English names of the categories (branches.ts keeps the German ones). */
const ENGLISH: Readonly<Record<string, string>> = {
  [BASE_BRANCH.code]: 'Full assortment',
  '1101': 'Authorities/Administration',
  '1102': 'Justice/Courts',
  '1201': 'Health',
  '1301': 'Banks/Insurance',
  '1401': 'Media/Publishing',
  '1501': 'Retail',
  '1601': 'Industry/Manufacturing',
  '1701': 'Post/Telecommunications',
  '1801': 'Education/Research',
  '1901': 'Transport/Logistics',
  '2001': 'Energy/Utilities',
  '2101': 'Chambers/Associations',
  '2201': 'Church/Social services',
  '2301': 'Services',
};

/** The language IsoLocale asks for, or why it is no locale (`de`, `de-DE`, `de_DE` are taken). */
export function language(query: URLSearchParams): Language | Problem {
  const value = (query.get('IsoLocale') ?? '').trim();
  if (value === '') return 'de';
  const match = /^([A-Za-z]{2})(?:[-_][A-Za-z]{2})?$/.exec(value);
  if (match === null)
    return {
      kind: 'status',
      code: ADDRESS_SEARCH_STATUS.INVALID_PARAMETER,
      report: `Unbekannte Sprache IsoLocale=${value}. Erwartet wird eine Angabe wie de-DE oder en-GB.`,
    };
  return match[1]?.toLowerCase() === 'en' ? 'en' : 'de';
}

const GERMAN = new Map([BASE_BRANCH, ...BRANCHES].map((b) => [b.code, b.text]));

/**
 * An item's JSON (records.ts keeps it written in German) in `lang`: each category's BranchText and
 * Language. The texts are replaced as JSON strings, so a company name that happens to read like a
 * category name is left alone.
 */
export function localised(json: string, lang: Language): string {
  if (lang === 'de') return json;
  let out = json.replaceAll('"Language":"de"', '"Language":"en"');
  for (const [code, german] of GERMAN) {
    const english = ENGLISH[code];
    if (english !== undefined)
      out = out.replaceAll(
        `"BranchText":${JSON.stringify(german)}`,
        `"BranchText":${JSON.stringify(english)}`,
      );
  }
  return out;
}
