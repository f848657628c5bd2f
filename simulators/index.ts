import type { OutsideSystems } from '../activities/outside-systems.ts';
import { startDianSimulator } from './dian/server.ts';
import { startBankValidationSimulator } from './bank-validation/server.ts';
import { startPaymentGatewaySimulator } from './payment-gateway/server.ts';
import { startSatProviderSimulator } from './sat-provider/server.ts';
import { startDianMailboxSimulator } from './dian-mailbox/server.ts';

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
  const gateway = await startPaymentGatewaySimulator();
  urls.paymentGatewayUrl = gateway.url;
  stops.push(gateway.stop);
  const bankValidation = await startBankValidationSimulator();
  urls.bankValidationUrl = bankValidation.url;
  stops.push(bankValidation.stop);
  const dian = await startDianSimulator();
  urls.dianUrl = dian.url;
  stops.push(dian.stop);
  const satProvider = await startSatProviderSimulator();
  urls.satProviderUrl = satProvider.url;
  stops.push(satProvider.stop);
  // DIAN's access tokens and the Maildir its forwarded e-mail lands in (DIAN_MAILBOX_DIR keeps it where you want it).
  const dianMailbox = await startDianMailboxSimulator(process.env.DIAN_MAILBOX_DIR ? { mailboxDir: process.env.DIAN_MAILBOX_DIR } : {});
  urls.dianAuthUrl = dianMailbox.url;
  urls.dianMailboxDir = dianMailbox.mailboxDir;
  stops.push(dianMailbox.stop);
  return {
    urls,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
