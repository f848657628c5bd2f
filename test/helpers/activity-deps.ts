import type { Client } from '@temporalio/client';
import { pino } from 'pino';
import type { ActivityDeps } from '../../activities/index.ts';
import { localFileStorage } from '../../platform/storage/file-storage.ts';
import { secretBox } from '../../platform/secret-box.ts';
import type { Orm } from '../../db/orm.ts';
import { temporalProcesses } from '../../temporal/processes.ts';
import { outboundPolicyFromEnv } from '../../platform/outbound-policy.ts';
import type { OutsideSystems } from '../../platform/outside-systems.ts';
import { dianSettingsFromEnv } from '../../services/dian/settings.ts';
import { intakeLimitsFromEnv } from '../../services/fiscal-sync/intake-settings.ts';
import { DEFAULT_SAT_TRANSFER } from '../../services/fiscal-sync/sat-provider-client.ts';
import { TEST_DIAN_SOFTWARE } from '../harness/signing-certificates.ts';

/** The key sealing webhook secrets in the suite: the worker, the CLI and the tests share it. */
export const TEST_WEBHOOK_SECRET_KEY = '8f'.repeat(32);

/** Activities as the suite's workers run them: short webhook retry waits, loopback receivers allowed. */
export function testActivityDeps(options: {
  orm: Orm;
  client: Client;
  taskQueue: string;
  storageDir: string;
  publicUrl: string;
  outside: OutsideSystems;
}): ActivityDeps {
  return {
    orm: options.orm,
    logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }),
    storage: localFileStorage(options.storageDir),
    processes: temporalProcesses(
      { client: options.client, taskQueue: options.taskQueue },
      { initialMs: 200, maxMs: 1_000 },
    ),
    publicUrl: options.publicUrl,
    secrets: secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex')),
    outbound: outboundPolicyFromEnv({}),
    // A day ahead of a payment's date lasts 100 ms: a payment due in three weeks goes in about two seconds.
    paymentDayMs: 100,
    outside: options.outside,
    dian: dianSettingsFromEnv({
      DIAN_URL: options.outside.dianUrl,
      DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id,
      DIAN_SOFTWARE_PIN: TEST_DIAN_SOFTWARE.pin,
    }),
    // As the worker processes a test spawns read them (they inherit this environment): both hold to the same caps.
    intake: intakeLimitsFromEnv(),
    // A stalled SAT package is cut after 5 s (30 s in production) and resumed at once: what a slow download must never
    // be taken for is then plain to see.
    satTransfer: { ...DEFAULT_SAT_TRANSFER, timeoutMs: 5_000, resumePauseMs: 200 },
  };
}
