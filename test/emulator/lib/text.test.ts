import { describe, expect, it } from 'vitest';
import { fold, foldForms } from '../../../src/emulator/lib/_text.js';

describe('text folding', () => {
  it('drops case, diacritics and punctuation and spells ß as ss', () => {
    expect(fold('Bad Dürkheim')).toBe('bad durkheim');
    expect(fold('Frankfurt (Oder)')).toBe('frankfurt oder');
    expect(fold('Straße')).toBe('strasse');
  });

  it('also offers the ae/oe/ue transliteration', () => {
    expect(foldForms('München')).toEqual(['munchen', 'muenchen']);
    expect(foldForms('Berlin')).toEqual(['berlin']);
  });
});
