/** Medians and spreads: shared machines drift, so every figure is a median with its range. */

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, n: sorted.length };
}

/** `1.23 (1.10–1.31, n=3)`; the range is left out for a single value. */
export function showSpread(s: Spread, digits = 2, unit = ''): string {
  const f = (v: number) => `${fixed(v, digits)}${unit}`;
  if (s.n <= 1) return f(s.median);
  if (s.min === s.max) return `${f(s.median)} (n=${s.n}, all equal)`;
  return `${f(s.median)} (${f(s.min)}–${f(s.max)}, n=${s.n})`;
}

export function fixed(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  return digits === 0 ? count(value) : value.toFixed(digits);
}

/** Thousands separated with a comma, as the issue writes them. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
