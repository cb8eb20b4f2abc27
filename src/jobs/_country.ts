/**
 * A country cell as the service's `IsoCountryCode` takes it: an ISO code (`DE`, `DEU`, or the
 * one-letter form `D` the spec allows), upper-cased; a country's name in German or English
 * (`Deutschland`, `Germany`, `Österreich`) as its two-letter code. A column that the geocoder reads
 * as it is (it takes names) sent a name to the search, which found nothing and wrote the row ok
 * with no hit: anything else is now no country, said so.
 */

/** Names by lower-case text, built on first use from ICU's region names (no table of our own). */
let names: Map<string, string> | undefined;

function byName(): Map<string, string> {
  if (names !== undefined) return names;
  names = new Map();
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const displays = ['de', 'en'].map(
    (locale) => new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' }),
  );
  for (const a of letters)
    for (const b of letters) {
      const code = `${a}${b}`;
      // ZZ is ICU's "unknown region", not a country.
      if (code === 'ZZ') continue;
      for (const display of displays) {
        let name: string | undefined;
        try {
          name = display.of(code);
        } catch {
          name = undefined;
        }
        if (name !== undefined && name !== code) names.set(loose(name), code);
      }
    }
  return names;
}

function loose(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('de-DE');
}

/** The code to send for `text`, or undefined when it is neither a code nor a country's name. */
export function countryCode(text: string): string | undefined {
  const trimmed = text.trim();
  if (/^[A-Za-z]{1,3}$/.test(trimmed)) return trimmed.toUpperCase();
  return byName().get(loose(trimmed));
}
