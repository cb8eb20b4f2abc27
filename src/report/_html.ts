/** Text into HTML: everything inserted into the page passes through here. */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an element's content or a quoted attribute value. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * JSON for a `<script type="application/json">` block: `<` written as `\u003c` so that no value
 * (a row field holding `</script>`) can end the block; the line separators JSON allows but older
 * script parsers do not are escaped as well.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A library's code or stylesheet inlined into `<script>` / `<style>`: it must not close the element. */
export function inlineSafe(code: string, element: 'script' | 'style'): string {
  return code.replace(new RegExp(`</(${element})`, 'gi'), '<\\/$1');
}

/** Inline code (`x`) in advice text becomes <code>; everything else is escaped. */
export function escWithCode(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${esc(part)}</code>` : esc(part)))
    .join('');
}

/**
 * A number as en-US writes it with at most one decimal, as `Intl.NumberFormat('en-US',
 * { maximumFractionDigits: 1 })` does: thousands grouped with commas, a half rounded away from
 * zero on the number's shortest decimal form, no trailing zero, `-0` for a negative that rounds
 * to zero. Written out because creating any Intl formatter maps ICU's locale data into the
 * process: the module is loaded with every run, and the formatter cost a 100,000-row run about
 * 8 MB of its peak RSS (BENCHMARKS.md, memory). Intl still formats what no report has: NaN,
 * infinities and magnitudes of 1e21 and more.
 */
export function num(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return rareNumbers().format(value);
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  // The shortest decimal that reads back as the number; an exponent only below 1e-6, which rounds to 0.
  const shortest = Math.abs(value).toString();
  const [whole = '0', fraction = ''] = shortest.includes('e') ? ['0'] : shortest.split('.');
  const halfOrMore = (fraction[1] ?? '0') >= '5';
  const tenths = BigInt(whole + (fraction[0] ?? '0')) + (halfOrMore ? 1n : 0n);
  const grouped = (tenths / 10n).toString().replace(/\B(?=(\d{3})+$)/g, ',');
  const decimal = tenths % 10n;
  return `${sign}${grouped}${decimal === 0n ? '' : `.${decimal}`}`;
}

let rare: Intl.NumberFormat | undefined;
function rareNumbers(): Intl.NumberFormat {
  rare ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
  return rare;
}

/** A count and its noun, singular for exactly one: `1 row`, `0 rows`, `1,321 rows`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${num(count)} ${count === 1 ? noun : nouns}`;
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return '';
  const share = (part / whole) * 100;
  return `${share > 0 && share < 0.1 ? '<0.1' : num(share)}%`;
}

export function duration(ms: number): string {
  if (ms < 60_000) return `${num(Math.round(ms / 100) / 10)} s`;
  const s = Math.round(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h} h ${m} min` : `${m} min ${sec} s`;
}

export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${num(Math.round(value * 10) / 10)} ${units[unit]}`;
}
