import { describe, expect, it } from 'vitest';
import { storableName, storableText } from '../../../fiscal/storable-text.ts';

describe('outside text made storable', () => {
  it('escapes NUL and the other controls but tab and line feed, visibly', () => {
    expect(storableText('fact\u0000ura.xml')).toBe('fact\\x00ura.xml');
    expect(storableText('a\u0001b\u001fc\u007fd\u0085e\u009f')).toBe('a\\x01b\\x1fc\\x7fd\\x85e\\x9f');
    expect(storableText('línea\tuno\ndos\rtres')).toBe('línea\tuno\ndos\\x0dtres');
    expect(storableName('fact\u0000ura.xml')).toBe('fact\\x00ura.xml');
  });

  it('replaces lone surrogates, keeps pairs and letters', () => {
    expect(storableText('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('ñandú € 😀')).toBe('ñandú € 😀');
  });

  it('caps the length in UTF-8 bytes: a text at its end, a name in its middle, never inside a character', () => {
    const long = `${'é'.repeat(3000)}😀`;
    const text = storableText(long, 101);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(101);
    expect(text).toMatch(/^é+…$/);
    const name = storableName(`inicio/${'ñ'.repeat(5000)}/factura.xml`, 100);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(100);
    expect(name).toMatch(/^inicio\/ñ+…ñ+\/factura\.xml$/);
  });

  it('is idempotent', () => {
    for (const text of ['fact\u0000ura.xml', 'x'.repeat(5000), 'a\uD800']) {
      expect(storableText(storableText(text))).toBe(storableText(text));
      expect(storableName(storableName(text))).toBe(storableName(text));
    }
  });
});
