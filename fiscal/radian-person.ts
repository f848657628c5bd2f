// The person who receives for the buyer, named by RADIAN events 030 and 032 in
// `cac:DocumentResponse/cac:IssuerParty/cac:Person` (Anexo Técnico RADIAN v1.1 §2 and its official 030 example):
// `cbc:ID` with the identity document type in `@schemeName`, FirstName, FamilyName, JobTitle and
// OrganizationDepartment. DIAN refuses a 030 or 032 without it; 031, 033 and 034 carry no person.

/** DIAN identity document types: the `schemeName` of the person's `cbc:ID`. */
export const DIAN_ID_TYPES = {
  '11': 'Registro civil',
  '12': 'Tarjeta de identidad',
  '13': 'Cédula de ciudadanía',
  '21': 'Tarjeta de extranjería',
  '22': 'Cédula de extranjería',
  '31': 'NIT',
  '41': 'Pasaporte',
  '42': 'Documento de identificación extranjero',
  '47': 'PEP',
  '48': 'PPT',
  '50': 'NIT de otro país',
  '91': 'NUIP',
} as const;
export type DianIdType = keyof typeof DIAN_ID_TYPES;

export interface RadianPerson {
  idType: DianIdType;
  idNumber: string;
  firstName: string;
  familyName: string;
  jobTitle: string;
  department: string;
}

export const RADIAN_PERSON_FIELDS = [
  'idType',
  'idNumber',
  'firstName',
  'familyName',
  'jobTitle',
  'department',
] as const satisfies readonly (keyof RadianPerson)[];

/** Letters and digits, as identity documents are numbered (passports and foreign documents carry letters). */
export const ID_NUMBER = /^[A-Za-z0-9]{3,20}$/;
/** Longest name, title or department accepted. */
export const PERSON_TEXT_MAX = 100;

/** Whether DIAN requires the person block in this event. */
export const carriesPerson = (eventCode: string): boolean => eventCode === '030' || eventCode === '032';

const isIdType = (value: unknown): value is DianIdType =>
  typeof value === 'string' && Object.hasOwn(DIAN_ID_TYPES, value);
const filled = (value: unknown): boolean =>
  typeof value === 'string' && value.trim() !== '' && value.length <= PERSON_TEXT_MAX;

/** The fields a stored person lacks or holds invalid (all of them when there is none); empty when it is complete. */
export function missingPersonFields(
  person: Partial<Record<keyof RadianPerson, unknown>> | null | undefined,
): (keyof RadianPerson)[] {
  if (!person) return [...RADIAN_PERSON_FIELDS];
  return RADIAN_PERSON_FIELDS.filter((field) => {
    const value = person[field];
    if (field === 'idType') return !isIdType(value);
    if (field === 'idNumber') return typeof value !== 'string' || !ID_NUMBER.test(value);
    return !filled(value);
  });
}

const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];

/**
 * DIAN's modulo-11 check digit of a number (the NIT's DV), or null for one that is not all digits. The official 030
 * example carries it in `@schemeID` of the person's ID (2589846132 → 4).
 */
export function dianCheckDigit(number: string): string | null {
  if (!/^\d{1,15}$/.test(number)) return null;
  const sum = number
    .split('')
    .reverse()
    .reduce((total, digit, index) => total + Number(digit) * WEIGHTS[index]!, 0);
  const rest = sum % 11;
  return String(rest > 1 ? 11 - rest : rest);
}
