/**
 * A country cell as the service's `IsoCountryCode` takes it: an ISO 3166 code (`DE`, or `DEU` as
 * its two letters), the one-letter form the spec allows (`D`), or a country's name in German or
 * English (`Deutschland`, `Germany`, `Österreich`, `UK`) as its two-letter code. A column that the
 * geocoder reads as it is (it takes names) sent a name to the search, which found nothing and wrote
 * the row ok with no hit: anything else (`GER`, `BRD`, a typo) is no country, said so.
 *
 * The codes and names are i18n-iso-countries' (ISO 3166-1, with the names and common aliases of
 * each language): a table kept up to date elsewhere rather than one of ours; ICU's region names
 * alone could not tell `GER` from an alpha-3 code.
 */
import countries from 'i18n-iso-countries';
import de from 'i18n-iso-countries/langs/de.json' with { type: 'json' };
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };

let registered = false;

/** One-letter vehicle registration codes of European countries (Austria, Belgium, Germany, Spain, France, Hungary, Italy, Luxembourg, Malta, Norway, Portugal, Sweden, the Vatican). */
const ONE_LETTER = new Set(['A', 'B', 'D', 'E', 'F', 'H', 'I', 'L', 'M', 'N', 'P', 'S', 'V']);

/** The code to send for `text`, or undefined when it is neither a code nor a country's name. */
export function countryCode(text: string): string | undefined {
  const trimmed = text.trim();
  // The spec: "one-letter form (e.g. `D`) also accepted", the letters of the international vehicle
  // registration codes; the European countries' one-letter codes are taken, any other letter (a
  // typo, a placeholder) is no country.
  if (/^[A-Za-z]$/.test(trimmed)) {
    const letter = trimmed.toUpperCase();
    return ONE_LETTER.has(letter) ? letter : undefined;
  }
  const upper = trimmed.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && countries.isValid(upper)) return upper;
  if (/^[A-Z]{3}$/.test(upper)) {
    const alpha2 = countries.alpha3ToAlpha2(upper);
    if (alpha2 !== undefined) return alpha2;
  }
  if (!registered) {
    countries.registerLocale(de);
    countries.registerLocale(en);
    registered = true;
  }
  const name = trimmed.normalize('NFC').replace(/\s+/g, ' ');
  return countries.getSimpleAlpha2Code(name, 'de') ?? countries.getSimpleAlpha2Code(name, 'en');
}
