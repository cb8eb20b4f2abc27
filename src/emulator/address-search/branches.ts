/**
 * EMULATOR CHOICE: the category codes of this integration. Every record carries the base code for
 * the full assortment, plus the categories its name suggests (keywords), or one picked by a
 * stable hash of the name when no keyword fits.
 */
import { fnv1a } from '../lib/_rng.js';

export interface Branch {
  code: string;
  text: string;
  /** Patterns over the folded name (lower case, no diacritics). */
  keywords: RegExp | null;
}

/** The base code: the full assortment; every record has it. */
export const BASE_BRANCH: Branch = { code: '100', text: 'Gesamtsortiment', keywords: null };

export const BRANCHES: readonly Branch[] = [
  {
    code: '1101',
    text: 'Behörden/Verwaltung',
    keywords:
      /amt\b|verwaltung|behorde|ministerium|agentur fur arbeit|\bbundes|\blandes|\bstadt\b|gemeinde|landkreis/,
  },
  { code: '1102', text: 'Justiz/Gerichte', keywords: /gericht|staatsanwaltschaft|justiz/ },
  {
    code: '1201',
    text: 'Gesundheit',
    keywords:
      /klinik|krankenhaus|hospital|\baok\b|gesundheit|krankenkasse|barmer|\bdak\b|\bikk\b|\bbkk\b|apothek|pflege|pharma|medizin/,
  },
  {
    code: '1301',
    text: 'Banken/Versicherungen',
    keywords: /bank|sparkasse|versicherung|allianz|\bhuk\b|bauspar|kredit|leasing|invest|finanzdienst/,
  },
  {
    code: '1401',
    text: 'Medien/Verlage',
    keywords: /verlag|zeitung|rundfunk|fernseh|medien|presse|radio|druck/,
  },
  {
    code: '1501',
    text: 'Handel',
    keywords: /handel|karstadt|kaufhof|versand|markt|\botto\b|quelle|vertrieb|shop/,
  },
  {
    code: '1601',
    text: 'Industrie/Produktion',
    keywords:
      /industrie|werke?\b|siemens|bosch|daimler|\bbmw\b|benz|basf|chemie|maschinen|stahl|motoren|volkswagen|\baudi\b/,
  },
  {
    code: '1701',
    text: 'Post/Telekommunikation',
    keywords: /\bpost|telekom|brief|zustell|vodafone|telefon|kommunikation/,
  },
  {
    code: '1801',
    text: 'Bildung/Forschung',
    keywords: /universitat|hochschule|schule|institut|akademie|forschung|fraunhofer|planck/,
  },
  {
    code: '1901',
    text: 'Verkehr/Logistik',
    keywords: /\bbahn|logistik|spedition|verkehr|flughafen|transport|lufthansa/,
  },
  {
    code: '2001',
    text: 'Energie/Versorgung',
    keywords: /stadtwerke|energie|versorgung|wasser|\bgas\b|strom|elektri/,
  },
  {
    code: '2101',
    text: 'Kammern/Verbände',
    keywords: /kammer|verband|verein|gewerkschaft|stiftung|genossenschaft|\be v\b/,
  },
  {
    code: '2201',
    text: 'Kirche/Soziales',
    keywords: /kirche|diakon|caritas|bistum|evangelisch|katholisch|sozial/,
  },
  {
    code: '2301',
    text: 'Dienstleistungen',
    keywords: /service|beratung|consult|management|dienst|marketing/,
  },
];

/** The categories of a folded company name: base code first, then keyword matches (or one by hash). */
export function classify(folded: string): Branch[] {
  const found = BRANCHES.filter((b) => b.keywords?.test(folded));
  if (found.length === 0) found.push(BRANCHES[fnv1a(folded) % BRANCHES.length] as Branch);
  return [BASE_BRANCH, ...found];
}

/** AND of ORs: `a&b|c` = a AND (b OR c); the pipe binds stronger. */
export type BranchExpression = readonly (readonly string[])[];

/** The parsed expression, or null when it names no code (-> the 400 "Branchen sind erforderlich"). */
export function parseBranches(value: string | null): BranchExpression | null {
  if (value === null) return null;
  const terms = value
    .split('&')
    .map((term) =>
      term
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean),
    )
    .filter((t) => t.length > 0);
  return terms.length === 0 ? null : terms;
}

/** Bit of each known code: a record's codes become one integer, an OR set one mask. */
const BIT = new Map([BASE_BRANCH, ...BRANCHES].map((b, i) => [b.code, 1 << i]));

export function branchMask(codes: Iterable<string>): number {
  let mask = 0;
  for (const code of codes) mask |= BIT.get(code) ?? 0;
  return mask;
}

/**
 * The expression as one mask per AND term; a record matches when it shares a bit with every one.
 * A term naming only unknown codes is 0 and matches nothing, as an unknown category should.
 */
export function compileBranches(expression: BranchExpression): readonly number[] {
  return expression.map(branchMask);
}

export function matchesMasks(recordMask: number, terms: readonly number[]): boolean {
  for (const term of terms) if ((recordMask & term) === 0) return false;
  return true;
}
