import { Refusal } from '../../platform/refusal.ts';
import { randomBytes } from 'node:crypto';
import { judgeReceiver, type OutboundPolicy, type Resolve } from '../../platform/outbound-policy.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { WebhookSubscription, type WebhookEvent } from '../../db/webhooks/webhook-subscription.entity.ts';
import type { SecretBox } from '../../platform/secret-box.ts';

/** `document.accounted` waits for the ERP to register the voucher; other receivers answer quickly. */
export const DEFAULT_TIMEOUT_SECONDS: Record<WebhookEvent, number> = {
  'document.accounted': 120,
  'document.created': 30,
  'payment.rescheduled': 30,
};
export const MAX_RETRIES = 10;
export const MAX_TIMEOUT_SECONDS = 300;

/** A subscription the service will not create: `code` says which part is refused. */
export class SubscriptionRefused extends Refusal<'invalid_url' | 'invalid_header'> {}

/** Headers every delivery sets itself, or that the HTTP client manages: a subscription's extra headers cannot name them. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'host',
  'connection',
  'transfer-encoding',
]);
const RESERVED_PREFIX = 'x-service-';

/** Extra headers are for the receiver's own authentication: none may be ours, nor repeat another in a different case. */
export function checkExtraHeaders(headers: Record<string, string>): void {
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith(RESERVED_PREFIX)) {
      throw new SubscriptionRefused(
        'invalid_header',
        `The header ${name} is set by the service on every delivery (reserved: ${[...RESERVED_HEADERS].join(', ')} and ${RESERVED_PREFIX}*); choose another name`,
      );
    }
    if (seen.has(lower))
      throw new SubscriptionRefused('invalid_header', `The header ${name} is given twice (header names ignore case)`);
    seen.add(lower);
  }
}

/**
 * Checks a receiver URL against the outbound policy. A name that does not resolve now is accepted with a warning, since
 * each delivery resolves it again (and retries while it does not); an address the policy refuses is refused.
 */
export async function checkReceiverUrl(
  url: string,
  policy: OutboundPolicy,
  resolve?: Resolve,
): Promise<{ warning: string | null }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new SubscriptionRefused('invalid_url', `Not a URL: ${url}`);
  }
  const verdict = await judgeReceiver(target, policy, resolve);
  if ('refusal' in verdict) throw new SubscriptionRefused('invalid_url', verdict.refusal);
  return {
    warning:
      'unresolved' in verdict
        ? `${verdict.unresolved} now; each delivery resolves it again, and is retried while it does not`
        : null,
  };
}

/** Subscribes a company's receiver to an event; the secret is sealed, and generated (to be shown once) when not given. */
export async function addSubscription(
  em: EntityManager,
  secrets: SecretBox,
  input: {
    company: Company;
    event: WebhookEvent;
    url: string;
    secret?: string;
    retries?: number;
    timeoutSeconds?: number;
    headers?: Record<string, string>;
    outbound: OutboundPolicy;
  },
): Promise<{ subscription: WebhookSubscription; generatedSecret: string | null; warning: string | null }> {
  const { warning } = await checkReceiverUrl(input.url, input.outbound);
  checkExtraHeaders(input.headers ?? {});
  const generatedSecret = input.secret ? null : randomBytes(32).toString('base64url');
  const subscription = em.create(WebhookSubscription, {
    company: input.company,
    event: input.event,
    url: input.url,
    secretCiphertext: secrets.seal(input.secret ?? generatedSecret!),
    retries: input.retries ?? 3,
    timeoutSeconds: input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS[input.event],
    headers: input.headers ?? {},
    isActive: true,
  });
  await em.flush();
  return { subscription, generatedSecret, warning };
}
