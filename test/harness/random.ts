export { seededRandom, type Random } from '../../dev/random.ts';

/** `FAULT_SEED` replays a run; otherwise a fresh seed, printed with the figures. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.FAULT_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`FAULT_SEED must be a non-negative integer, not ${JSON.stringify(given)}`);
  return seed;
}
