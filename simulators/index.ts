import type { OutsideSystems } from '../activities/outside-systems.ts';

export interface RunningSimulators {
  urls: OutsideSystems;
  stop(): Promise<void>;
}

/**
 * Starts a simulator for every outside system (real HTTP servers, on free loopback ports): the embedded default
 * and the test suite run against them through the same adapters production uses.
 */
export async function startSimulators(): Promise<RunningSimulators> {
  const stops: (() => Promise<void>)[] = [];
  const urls: OutsideSystems = { paymentGatewayUrl: '', bankValidationUrl: '', dianUrl: '', satProviderUrl: '' };
  // Each simulator registers here: start it, record its URL, and how to stop it.
  return {
    urls,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
