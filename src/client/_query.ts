/**
 * Query strings: every value URL-encoded exactly once, numbers never in exponent form (a service
 * that reads `1e-7` as a coordinate is not one we want to find out about in production).
 */

export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

/** A number as plain decimal text. */
export function formatNumber(n: number): string {
  const text = String(n);
  if (!text.includes('e')) return text;
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/** `a=1&b=x%20y`; undefined and null values are left out, arrays are joined with commas. */
export function buildQuery(params: Readonly<Record<string, QueryValue>>): string {
  let out = '';
  for (const name in params) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === 'number') text = formatNumber(value);
    else if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = String(value);
    else text = value.map((v) => (typeof v === 'number' ? formatNumber(v) : v)).join(',');
    out += `${out === '' ? '' : '&'}${name}=${encodeURIComponent(text)}`;
  }
  return out;
}
