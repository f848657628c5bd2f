import { describe, expect, it } from 'vitest';
import { checkIdentifier } from '../../../db/beneficiaries/identifier.ts';
import { dianCheckDigit } from '../../../fiscal/radian-person.ts';

const written = (country: 'COL' | 'MEX', type: string, number: string) => {
  const check = checkIdentifier(country, type, number);
  return check.ok ? `${check.identifierType} ${check.identifierNumber}` : `${check.field}: ${check.message}`;
};

describe('a beneficiary identifier', () => {
  it('is written as imports write it: type upper-cased, number without dots, spaces, hyphens or NIT check digit', () => {
    expect(written('COL', 'nit', '900.123.456-8')).toBe('NIT 900123456');
    expect(written('COL', 'NIT', ' 901 210 113 ')).toBe('NIT 901210113');
    expect(written('COL', 'cc', '1.020.304.050')).toBe('CC 1020304050');
    expect(written('COL', 'pa', 'ab-123456')).toBe('PA AB123456');
    expect(written('MEX', 'rfc', 'eku9003173c9')).toBe('RFC EKU9003173C9');
    expect(written('MEX', 'RFC', 'H&E951128469')).toBe('RFC H&E951128469');
    expect(written('MEX', 'RFC', 'GODE561231GR8')).toBe('RFC GODE561231GR8');
    expect(written('MEX', 'RFC', 'XEXX010101000')).toBe('RFC XEXX010101000');
  });

  it("checks a NIT's check digit with DIAN's modulo 11", () => {
    // DIAN's own NIT, as the RADIAN 034 event names it: 800197268-4.
    expect(dianCheckDigit('800197268')).toBe('4');
    expect(written('COL', 'NIT', '800197268-4')).toBe('NIT 800197268');
    expect(written('COL', 'NIT', '800197268-5')).toBe(
      'identifier_number: The check digit of NIT 800197268 is 4, not 5',
    );
  });

  it('refuses what is not an identifier of its type', () => {
    for (const [country, type, number] of [
      ['COL', 'NIT', '90012345A'],
      ['COL', 'NIT', '900123456-78'],
      ['COL', 'NIT', '12'],
      ['COL', 'NIT', '000000'],
      ['COL', 'CC', '52.123.45X'],
      ['COL', 'PA', 'A1'],
      ['MEX', 'RFC', 'ABC12'],
      ['MEX', 'RFC', 'ABCD991332AB1'],
      ['MEX', 'RFC', 'ABC000230AB1'],
      ['MEX', 'RFC', 'AB1010101AB1'],
      ['MEX', 'RFC', 'ABC010101ABZ'],
    ] as const)
      expect(written(country, type, number), `${type} ${number}`).toMatch(/^identifier_number: /);
  });

  it("refuses a type the company's country does not use", () => {
    expect(written('COL', 'RFC', 'EKU9003173C9')).toMatch(
      /^identifier_type: Beneficiaries in COL are identified by NIT/,
    );
    expect(written('MEX', 'NIT', '900123456')).toBe('identifier_type: Beneficiaries in MEX are identified by RFC');
    expect(written('COL', 'DNI', '12345678')).toMatch(/^identifier_type: /);
  });
});
