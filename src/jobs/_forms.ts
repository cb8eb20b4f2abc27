/**
 * Kinds that ask the service in several forms (address search by position, address or rectangle;
 * area export by osm id or rectangle) read different mapping keys in each. The form is the one an
 * option names, else the one whose keys the mapping holds; keys of another form are refused
 * rather than silently ignored, and a form's required keys must all be there.
 */
import { ConfigError } from '../errors.js';
import type { FileIssue } from './_file-rules.js';

export interface FormRule<F extends string> {
  /** The mapping keys each form reads. */
  readonly keys: Readonly<Record<F, readonly string[]>>;
  /** Keys a form cannot do without (all of them). */
  readonly required?: Readonly<Partial<Record<F, readonly string[]>>>;
  /**
   * Keys a form needs at least one of, every row failing without: the address form's zip, city or
   * location (a street alone is searched nowhere). Not refused when a job loads, where a row's own
   * values decide; `geobatch init` drafts no form that maps none of them when another form runs.
   */
  readonly oneOf?: Readonly<Partial<Record<F, { readonly keys: readonly string[]; readonly why: string }>>>;
  /** The form when the mapping holds no key of any form; none: such a mapping is an error. */
  readonly fallback?: F;
  /** Whether the kind has an `options.form` that names the form (else only the mapping tells). */
  readonly formOption?: boolean;
}

export type FormChoice<F extends string> = { readonly form: F } | { readonly issue: FileIssue };

function mappedKeys(mapping: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(mapping)
    .filter(([, source]) => source !== undefined)
    .map(([key]) => key);
}

/** `mapping.lon, mapping.lat`. */
function keysOf(keys: readonly string[]): string {
  return keys.map((key) => `mapping.${key}`).join(', ');
}

/** The form of a job, or the first thing wrong with its mapping for it. */
export function chooseForm<F extends string>(
  rule: FormRule<F>,
  mapping: Readonly<Record<string, unknown>>,
  named: F | undefined,
): FormChoice<F> {
  const forms = Object.keys(rule.keys) as F[];
  const mapped = mappedKeys(mapping);
  const formOf = (key: string) => forms.find((f) => rule.keys[f].includes(key));
  let form = named;
  if (form === undefined) {
    const found = [...new Set(mapped.map(formOf).filter((f): f is F => f !== undefined))];
    if (found.length > 1) {
      const [a, b] = found as [F, F];
      const keyA = mapped.find((k) => formOf(k) === a);
      const keyB = mapped.find((k) => formOf(k) === b);
      // Each way out, said whole: naming a form with options.form still leaves the other's keys
      // refused, so "or name it with options.form" sent the user to a second refusal.
      const ways = found.map(
        (f) =>
          `for the ${f} form, drop ${keysOf(mapped.filter((k) => formOf(k) !== undefined && formOf(k) !== f))}`,
      );
      return {
        issue: {
          path: `mapping.${keyB}`,
          expected: `keys of one form only: mapping.${keyA} is for the ${a} form, mapping.${keyB} for the ${b} form`,
          hint: ways.join('; '),
        },
      };
    }
    form = found[0] ?? rule.fallback;
    if (form === undefined) {
      const all = forms.map((f) => `${f}: ${rule.keys[f].join(', ')}`).join('; ');
      return {
        issue: {
          path: 'mapping',
          expected: `expected the keys of one form (${all}), got none`,
          received: 'nothing',
        },
      };
    }
  }
  const chosen = form;
  const strays = mapped.filter((k) => formOf(k) !== undefined && !rule.keys[chosen].includes(k));
  const [stray] = strays;
  if (stray !== undefined) {
    const other = formOf(stray) as F;
    const own = mapped.filter((k) => rule.keys[chosen].includes(k));
    const switching = [`set options.form: ${other}`, ...(own.length > 0 ? [`drop ${keysOf(own)}`] : [])];
    return {
      issue: {
        path: `mapping.${stray}`,
        expected: `not used by the ${chosen} form (it reads ${rule.keys[chosen].join(', ')})`,
        hint: `drop ${keysOf(strays)}; or, for the ${other} form, ${switching.join(' and ')}`,
      },
    };
  }
  const missing = (rule.required?.[chosen] ?? []).find((k) => !mapped.includes(k));
  if (missing !== undefined) {
    return {
      issue: {
        path: `mapping.${missing}`,
        expected: `a column for ${missing} (the ${chosen} form needs ${(rule.required?.[chosen] ?? []).join(', ')})`,
        hint: `map ${missing} to the column that holds it`,
      },
    };
  }
  return { form: chosen };
}

/** The form for a job built in code: the same rule, its issue thrown as a job-file error. */
export function formOrThrow<F extends string>(
  rule: FormRule<F>,
  mapping: Readonly<Record<string, unknown>>,
  named: F | undefined,
): F {
  const choice = chooseForm(rule, mapping, named);
  if ('issue' in choice)
    throw new ConfigError(`${choice.issue.path}: ${choice.issue.expected}`, { ...choice.issue });
  return choice.form;
}
