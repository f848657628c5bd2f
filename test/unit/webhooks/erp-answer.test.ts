import { describe, expect, it } from 'vitest';
import { holdsNul, readRegistration, readRejection } from '../../../services/webhooks/erp-answer.ts';

describe("reading the ERP's answer to document.accounted", () => {
  it('registers a non-empty erp_invoice_id with a string, null or absent invoice_reference', () => {
    expect(readRegistration({ erp_invoice_id: 'E-1', invoice_reference: 'FC-1' })).toEqual({
      ok: true,
      value: { erpInvoiceId: 'E-1', invoiceReference: 'FC-1' },
    });
    expect(readRegistration({ erp_invoice_id: 'E-1', invoice_reference: null })).toEqual({
      ok: true,
      value: { erpInvoiceId: 'E-1', invoiceReference: null },
    });
    expect(readRegistration({ erp_invoice_id: 'E'.repeat(300) })).toEqual({
      ok: true,
      value: { erpInvoiceId: 'E'.repeat(300), invoiceReference: null },
    });
  });

  it('finds unreadable what it could not store or is not the documented type', () => {
    for (const body of [
      null,
      [],
      'E-1',
      {},
      { erp_invoice_id: '' },
      { erp_invoice_id: 7 },
      { erp_invoice_id: 'E\u0000' },
      { erp_invoice_id: 'E-1', invoice_reference: 3 },
      { erp_invoice_id: 'E-1', invoice_reference: 'F\u0000' },
    ]) {
      expect(readRegistration(body).ok, JSON.stringify(body)).toBe(false);
    }
  });

  it('takes a 422 as a rejection only in the receiver-error shape', () => {
    expect(readRejection({ error: { code: 'period_closed', message: 'Cerrado' } })).toEqual({
      ok: true,
      value: { code: 'period_closed', message: 'Cerrado' },
    });
    for (const body of [
      null,
      { error: 'closed' },
      { code: 'x', message: 'y' },
      { error: { code: '', message: 'y' } },
      { error: { code: 'x' } },
      { error: { code: 'x'.repeat(256), message: 'y' } },
      { error: { code: 'x', message: 'y\u0000' } },
    ]) {
      expect(readRejection(body).ok, JSON.stringify(body)).toBe(false);
    }
  });

  it('finds U+0000 in nested keys and strings', () => {
    expect(holdsNul({ a: [{ b: 'x' }], c: 1 })).toBe(false);
    expect(holdsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(holdsNul({ ['k\u0000']: 1 })).toBe(true);
  });
});
