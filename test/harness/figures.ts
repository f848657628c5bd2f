import type { FaultKind, InjectedFault } from './faults.ts';
import type { OperationKind } from './load.ts';
import type { Checked } from './promises.ts';
import type { RetryReason } from './retry-stats.ts';

export interface Figures {
  profile: string;
  seed: number;
  durationMs: number;
  /** From the end of the load (and of the last fault) until every promise held. */
  settleMs: number;
  /** Requests sent: API calls (retries included) and CLI runs. */
  requests: { api: number; cli: number };
  accepted: Record<OperationKind, number>;
  doneByEarlierAttempt: number;
  /** Payments seen waiting for a validated bank account, then checked processed like the others. */
  waitedForAccount: number;
  /** Requests the service refused unexpectedly or never answered in time. */
  failures: string[];
  /** From import to the end of the flow, per document (ms): median and slowest. */
  flowMs: { median: number; max: number };
  faults: InjectedFault[];
  retries: Record<RetryReason, number>;
  serverErrors: string[];
  /** By process (`api`, `worker-2`...). */
  unexpectedExits: Record<string, number>;
  checked: Checked;
}

const list = (entries: [string, number][]) => entries.map(([name, count]) => `${name} ${count}`).join(', ');
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The run as a table an operator can paste into an incident review. */
export function formatFigures(figures: Figures): string {
  const { checked, faults } = figures;
  const byKind = new Map<FaultKind, InjectedFault[]>();
  for (const fault of faults) byKind.set(fault.kind, [...(byKind.get(fault.kind) ?? []), fault]);
  const recovery = [...byKind].map(
    ([kind, all]) => [kind, Math.max(...all.map((fault) => fault.recoveredAfterMs))] as const,
  );
  const rows: [string, string][] = [
    ['seed', `${figures.seed} (FAULT_SEED=${figures.seed} replays the schedule)`],
    [
      'duration',
      `${seconds(figures.durationMs)} (every promise held ${seconds(figures.settleMs)} after the load ended)`,
    ],
    [
      'requests sent',
      `${figures.requests.api + figures.requests.cli}: API ${figures.requests.api}, CLI ${figures.requests.cli}`,
    ],
    ['operations accepted', `${sum(Object.values(figures.accepted))}: ${list(Object.entries(figures.accepted))}`],
    ['done by an earlier attempt', String(figures.doneByEarlierAttempt)],
    ['payments that waited for a validated account', String(figures.waitedForAccount)],
    ['requests failed (refused, unanswered)', String(figures.failures.length)],
    [
      'document flow (import → registered)',
      `median ${seconds(figures.flowMs.median)}, slowest ${seconds(figures.flowMs.max)}`,
    ],
    ['faults injected', `${faults.length}: ${faults.map((fault) => fault.part).join(', ')}`],
    [
      'documents in flight at faults',
      `min ${Math.min(...faults.map((fault) => fault.documentsInFlight))}, max ${Math.max(...faults.map((fault) => fault.documentsInFlight))}`,
    ],
    ['slowest recovery', recovery.map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(', ')],
    [
      'client retries',
      `${sum(Object.values(figures.retries))}: ${list(Object.entries(figures.retries).filter(([, count]) => count > 0))}`,
    ],
    ['unexpected exits', list(Object.entries(figures.unexpectedExits))],
    [
      'events delivered',
      `${checked.deliveries.created + checked.deliveries.accounted}: document.created ${checked.deliveries.created}, ` +
        `document.accounted ${checked.deliveries.accounted} (${checked.deliveries.requests} requests)`,
    ],
    ['duplicates seen by receiver', String(checked.deliveries.duplicates)],
    ['reception events', list(Object.entries(checked.receptionEvents))],
    ['lost', String(checked.findings.lost.length)],
    ['stuck', String(checked.findings.stuck.length)],
    ['done twice', String(checked.findings.doubled.length)],
    ['5xx other than 503', String(figures.serverErrors.length)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const findings = [
    ...checked.findings.lost.map((line) => `lost: ${line}`),
    ...checked.findings.stuck.map((line) => `stuck: ${line}`),
    ...checked.findings.doubled.map((line) => `twice: ${line}`),
    ...figures.serverErrors.map((line) => `5xx: ${line}`),
    ...figures.failures.map((line) => `failed: ${line}`),
  ];
  return [
    `Crash and restart (${figures.profile})`,
    ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`),
    ...findings.slice(0, 40).map((line) => `  ! ${line}`),
    ...(findings.length > 40 ? [`  ! … ${findings.length - 40} more`] : []),
  ].join('\n');
}
