import { createHmac } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the exact body bytes: the `X-Service-Signature` header. */
export function signBody(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  event: 'X-Service-Event',
  timestamp: 'X-Service-Timestamp',
  deliveryId: 'X-Service-Delivery-Id',
} as const;
