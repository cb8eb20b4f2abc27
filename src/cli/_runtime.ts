/**
 * The Node.js the command needs, checked before anything else is loaded: on an older Node the
 * first module that imports `node:sqlite` would fail with ERR_UNKNOWN_BUILTIN_MODULE and a stack
 * trace, which says nothing about what to do. Plain code only: it must run on any Node.
 */

/** The oldest Node.js geobatch runs on (package.json `engines`): `node:sqlite` came with 22.13. */
export const MINIMUM_NODE = [22, 13] as const;

/** What to tell the user when `version` (process.versions.node) is too old; undefined when fine. */
export function runtimeProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return (
    `geobatch needs Node.js ${needMajor}.${needMinor} or newer (24 LTS recommended); this is Node.js ${version}.\n` +
    'Install a newer Node.js. In a clone of the geobatch repository, `npm ci` brings Node 24 for ' +
    'the npm scripts and `npx geobatch`.\n'
  );
}
