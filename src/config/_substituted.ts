/**
 * A message about a value the environment gave says so: "jobs/x.yaml: output (from ${OUT}): ...".
 * The key alone sent the user to a file that writes `${OUT}`, not the value refused.
 */
import { ConfigError, isGeobatchError } from '../errors.js';
import { fromVariables, type Interpolated } from './env.js';

/**
 * `error` with the variables that made the value at its path named after the path, where the
 * message names it as `<shown>: <path>:`; a mapping constant's message names the field, whose
 * `value` was substituted. A message that quotes what the file writes (`${BS}`) names them already.
 */
export function namingVariables(error: unknown, interpolated: Interpolated, shown: string): unknown {
  if (!isGeobatchError(error) || error.code !== 'CONFIG_INVALID') return error;
  const at = error.context.path;
  if (at === undefined) return error;
  const substitution = interpolated.substitutionNamed(at) ?? interpolated.substitutionNamed(`${at}.value`);
  const place = `${shown}: ${at}:`;
  if (substitution === undefined || error.message.includes(substitution.written)) return error;
  if (!error.message.includes(place)) return error;
  const message = error.message.replace(place, `${shown}: ${at}${fromVariables(substitution)}:`);
  return new ConfigError(message, { ...error.context });
}
