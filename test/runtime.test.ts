import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE, runtimeProblem } from '../src/cli/_runtime.js';

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

  it('the command refuses an older Node with what to do, before loading anything that needs a newer one', () => {
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE.join('.')}`);
    for (const old of ['20.20.2', '22.12.0', '18.0.0']) {
      expect(runtimeProblem(old)).toContain(
        `geobatch needs Node.js 22.13 or newer (24 LTS recommended); this is Node.js ${old}.`,
      );
    }
    for (const fine of ['22.13.0', '22.21.1', '23.0.0', '24.21.0', '26.1.0'])
      expect(runtimeProblem(fine)).toBeUndefined();
  });

  it('approves the install script that places the Node binary', () => {
    expect(pkg.allowScripts.node).toBe(true);
  });
});
