/**
 * The system programs these tests drive. A missing one fails the test that needs it with the
 * command that installs it: a system test never skips silently.
 */
import { spawnSync } from 'node:child_process';

/** The Debian packages the system tests need, as .ci/run installs them. */
export const INSTALL = 'apt-get update && apt-get install -y gdal-bin chromium';

const PACKAGE: Readonly<Record<string, string>> = {
  ogrinfo: 'gdal-bin',
  ogr2ogr: 'gdal-bin',
  '/usr/bin/python3': 'python3-gdal (a dependency of gdal-bin)',
  chromium: 'chromium',
};

/** GDAL's GeoPackage validator, shipped with python3-gdal (a dependency of gdal-bin). */
export const VALIDATE_GPKG = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py';

/** Throws, naming the install command, unless `command args` runs and exits 0. */
export function requireTool(command: string, args: readonly string[] = ['--version']): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error === undefined && result.status === 0) return;
  const why = result.error?.message ?? `exit ${result.status}: ${result.stderr.trim()}`;
  const pkg = PACKAGE[command] ?? command;
  throw new Error(
    `${command} is needed by the system tests and did not run (${why}). ` +
      `It comes with the Debian package ${pkg}; install the system tests' packages (as root) with: ${INSTALL}`,
  );
}

/** Runs a program and returns its standard output; a non-zero exit throws with its standard error. */
export function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`,
    );
  }
  return result.stdout;
}
