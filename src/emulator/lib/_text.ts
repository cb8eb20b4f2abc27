/** Text folding for case- and diacritic-insensitive matching of German names. */

const COMBINING = /[\u0300-\u036f]/g;
const SEPARATORS = /[^a-z0-9]+/g;

/** Lower case, ß -> ss, diacritics dropped, punctuation to single spaces: "Bad Dürkheim" -> "bad durkheim". */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(COMBINING, '')
    .replace(SEPARATORS, ' ')
    .trim();
}

/** The German transliteration (ä -> ae...) folded too, so "Muenchen" finds "München". */
export function foldTransliterated(text: string): string {
  return fold(text.toLowerCase().replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue'));
}

/** Every folded form of a name a query may be matched against (one or two). */
export function foldForms(text: string): string[] {
  const plain = fold(text);
  const translit = foldTransliterated(text);
  return translit === plain ? [plain] : [plain, translit];
}

export function tokens(folded: string): string[] {
  return folded.length === 0 ? [] : folded.split(' ');
}

/** The German collation used for ordering by name. */
export const germanCollator = new Intl.Collator('de-DE', { sensitivity: 'base', numeric: true });
