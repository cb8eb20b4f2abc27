import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { AGENT_PATH, Agent } from '../../src/client/_undici.js';

describe("undici's Agent, loaded by its own file", () => {
  it('is the class the undici package exports (an upgrade that moves the file fails here)', () => {
    const require = createRequire(import.meta.url);
    expect(require.resolve(AGENT_PATH)).toMatch(/node_modules\/undici\/lib\/dispatcher\/agent\.js$/);
    expect(Agent).toBe((require('undici') as typeof import('undici')).Agent);
    expect(typeof new Agent({ connections: 1 }).dispatch).toBe('function');
  });
});
