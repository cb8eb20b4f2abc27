/**
 * undici's Agent without the rest of undici. `import { Agent } from 'undici'` loads the whole
 * package (fetch, WebSocket, the mock agents, the caches, and through them Node's own bundled
 * copy of undici), about 10 MB of peak RSS on a 100,000-row run (BENCHMARKS.md, memory) for one
 * class. The package has no exports map, so the class's own file can be required by its path;
 * that path is undici's layout, not its promise, so test/client/undici.test.ts checks that it is
 * the very class the package exports, and an upgrade that moves it fails there, by name.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

export const AGENT_PATH = 'undici/lib/dispatcher/agent.js';

export const Agent = createRequire(import.meta.url)(AGENT_PATH) as typeof Undici.Agent;
export type { Dispatcher } from 'undici';
