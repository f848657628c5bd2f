import { inject } from 'vitest';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { DianBehaviour, ReceivedEvent } from '../../simulators/dian/server.ts';
import type { ReceptionEventTiming } from '../../db/reception-events/reception-event-batch.entity.ts';

/** Reception-event pacing for tests: short waits and retries, so that failing after every retry fits in a test. */
export const FAST_RECEPTION_EVENT_TIMING: ReceptionEventTiming = {
  wait: { initialMs: 1_000, maxMs: 5_000, giveUpMs: 300_000 },
  submit: { initialMs: 100, maxMs: 400, attempts: 3, timeoutMs: 10_000 },
};

/** Who receives for a test company in 030 and 032 (`setDianEventPerson`): without it those events are not sent. */
export const EVENT_PERSON: RadianPerson = {
  idType: '13',
  idNumber: '52123456',
  firstName: 'Ana María',
  familyName: 'Pérez Gómez',
  jobTitle: 'Jefe de compras',
  department: 'Compras',
};

/** The suite's DIAN simulator, steered over its control API per CUFE (every test file shares one instance). */
export const dianSimulator = {
  async behave(cufe: string, behaviour: DianBehaviour): Promise<void> {
    await control('POST', '/_control/behave', { cufe, ...behaviour });
  },
  /** Events DIAN already holds for a CUFE, as if registered earlier. */
  async register(cufe: string, eventTypes: string[]): Promise<void> {
    await control('POST', '/_control/register', { cufe, events_type: eventTypes });
  },
  async events(cufe: string): Promise<{ received: ReceivedEvent[]; registered: string[] }> {
    return (await control('GET', `/_control/events/${cufe}`)) as { received: ReceivedEvent[]; registered: string[] };
  },
};

async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${inject('outside').dianUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as unknown;
  if (!response.ok)
    throw new Error(`DIAN simulator ${method} ${path}: HTTP ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}
