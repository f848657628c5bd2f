import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './index.ts';
import { requestDianAccess, importMailboxWindow, type DianSyncDeps } from '../services/fiscal-sync/dian-sync.ts';
import { currentAttempt, heartbeating } from './heartbeat.ts';
import { countSyncOutcome } from './sync-metrics.ts';
import { recordSyncOutcome, recordSyncProgress } from '../services/fiscal-sync/runs.ts';
import { satProviderClient } from '../services/fiscal-sync/sat-provider-client.ts';
import {
  checkSatExtraction,
  createSatExtraction,
  importSatPackage,
  type SatSyncDeps,
} from '../services/fiscal-sync/sat-sync.ts';

/** Fiscal synchronisation: the SAT extraction provider (Mexico), DIAN's token and the e-mail mailbox (Colombia), and the run's read state. */
export function fiscalSyncActivities(deps: ActivityDeps) {
  const sat = (): SatSyncDeps => ({
    ...deps,
    provider: satProviderClient(deps.outside.satProviderUrl, deps.intake.packageBytes, deps.satTransfer),
    attempt: currentAttempt(),
  });
  const dian = (): DianSyncDeps => ({
    ...deps,
    dianAuthUrl: deps.outside.dianAuthUrl || deps.outside.dianUrl,
    mailboxDir: deps.outside.dianMailboxDir ?? '',
    attempt: currentAttempt(),
  });
  return {
    /** Creates the SAT extraction of a sync's window and records its id. */
    createSatExtraction: (input: Parameters<typeof createSatExtraction>[1]) => createSatExtraction(sat(), input),
    /** Verifies a SAT extraction with the provider and records where it stands. */
    checkSatExtraction: (input: Parameters<typeof checkSatExtraction>[1]) =>
      heartbeating(() => checkSatExtraction(sat(), input)),
    /** Downloads one SAT package and imports its CFDI through the documents ingestion. */
    importSatPackage: (input: Parameters<typeof importSatPackage>[1]) => importSatPackage(sat(), input),
    /** Requests DIAN's access token for a Colombian sync. */
    requestDianAccess: (input: Parameters<typeof requestDianAccess>[1]) => requestDianAccess(dian(), input),
    /** Imports the AttachedDocument e-mails of a Colombian sync's window. */
    importMailboxWindow: (input: Parameters<typeof importMailboxWindow>[1]) => importMailboxWindow(dian(), input),
    /** Moves a sync's status on. */
    recordSyncProgress: (input: Parameters<typeof recordSyncProgress>[1]) =>
      heartbeating(() => recordSyncProgress(deps.orm, input)),
    /** Records how a sync ended and what it imported, and counts it in the worker's metrics. */
    recordSyncOutcome: async (input: Parameters<typeof recordSyncOutcome>[1]): Promise<void> => {
      const recorded = await heartbeating(() => recordSyncOutcome(deps.orm, input));
      if (recorded) countSyncOutcome(Context.current().metricMeter, recorded);
    },
  };
}
