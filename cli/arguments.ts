import { SCOPES, type Scope } from '../db/companies/api-key.entity.ts';
import { COUNTRIES, FEATURES, type Country, type Feature } from '../db/companies/company.entity.ts';
import { UUID_PATTERN } from '../db/ids.ts';
import { usage } from './errors.ts';
import type { CommandInput } from './command.ts';

export function required(input: CommandInput, flag: string): string {
  const value = input.values[flag];
  if (typeof value !== 'string' || value.trim() === '') throw usage(`--${flag} is required`);
  return value.trim();
}

export function optional(input: CommandInput, flag: string): string | undefined {
  const value = input.values[flag];
  return typeof value === 'string' ? value.trim() : undefined;
}

export function reference(input: CommandInput, flag: string): string {
  const value = required(input, flag);
  if (!UUID_PATTERN.test(value)) throw usage(`--${flag} must be a UUID reference`);
  return value.toLowerCase();
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw usage(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export const country = (input: CommandInput): Country =>
  oneOf(required(input, 'country').toUpperCase(), COUNTRIES, 'country');
export const feature = (input: CommandInput): Feature => oneOf(required(input, 'feature'), FEATURES, 'feature');

export function scopes(input: CommandInput): Scope[] {
  const value = optional(input, 'scopes');
  if (!value) return [];
  return [...new Set(value.split(',').map((scope) => oneOf(scope.trim(), SCOPES, 'scopes')))];
}

export function email(input: CommandInput, flag = 'email'): string {
  const value = required(input, flag);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw usage(`--${flag} must be an e-mail address`);
  return value.toLowerCase();
}
