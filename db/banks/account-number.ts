import type { Country } from '../companies/company.entity.ts';

/** Colombian wallets whose account number is the holder's mobile number: Nequi and Daviplata. */
const MOBILE_WALLET_CODES = new Set(['1507', '1551']);

const CLABE_WEIGHTS = [3, 7, 1] as const;

export type AccountNumberCheck = { ok: true; accountNumber: string } | { ok: false; message: string };

/** The CLABE check digit of its first 17 digits: weights 3, 7, 1 repeated, each product mod 10, summed; (10 − sum mod 10) mod 10. */
export function clabeCheckDigit(first17: string): number {
  if (!/^\d{17}$/.test(first17)) throw new RangeError('The CLABE check digit is computed over exactly 17 digits');
  let sum = 0;
  for (let index = 0; index < 17; index++) sum += (Number(first17[index]) * CLABE_WEIGHTS[index % 3]!) % 10;
  return (10 - (sum % 10)) % 10;
}

/** 18 digits whose last one is the check digit of the other 17. */
export function isValidClabe(clabe: string): boolean {
  return /^\d{18}$/.test(clabe) && clabeCheckDigit(clabe.slice(0, 17)) === Number(clabe[17]);
}

const refuse = (message: string): AccountNumberCheck => ({ ok: false, message });

/**
 * Checks a beneficiary's account number against the country and the chosen bank, after dropping spaces and hyphens.
 * Mexico: an 18-digit CLABE with a valid check digit whose first three digits are the bank's code. Colombia: digits
 * only, 6 to 20 of them; Nequi and Daviplata accounts are the holder's 10-digit mobile number (starting with 3).
 */
export function checkAccountNumber(country: Country, bankCode: string, input: string): AccountNumberCheck {
  const accountNumber = input.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(accountNumber)) return refuse('Must contain digits only (spaces and hyphens are ignored)');
  if (/^0+$/.test(accountNumber)) return refuse('Must not be all zeros');
  if (country === 'MEX') {
    if (accountNumber.length !== 18) return refuse('Must be an 18-digit CLABE');
    if (!isValidClabe(accountNumber)) return refuse('The CLABE check digit does not match');
    const code = accountNumber.slice(0, 3);
    if (code !== bankCode)
      return refuse(`The CLABE belongs to the bank with code ${code}, not to the chosen bank (${bankCode})`);
    return { ok: true, accountNumber };
  }
  if (MOBILE_WALLET_CODES.has(bankCode)) {
    if (!/^3\d{9}$/.test(accountNumber))
      return refuse("A Nequi or Daviplata account is the holder's 10-digit mobile number, starting with 3");
    return { ok: true, accountNumber };
  }
  if (accountNumber.length < 6 || accountNumber.length > 20) return refuse('Must have 6 to 20 digits');
  return { ok: true, accountNumber };
}
