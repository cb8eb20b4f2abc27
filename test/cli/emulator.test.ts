import { describe, expect, it } from 'vitest';
import { cli, waitFor } from './_cli.js';

describe('geobatch emulator (CLI)', () => {
  it('serves on the printed URL with the printed credentials and stops cleanly on SIGTERM', async () => {
    const run = cli(['emulator', '--port', '0', '--latency', '1:1']);
    try {
      const [, origin] = await waitFor(run.out, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const [, apiKey] = await waitFor(run.out, /export GEOBATCH_API_KEY=(\S+)/);
      expect(run.out()).toContain(`export GEOBATCH_EMULATOR_URL=${origin}`);
      const res = await fetch(
        `${origin}/api/v2/Elevation/point?apiKey=${apiKey}&latitude=50.6583&longitude=10.7442`,
      );
      expect(await res.json()).toEqual({
        points: [{ latitude: 50.6583, longitude: 10.7442, elevation: 983 }],
      });
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });

  it("closes as on SIGTERM when its terminal goes away (SIGHUP), not with Node's default", async () => {
    const run = cli(['emulator', '--port', '0']);
    try {
      await waitFor(run.out, /listening on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      run.child.kill('SIGHUP');
    }
    const code = await run.exited;
    expect({ code, signal: run.child.signalCode }).toEqual({ code: 0, signal: null });
    expect(run.err()).toContain('SIGHUP: stopping the emulator');
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--latency', 'slow'], '--latency'],
    [['--faults', 'error500=2'], '--faults'],
    [['--rate-limit', '0'], '--rate-limit'],
    [['--fault-interfaces', 'mail'], '--fault-interfaces'],
  ])('rejects %j with exit code 2 and a message naming the flag', async (args, flag) => {
    const run = cli(['emulator', ...args]);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(`Expected \`${flag}\``);
  });
});
