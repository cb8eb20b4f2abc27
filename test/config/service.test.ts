import { describe, expect, it } from 'vitest';
import { emulatorEndpoints } from '../../src/config/load.js';
import { startEmulator } from '../../src/emulator/index.js';

describe('emulatorEndpoints', () => {
  it('gives exactly the URLs a running emulator serves, from its origin alone', async () => {
    const emulator = await startEmulator();
    try {
      const { addressSearch, geojson, autocomplete, token, area, elevation } = emulator.urls;
      expect(emulatorEndpoints(`${emulator.urls.origin}/`)).toEqual({
        addressSearch,
        geojson,
        autocomplete,
        token,
        area,
        elevation,
      });
    } finally {
      await emulator.close();
    }
  });
});
