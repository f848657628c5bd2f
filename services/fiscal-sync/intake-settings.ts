// The fiscal intake caps as the worker's environment sets them (`INTAKE_MAX_*`): read once at startup, with the
// worker's other settings, so that a value it cannot use stops it there rather than inside an activity.
import { DEFAULT_INTAKE_LIMITS, INTAKE_LIMITS, type IntakeLimits } from '../../fiscal/intake-limits.ts';

/** The caps as the environment sets them; a value that is not a positive whole number is refused, naming its variable. */
export function intakeLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): IntakeLimits {
  const limits = { ...DEFAULT_INTAKE_LIMITS };
  for (const [limit, { variable }] of Object.entries(INTAKE_LIMITS) as [keyof IntakeLimits, { variable: string }][]) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${variable} must be a positive whole number`);
    limits[limit] = value;
  }
  return limits;
}
