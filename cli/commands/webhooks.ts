import { Company } from '../../db/companies/company.entity.ts';
import { systemEm } from '../../db/orm.ts';
import { WebhookDeliveryAttempt } from '../../db/webhooks/webhook-delivery-attempt.entity.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import {
  WEBHOOK_EVENTS,
  WebhookSubscription,
  type WebhookEvent,
} from '../../db/webhooks/webhook-subscription.entity.ts';
import { MAX_RETRIES, MAX_TIMEOUT_SECONDS, addSubscription } from '../../services/webhooks/subscriptions.ts';
import { outboundPolicyFromEnv } from '../../platform/outbound-policy.ts';
import { oneOf, optional, reference, required } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { CliError, notFound, usage } from '../errors.ts';

function integer(input: CommandInput, flag: string, min: number, max: number): number | undefined {
  const value = optional(input, flag);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw usage(`--${flag} must be a whole number from ${min} to ${max}`);
  return number;
}

function headers(input: CommandInput): Record<string, string> {
  const given = input.values.header;
  const list = Array.isArray(given) ? given : given === undefined ? [] : [given];
  return Object.fromEntries(
    list.map((header) => {
      const match = /^([A-Za-z0-9-]+):\s*(.+)$/.exec(String(header));
      if (!match) throw usage(`--header must look like Name:value (got ${String(header)})`);
      return [match[1]!, match[2]!];
    }),
  );
}

/** A subscription as the commands show it: never its secret nor its headers' values. */
const presentSubscription = (subscription: WebhookSubscription) => ({
  reference: subscription.id,
  event: subscription.event,
  url: subscription.url,
  retries: subscription.retries,
  timeout_seconds: subscription.timeoutSeconds,
  headers: Object.keys(subscription.headers),
});

/** Outbound webhooks: subscriptions, and the deliveries operators inspect and replay. */
export const webhookCommands: Command[] = [
  {
    group: 'webhooks',
    action: 'add',
    usage: 'webhooks add --company REF --event E --url U [--secret S] [--retries N] [--timeout SEC] [--header K:V]...',
    options: {
      company: { type: 'string' },
      event: { type: 'string' },
      url: { type: 'string' },
      secret: { type: 'string' },
      retries: { type: 'string' },
      timeout: { type: 'string' },
      header: { type: 'string', multiple: true },
    },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const companyId = reference(input, 'company');
      const company = await em.findOne(Company, { id: companyId });
      if (!company) throw notFound('company', companyId);
      const { subscription, generatedSecret, warning } = await addSubscription(em, context.secrets(), {
        company,
        event: oneOf(required(input, 'event'), WEBHOOK_EVENTS, 'event'),
        url: required(input, 'url'),
        secret: optional(input, 'secret'),
        retries: integer(input, 'retries', 0, MAX_RETRIES),
        timeoutSeconds: integer(input, 'timeout', 1, MAX_TIMEOUT_SECONDS),
        headers: headers(input),
        outbound: outboundPolicyFromEnv(),
      });
      return {
        ...presentSubscription(subscription),
        // Shown once: only its sealed form is kept.
        ...(generatedSecret ? { secret: generatedSecret } : {}),
        ...(warning ? { warning } : {}),
      };
    },
  },
  {
    group: 'webhooks',
    action: 'list',
    usage: 'webhooks list --company REF',
    options: { company: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const subscriptions = await em.find(
        WebhookSubscription,
        { company: reference(input, 'company'), isActive: true },
        { orderBy: { createdAt: 'asc' } },
      );
      return {
        subscriptions: subscriptions.map((subscription) => ({
          ...presentSubscription(subscription),
          created_at: subscription.createdAt.toISOString(),
        })),
      };
    },
  },
  {
    group: 'webhooks',
    action: 'remove',
    usage: 'webhooks remove --subscription REF',
    options: { subscription: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const id = reference(input, 'subscription');
      const subscription = await em.findOne(WebhookSubscription, { id, isActive: true });
      if (!subscription) throw notFound('subscription', id);
      // Kept (inactive) so that its deliveries stay readable.
      subscription.isActive = false;
      await em.flush();
      return { reference: id, removed: true };
    },
  },
  {
    group: 'webhooks',
    action: 'deliveries',
    usage: 'webhooks deliveries --company REF [--event E] [--limit N]',
    options: { company: { type: 'string' }, event: { type: 'string' }, limit: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const event = optional(input, 'event');
      const deliveries = await em.find(
        WebhookDelivery,
        {
          company: reference(input, 'company'),
          ...(event ? { event: oneOf(event, WEBHOOK_EVENTS, 'event') as WebhookEvent } : {}),
        },
        { orderBy: { createdAt: 'desc' }, limit: integer(input, 'limit', 1, 1000) ?? 50, populate: ['subscription'] },
      );
      const attempts = await em.find(
        WebhookDeliveryAttempt,
        { delivery: { $in: deliveries } },
        { orderBy: { attempt: 'asc' } },
      );
      return {
        deliveries: deliveries.map((delivery) => ({
          reference: delivery.id,
          event: delivery.event,
          event_id: delivery.eventId,
          subscription: delivery.subscription.id,
          url: delivery.subscription.url,
          status: delivery.status,
          created_at: delivery.createdAt.toISOString(),
          delivered_at: delivery.deliveredAt?.toISOString() ?? null,
          attempts: attempts
            .filter((attempt) => attempt.delivery.id === delivery.id)
            .map((attempt) => ({
              attempt: attempt.attempt,
              at: attempt.startedAt.toISOString(),
              status_code: attempt.statusCode ?? null,
              latency_ms: attempt.latencyMs ?? null,
              error: attempt.error ?? null,
            })),
        })),
      };
    },
  },
  {
    group: 'webhooks',
    action: 'redeliver',
    usage: 'webhooks redeliver --delivery REF',
    options: { delivery: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const id = reference(input, 'delivery');
      const delivery = await em.findOne(WebhookDelivery, { id }, { populate: ['subscription'] });
      if (!delivery) throw notFound('delivery', id);
      if (delivery.status === 'pending' || delivery.status === 'delivering')
        throw new CliError('delivery_in_progress', 'This delivery is still being attempted');
      delivery.status = 'pending';
      await em.flush();
      await (await context.processes()).startDeliveries([delivery], { redeliver: true });
      return { reference: delivery.id, event: delivery.event, status: 'pending' };
    },
  },
];
