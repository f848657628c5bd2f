// The fiscal intake settings as the worker's environment sets them (`INTAKE_MAX_*`, `SAT_PROVIDER_TIMEOUT_MS`,
// `SAT_PROVIDER_MIN_BYTES_PER_SECOND`): read once at startup, with the worker's other settings, so that a value it
// cannot use stops it there rather than inside an activity.
import { DEFAULT_INTAKE_LIMITS, INTAKE_LIMITS, type IntakeLimits } from '../../fiscal/intake-limits.ts';
import { DEFAULT_SAT_TRANSFER, type SatTransferSettings } from './sat-provider-client.ts';

/** A positive whole number from `variable`, or `fallback` when it is unset. */
function positive(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${variable} must be a positive whole number`);
  return value;
}

/**
 * How long the SAT provider may keep a request waiting (`SAT_PROVIDER_TIMEOUT_MS`: for the answer's first byte, and
 * between two bytes of its body) and the slowest a package may come (`SAT_PROVIDER_MIN_BYTES_PER_SECOND`, averaged
 * over each minute).
 */
export function satTransferFromEnv(env: NodeJS.ProcessEnv = process.env): SatTransferSettings {
  return {
    ...DEFAULT_SAT_TRANSFER,
    timeoutMs: positive(env, 'SAT_PROVIDER_TIMEOUT_MS', DEFAULT_SAT_TRANSFER.timeoutMs),
    minBytesPerSecond: positive(env, 'SAT_PROVIDER_MIN_BYTES_PER_SECOND', DEFAULT_SAT_TRANSFER.minBytesPerSecond),
  };
}

/** The caps as the environment sets them; a value that is not a positive whole number is refused, naming its variable. */
export function intakeLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): IntakeLimits {
  const limits = { ...DEFAULT_INTAKE_LIMITS };
  for (const [limit, { variable }] of Object.entries(INTAKE_LIMITS) as [keyof IntakeLimits, { variable: string }][])
    limits[limit] = positive(env, variable, limits[limit]);
  return limits;
}
