import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

describe('runtime', () => {
  it('runs the tests on the Node that the project brings, not the machine’s', () => {
    const brought = pkg.devDependencies.node;
    expect(brought).toMatch(/^24\./);
    expect(process.versions.node).toBe(brought);
  });

  it('declares Node 22.13 as the oldest it runs on, the first with node:sqlite', () => {
    expect(pkg.engines.node).toBe('>=22.13');
  });

  it('approves the install script that places the Node binary', () => {
    expect(pkg.allowScripts.node).toBe(true);
  });
});
