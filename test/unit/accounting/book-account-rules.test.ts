import { describe, expect, it } from 'vitest';
import { normalizedDescription } from '../../../db/accounting/book-account-rules.ts';

describe('normalizedDescription', () => {
  it('lower-cases, drops diacritics and collapses spaces, so that the same line reads the same', () => {
    expect(normalizedDescription('  Servicio   de TRANSPORTE\tmarítimo\n')).toBe('servicio de transporte maritimo');
    expect(normalizedDescription('Café Ñandú')).toBe(normalizedDescription('CAFE nandu'));
    // Compatibility forms fold too (NFKD): the ligature and the full-width digits.
    expect(normalizedDescription('ﬁltro １２')).toBe('filtro 12');
    expect(normalizedDescription(' \n ')).toBe('');
  });

  it('keeps at most 500 characters, never splitting one', () => {
    expect(normalizedDescription('a'.repeat(600))).toHaveLength(500);
    const emoji = normalizedDescription(`${'a'.repeat(499)}😀😀`);
    expect(Array.from(emoji)).toHaveLength(500);
    expect(emoji.endsWith('😀')).toBe(true);
    // A cut that lands after a space leaves none at the end.
    expect(normalizedDescription(`${'a'.repeat(499)} b`)).toBe('a'.repeat(499));
  });
});
