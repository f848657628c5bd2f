import { describe, expect, it } from 'vitest';
import { eventCude } from '../../../fiscal/event-cude.ts';
import { checkRadianOrder, resolvedAfter, type OtherEvent, type RadianCheck } from '../../../fiscal/radian-rules.ts';

const invoice = { type: 'invoice', issueDate: new Date('2026-11-10T09:00:00-05:00'), isCanceled: false };
const accepted = (eventType: OtherEvent['eventType'], at: string): OtherEvent => ({
  eventType,
  status: 'accepted',
  registeredAt: new Date(at),
});
const check = (overrides: Partial<RadianCheck> & Pick<RadianCheck, 'eventType'>): ReturnType<typeof checkRadianOrder> =>
  checkRadianOrder({ invoice, others: [], signingTime: new Date('2026-11-12T10:00:00-05:00'), ...overrides });

describe('RADIAN ordering rules', () => {
  it('sends an acknowledgement after the invoice date, never before it (DC24a)', () => {
    expect(check({ eventType: '030' })).toEqual({ kind: 'submit' });
    expect(check({ eventType: '030', signingTime: new Date('2026-11-09T10:00:00-05:00') })).toMatchObject({
      kind: 'reject',
      rule: 'DC24a',
    });
  });

  it('needs the acknowledgement before the receipt of goods (DC24b)', () => {
    expect(check({ eventType: '032' })).toMatchObject({
      kind: 'reject',
      rule: 'DC24b',
      reason: expect.stringContaining('send 030 first'),
    });
    expect(
      check({ eventType: '032', others: [{ eventType: '030', status: 'rejected', registeredAt: null }] }),
    ).toMatchObject({ kind: 'reject', reason: expect.stringContaining('the 030 was rejected') });
    expect(check({ eventType: '032', others: [accepted('030', '2026-11-11T10:00:00-05:00')] })).toEqual({
      kind: 'submit',
    });
  });

  it('waits while an earlier event of the same invoice is being processed', () => {
    const others: OtherEvent[] = [
      { eventType: '030', status: 'processing', registeredAt: null },
      { eventType: '033', status: 'processing', registeredAt: null },
    ];
    expect(check({ eventType: '032', others })).toEqual({ kind: 'wait', on: ['030'] });
    expect(check({ eventType: '034', others })).toEqual({ kind: 'wait', on: ['030', '033'] });
    // A later event in flight does not hold an earlier one back.
    expect(check({ eventType: '030', others })).toEqual({ kind: 'submit' });
    expect(resolvedAfter('032')).toEqual(['031', '033', '034']);
  });

  it('allows express acceptance or a claim within 3 business days after the receipt of goods (DC24c)', () => {
    // Receipt on Thursday 12 November 2026: Friday 13, (holiday Monday 16), Tuesday 17 and Wednesday 18 count.
    const others = [accepted('030', '2026-11-11T10:00:00-05:00'), accepted('032', '2026-11-12T11:00:00-05:00')];
    expect(check({ eventType: '033', others, signingTime: new Date('2026-11-18T23:59:00-05:00') })).toEqual({
      kind: 'submit',
    });
    expect(check({ eventType: '033', others, signingTime: new Date('2026-11-19T00:00:00-05:00') })).toMatchObject({
      kind: 'reject',
      rule: 'DC24c',
      reason: expect.stringContaining('2026-11-19T00:00:00-05:00'),
    });
    expect(check({ eventType: '031', others, signingTime: new Date('2026-11-17T09:00:00-05:00') })).toEqual({
      kind: 'submit',
    });
    expect(check({ eventType: '031', others, signingTime: new Date('2026-11-20T09:00:00-05:00') })).toMatchObject({
      kind: 'reject',
      rule: 'claim_period',
    });
    expect(check({ eventType: '033', others: [accepted('030', '2026-11-11T10:00:00-05:00')] })).toMatchObject({
      kind: 'reject',
      rule: 'requires_032',
    });
  });

  it('registers tacit acceptance only once the 3 business days have passed (DC24e)', () => {
    const others = [accepted('030', '2026-11-11T10:00:00-05:00'), accepted('032', '2026-11-12T11:00:00-05:00')];
    expect(check({ eventType: '034', others, signingTime: new Date('2026-11-18T12:00:00-05:00') })).toMatchObject({
      kind: 'reject',
      rule: 'DC24e',
      reason: expect.stringContaining('from 2026-11-19T00:00:00-05:00'),
    });
    expect(check({ eventType: '034', others, signingTime: new Date('2026-11-19T00:00:00-05:00') })).toEqual({
      kind: 'submit',
    });
  });

  it('refuses an event that contradicts one already registered', () => {
    const base = [accepted('030', '2026-11-11T10:00:00-05:00'), accepted('032', '2026-11-12T11:00:00-05:00')];
    const later = new Date('2026-11-13T10:00:00-05:00');
    expect(
      check({ eventType: '033', others: [...base, accepted('031', '2026-11-12T12:00:00-05:00')], signingTime: later }),
    ).toMatchObject({ kind: 'reject', rule: 'incoherent_event' });
    expect(
      check({ eventType: '031', others: [...base, accepted('033', '2026-11-12T12:00:00-05:00')], signingTime: later }),
    ).toMatchObject({ kind: 'reject', rule: 'incoherent_event' });
    expect(
      check({
        eventType: '034',
        others: [...base, accepted('033', '2026-11-12T12:00:00-05:00')],
        signingTime: new Date('2026-11-25T10:00:00-05:00'),
      }),
    ).toMatchObject({ kind: 'reject', rule: 'incoherent_event' });
  });

  it('sends events only for invoices that stand', () => {
    expect(check({ eventType: '030', invoice: { ...invoice, type: 'credit_note' } })).toMatchObject({
      kind: 'reject',
      rule: 'invoice_only',
      reason: expect.stringContaining('credit note'),
    });
    expect(check({ eventType: '030', invoice: { ...invoice, isCanceled: true } })).toMatchObject({
      kind: 'reject',
      rule: 'invoice_canceled',
    });
  });
});

describe('event CUDE', () => {
  it('matches the Anexo RADIAN test vector', () => {
    expect(
      eventCude({
        eventNumber: '1',
        issueDate: '2019-04-30',
        issueTime: '19:48:50-05:00',
        senderNit: '99998888',
        receiverNit: '800197268',
        responseCode: '030',
        invoiceNumber: 'FE123',
        documentTypeCode: '01',
        softwarePin: '11111',
      }),
    ).toBe('0d91ba25b01f5e7dbda870a11b274501d3a62a73e91932c473c86c93f12a142a2ac45876efcde3e679024a01c0be41f9');
  });
});
