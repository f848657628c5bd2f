import { expect } from 'vitest';
import { WEBHOOK_PAYLOADS } from '../../api/schemas/webhooks.ts';
import type { ReceivedRequest } from '../../simulators/erp-receiver/server.ts';

/**
 * Checks every webhook a receiver got against the schema the OpenAPI document publishes for its event, as a strict
 * integrator would: an unknown key, a missing one or a wrong type fails. Answers how many were checked.
 */
export function expectPublishedShapes(received: readonly ReceivedRequest[]): number {
  let checked = 0;
  for (const request of received) {
    const schema = request.event ? WEBHOOK_PAYLOADS[request.event as keyof typeof WEBHOOK_PAYLOADS] : undefined;
    if (!schema) continue;
    const parsed = schema.safeParse(request.json);
    expect(parsed.error?.issues ?? [], `${request.event} ${request.deliveryId}`).toEqual([]);
    checked += 1;
  }
  return checked;
}
