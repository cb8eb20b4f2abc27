/**
 * A cell holding one of the service's record identifiers, read as the YMID the service takes, or
 * what keeps it from being one: identifier-lookup fails such a row before any request, and says
 * which rule the text breaks (a character no form has, two alphabets, padding, a length), so that
 * a column cut short, a label pasted with the id or a mangled URL encoding can be told apart.
 */

// Base64 (YMID) or its URL- and path-safe alphabet, one of the two: a text mixing `+` or `/` with
// `-` or `_` is neither. Padding only at the end.
const YMID = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

/** Characters no form of a YMID has (spaces are `+` signs a form-decoded URL turned into spaces). */
const FOREIGN = /[^A-Za-z0-9+/=_-]/gu;

/** Characters that look like nothing or like a space in a message: shown as their escapes. */
const UNSEEN = /[\p{C}\p{Z}]/u;

/** What the message says a YMID is. */
export const YMID_EXPECTED =
  'expected a YMID (Base64, such as /AadklP/MvIhD9lUF7z+Xg==) or its YMIDUrlEncoded or YMIDPathEncoded form';

/** The identifier a cell holds as the YMID, or why the text cannot be one (after `got <cell>: `). */
export type IdentifierReading = { readonly id: string } | { readonly problem: string };

/**
 * The identifier a cell holds, as the raw YMID, or why the text cannot be one:
 * - YMIDUrlEncoded (`%2F...%3D%3D`) is decoded;
 * - a `+` that became a space (a YMID pasted through a form-decoded URL) is restored: Base64 has no
 *   spaces, and padded Base64 is a multiple of 4 long, which tells a space that was a `+` at either
 *   end from a stray one (the text is trimmed only when keeping the spaces would break that);
 * - the `'` a spreadsheet formula guard (geobatch's own CSV output) put before a leading `+` is dropped;
 * - YMIDPathEncoded, and a YMID without its padding, are made the YMID (asYmid).
 */
export function parseIdentifier(raw: string): IdentifierReading {
  let text = raw.replace(/^[\r\n\t]+|[\r\n\t]+$/g, '');
  if (/%[0-9A-Fa-f]{2}/.test(text)) {
    try {
      text = decodeURIComponent(text.trim());
    } catch {
      return {
        problem:
          'its %-escapes (YMIDUrlEncoded) do not decode: a % not followed by two hex digits, or an escape of a character cut in half',
      };
    }
  }
  const whole = text.replace(/ /g, '+');
  const id = whole.length % 4 === 0 && YMID.test(whole) ? whole : text.trim().replace(/ /g, '+');
  const unguarded = id.startsWith("'+") ? id.slice(1) : id;
  const problem = shapeProblem(unguarded);
  return problem === undefined ? { id: asYmid(unguarded) } : { problem };
}

/** The raw YMID a cell holds, or undefined when the text cannot be one (parseIdentifier). */
export function readIdentifier(raw: string): string | undefined {
  const reading = parseIdentifier(raw);
  return 'id' in reading ? reading.id : undefined;
}

/**
 * Why the text is no Base64 at all, or undefined when it can be. The spec says only "Base64" (no
 * length), so only what no Base64 text is gets refused, each such id saving a request that could
 * only answer NOT_FOUND: no encoding is 4n+1 characters long, and padded text is 4n.
 */
function shapeProblem(id: string): string | undefined {
  const foreign = [...new Set(id.match(FOREIGN) ?? [])];
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 5).map(character).join(', ');
    const more = foreign.length > 5 ? ` and ${foreign.length - 5} more` : '';
    return `it holds ${shown}${more}, which no YMID has (letters, digits, + and /, or - and _ in the path-safe form, = padding at the end)${labelled(id)}`;
  }
  const body = id.replace(/=+$/, '');
  if (body === '') return 'it is = padding alone, with no identifier before it';
  if (body.includes('=')) return `it has = inside it: Base64 pads with = at the end only${labelled(id)}`;
  if (id.length - body.length > 2)
    return `it ends in ${id.length - body.length} =: Base64 pads with at most two`;
  if (/[+/]/.test(body) && /[-_]/.test(body))
    return "it mixes the YMID's + or / with the path-safe form's - or _, and no form has both";
  if (body.length < id.length && id.length % 4 !== 0)
    return `it is ${id.length} characters long with its = padding, and padded Base64 is a multiple of 4 long: a character lost or one too many?`;
  if (id.length % 4 === 1)
    return `it is ${id.length} ${id.length === 1 ? 'character' : 'characters'} long, a length no Base64 text has (4n+1): a character lost or one too many?`;
  return undefined;
}

/** A character for the message: itself in backticks, or its \u escape where it cannot be seen. */
function character(c: string): string {
  return UNSEEN.test(c) ? `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}` : `\`${c}\``;
}

/**
 * A hint for an identifier pasted with what stood before it (`YMID: ...`, a URL's `Identifier=`):
 * the text after the last label that leaves an identifier, if there is one.
 */
function labelled(text: string): string {
  const match = /^(.*[:=?])(\+*)([A-Za-z0-9+/_-]+={0,2})$/.exec(text);
  if (match === null) return '';
  const [, label, spaces, rest] = match as unknown as [string, string, string, string];
  // `YMID: /Aad...`: the space after the label was read as a + (parseIdentifier); a YMID may start
  // with one or more of its own (`YMID: +08Q...`), so each split of the run of + is tried.
  const candidates = Array.from({ length: spaces.length + 1 }, (_, kept) => '+'.repeat(kept) + rest);
  const id = candidates.find((candidate) => candidate.length >= 4 && shapeProblem(candidate) === undefined);
  return id === undefined
    ? ''
    : `; is ${quoted(label, 30)} a label? what follows it would be read as an identifier`;
}

/**
 * A cell as a message quotes it: whole when short, else its start and its end (where a cut or a
 * padding shows) with the length between, in backticks.
 */
export function quoted(text: string, max = 60): string {
  // A line break or a control character quoted as it is would break the message's line (a log
  // record, the terminal): shown escaped, as the reason names it.
  const chars = [...text].map((c) => (/\p{Cc}/u.test(c) ? character(c) : c));
  if (chars.length <= max) return `\`${chars.join('')}\``;
  const head = chars.slice(0, max - 16).join('');
  const tail = chars.slice(-12).join('');
  return `\`${head}…${tail}\` (${chars.length} characters)`;
}

/**
 * The YMID (Base64, padded) of an identifier in another of the service's forms: YMIDPathEncoded
 * (the path-safe alphabet, `-` and `_`, unpadded) or a YMID that lost its `=` padding (a column
 * cut at `=`, a tool that strips it). The service takes the YMID only; sent as they were, both
 * came back NOT_FOUND, which says the record is gone when it is there.
 */
function asYmid(id: string): string {
  const standard = id.replace(/-/g, '+').replace(/_/g, '/');
  const short = standard.length % 4;
  return standard.endsWith('=') || short === 0 ? standard : standard + '='.repeat(4 - short);
}
