import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The data directory, found from this module's own location by walking up to the package root, so
 * that it resolves the same from src/ (vitest, tsx) and from dist/ (the built CLI).
 */
export function dataDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return join(dir, 'src', 'emulator', 'data');
}
