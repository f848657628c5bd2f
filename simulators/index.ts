import type { OutsideSystems } from '../platform/outside-systems.ts';
import { startDianSimulator, type DianSimulatorOptions } from './dian/server.ts';
import { startBankValidationSimulator } from './bank-validation/server.ts';
import { startPaymentGatewaySimulator } from './payment-gateway/server.ts';
import { startSatProviderSimulator } from './sat-provider/server.ts';
import { startDianMailboxSimulator } from './dian-mailbox/server.ts';

export interface RunningSimulators {
  urls: OutsideSystems;
  stop(): Promise<void>;
}

/**
 * Starts a simulator for every outside system (real HTTP servers, on free ports of loopback or of `host`): the
 * embedded default and the test suites run against them through the same adapters production uses. DIAN's knows the
 * software registered with it, and trusts the given authorities (any, when none is given).
 */
export async function startSimulators(
  options: { host?: string; dian?: Pick<DianSimulatorOptions, 'software' | 'trustedCas'> } = {},
): Promise<RunningSimulators> {
  const at = options.host ? { host: options.host } : {};
  // Independent servers: start them together. DIAN_MAILBOX_DIR keeps the Maildir of forwarded DIAN e-mail where you want it.
  const [gateway, bankValidation, dian, satProvider, dianMailbox] = await Promise.all([
    startPaymentGatewaySimulator(at),
    startBankValidationSimulator(at),
    startDianSimulator({ ...at, ...options.dian }),
    startSatProviderSimulator(at),
    startDianMailboxSimulator({
      ...at,
      ...(process.env.DIAN_MAILBOX_DIR ? { mailboxDir: process.env.DIAN_MAILBOX_DIR } : {}),
    }),
  ]);
  const urls: OutsideSystems = {
    paymentGatewayUrl: gateway.url,
    bankValidationUrl: bankValidation.url,
    dianUrl: dian.url,
    satProviderUrl: satProvider.url,
    dianAuthUrl: dianMailbox.url,
    dianMailboxDir: dianMailbox.mailboxDir,
  };
  const stops = [gateway.stop, bankValidation.stop, dian.stop, satProvider.stop, dianMailbox.stop];
  return {
    urls,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
