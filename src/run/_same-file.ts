/**
 * Whether two paths are one file: the same path, or (both existing) the same file reached another
 * way, through a symbolic link, a linked directory or a hard link. `-` (standard input) is no file.
 */
import { statSync } from 'node:fs';

export function sameFile(path: string, other: string): boolean {
  if (path === other) return true;
  if (path === '-' || other === '-') return false;
  try {
    const a = statSync(path);
    const b = statSync(other);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}
