// DIAN RADIAN ordering rules for the reception events of one invoice (Anexo Técnico RADIAN v1.1, rules DC24a-e and
// §8.7.1; Decreto 1154 de 2020 for the claim period), checked before an event is sent. Pure: the caller supplies the
// invoice, the other events of the same invoice as the read state holds them, and the signing time.

import { businessDaysElapseAt, colombianDate } from './business-days.ts';

export const RADIAN_EVENT_CODES = ['030', '031', '032', '033', '034'] as const;
export type RadianEventCode = (typeof RADIAN_EVENT_CODES)[number];
export type RadianEventStatus = 'processing' | 'accepted' | 'rejected' | 'failed';

/**
 * The order in which the events of one invoice are resolved. An event waits while an earlier one is still being
 * processed, so events queued together (030 and 032 in one batch) are checked and sent in this order.
 */
export const RESOLUTION_ORDER: readonly RadianEventCode[] = ['030', '032', '031', '033', '034'];

/** Business days the buyer has, after the receipt of goods (032), to accept expressly or claim; then acceptance is tacit. */
export const ACCEPTANCE_PERIOD_BUSINESS_DAYS = 3;

const NAMES: Record<RadianEventCode, string> = {
  '030': 'acknowledgement of receipt (030)',
  '031': 'claim (031)',
  '032': 'receipt of goods or service (032)',
  '033': 'express acceptance (033)',
  '034': 'tacit acceptance (034)',
};

/** Events that must be registered before this one. */
const REQUIRES: Record<RadianEventCode, RadianEventCode | null> = {
  '030': null,
  '032': '030',
  '031': '032',
  '033': '032',
  '034': '032',
};

/** Registered events this one contradicts: a claim and an acceptance exclude each other, and acceptance happens once. */
const EXCLUDED_BY: Record<RadianEventCode, RadianEventCode[]> = {
  '030': [],
  '032': [],
  '031': ['033', '034'],
  '033': ['031', '034'],
  '034': ['031', '033'],
};

export interface OtherEvent {
  eventType: RadianEventCode;
  status: RadianEventStatus;
  /** When DIAN registered it (accepted events). */
  registeredAt: Date | null;
}

export interface RadianCheck {
  eventType: RadianEventCode;
  invoice: { type: string; issueDate: Date | null; isCanceled: boolean };
  /** The other events of the same invoice. */
  others: OtherEvent[];
  /** When the event would be signed (now). */
  signingTime: Date;
}

export type RadianVerdict =
  { kind: 'submit' } | { kind: 'wait'; on: RadianEventCode[] } | { kind: 'reject'; rule: string; reason: string };

const rank = (code: RadianEventCode) => RESOLUTION_ORDER.indexOf(code);
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A Bogotá wall-clock time with its offset, as DIAN's documents write it. */
export function bogotaTime(instant: Date): string {
  return `${new Date(instant.getTime() - 5 * 60 * 60 * 1000).toISOString().slice(0, 19)}-05:00`;
}

/** The events resolved after this one: those that may be waiting for it. */
export function resolvedAfter(code: RadianEventCode): RadianEventCode[] {
  return RESOLUTION_ORDER.slice(rank(code) + 1);
}

/** Whether an event may be sent now, must wait for an earlier one in flight, or breaks a rule (and why). */
export function checkRadianOrder(check: RadianCheck): RadianVerdict {
  const { eventType, invoice, others, signingTime } = check;
  const name = NAMES[eventType];
  if (invoice.type !== 'invoice')
    return reject(
      'invoice_only',
      `RADIAN events refer to electronic sales invoices; this document is a ${invoice.type.replace('_', ' ')}`,
    );
  if (invoice.isCanceled) return reject('invoice_canceled', 'The invoice was cancelled before the tax authority');

  const inFlight = others
    .filter((other) => other.status === 'processing' && rank(other.eventType) < rank(eventType))
    .map((other) => other.eventType);
  if (inFlight.length) return { kind: 'wait', on: inFlight.sort((left, right) => rank(left) - rank(right)) };

  const registered = (code: RadianEventCode) =>
    others.find((other) => other.eventType === code && other.status === 'accepted');
  const required = REQUIRES[eventType];
  if (required) {
    const prior = others.find((other) => other.eventType === required);
    const requiredEvent = registered(required);
    if (!requiredEvent) {
      const state = prior ? `the ${required} was ${prior.status}` : `send ${required} first`;
      return reject(
        required === '030' ? 'DC24b' : 'requires_032',
        `${capitalized(name)} needs the ${NAMES[required]} registered first; ${state}`,
      );
    }
    if (requiredEvent.registeredAt && requiredEvent.registeredAt > signingTime) {
      return reject(
        required === '030' ? 'DC24b' : 'requires_032',
        `${capitalized(name)} cannot be signed before the ${NAMES[required]} (${bogotaTime(requiredEvent.registeredAt)})`,
      );
    }
  }
  for (const code of EXCLUDED_BY[eventType]) {
    if (registered(code))
      return reject(
        'incoherent_event',
        `${capitalized(name)} contradicts the ${NAMES[code]} already registered for this invoice`,
      );
  }

  if (eventType === '030' && invoice.issueDate && signingTime < invoice.issueDate) {
    return reject('DC24a', `The ${name} cannot be signed before the invoice date (${bogotaTime(invoice.issueDate)})`);
  }
  if (eventType === '031' || eventType === '033' || eventType === '034') {
    const receipt = registered('032')!;
    const receivedAt = receipt.registeredAt ?? signingTime;
    const elapsesAt = businessDaysElapseAt(receivedAt, ACCEPTANCE_PERIOD_BUSINESS_DAYS);
    const period = `${ACCEPTANCE_PERIOD_BUSINESS_DAYS} business days after the receipt of goods (032 registered ${colombianDate(receivedAt)})`;
    if (eventType === '034' && signingTime < elapsesAt) {
      return reject(
        'DC24e',
        `The ${name} can only be registered once ${period} have passed: from ${bogotaTime(elapsesAt)}`,
      );
    }
    if (eventType !== '034' && signingTime >= elapsesAt) {
      const rule = eventType === '033' ? 'DC24c' : 'claim_period';
      return reject(
        rule,
        `The ${name} must be signed within ${period}; that period ended ${bogotaTime(elapsesAt)} and the invoice is tacitly accepted`,
      );
    }
  }
  return { kind: 'submit' };
}

function reject(rule: string, reason: string): RadianVerdict {
  return { kind: 'reject', rule, reason };
}
