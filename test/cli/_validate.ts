/** `geobatch validate` run in the test's own process, what it prints caught. */
import { vi } from 'vitest';
import { validateCommand } from '../../src/cli/validate.js';

/** Runs `geobatch validate <file>` in this process; returns what it printed, or its error. */
export async function validate(file: string, ...flags: string[]): Promise<{ out: string; error?: unknown }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await validateCommand().parseAsync([file, ...flags], { from: 'user' });
    return { out };
  } catch (error) {
    return { out, error };
  } finally {
    vi.restoreAllMocks();
  }
}
