import { expectStatus, type DocumentList, type ListDocuments } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPANSIONS } from '../../read-models/document-schema.ts';
import { AccountingEntry, type JournalEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { ErpDocument } from '../../db/accounting/erp-document.entity.ts';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { Bank } from '../../db/banks/bank.entity.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { BeneficiaryContact } from '../../db/beneficiaries/contact.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { LineItem } from '../../db/documents/line-item.entity.ts';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import { PaymentReceiptComplement } from '../../db/documents/payment-receipt-complement.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { ReceptionEvent } from '../../db/reception-events/reception-event.entity.ts';
import { DocumentTag } from '../../db/tags/document-tag.entity.ts';
import { WebhookSubscription } from '../../db/webhooks/webhook-subscription.entity.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { countingOrm } from '../helpers/query-counter.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
const docs: Record<string, Document> = {};

beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  docs.a = await seedDocument(api.orm, company, {
    documentNumber: 'FE-100',
    amountCents: 50_000_00n,
    issueDate: new Date('2026-09-01T09:00:00-05:00'),
    beneficiaryName: 'Ferretería Central',
    tags: ['Urgente'],
  });
  docs.b = await seedDocument(api.orm, company, {
    documentNumber: 'FE-200',
    amountCents: 150_000_00n,
    issueDate: new Date('2026-09-15T23:30:00-05:00'),
    type: 'credit_note',
    payments: 2,
    notes: 1,
  });
  docs.c = await seedDocument(api.orm, company, {
    documentNumber: 'FE-300',
    amountCents: 100_000_00n,
    issueDate: new Date('2026-10-01T00:00:00-05:00'),
    isCanceled: true,
    tags: ['admitido'],
  });
  docs.d = await seedDocument(api.orm, company, {
    documentNumber: 'ND-400',
    amountCents: 75_000_00n,
    issueDate: new Date('2026-10-20T12:00:00-05:00'),
    type: 'debit_note',
    approvalStatus: 'approved',
  });
});
afterAll(() => api.close());

type ListQuery = NonNullable<ListDocuments['request']['query']>;
const list = (query: ListQuery = {}, key = apiKey) => api.sdk(key).listDocuments({ query });
const page = async (query: ListQuery = {}, key = apiKey) => expectStatus(await list(query, key), 200);
const numbers = (body: DocumentList) => body.items.map((item) => item.document_number);
const BY_NUMBER = { sort_by: 'document_number', sort_order: 'asc' } as const;

describe('GET /documents', () => {
  it('answers the list envelope, newest first, with only the base fields by default', async () => {
    const body = await page();
    expect(body).toMatchObject({ total: 4, current_page: 1, page_size: 20, total_pages: 1 });
    expect(numbers(body)).toEqual(['ND-400', 'FE-300', 'FE-200', 'FE-100']);
    expect(body.items[0]).not.toHaveProperty('beneficiary');
    expect(body.items[0]).not.toHaveProperty('notes');
    expect(body.items.find((item) => item.document_number === 'FE-100')?.tags).toEqual(['Urgente']);
  });

  it('paginates: page and page_size, with the last page partial and a page past the end empty', async () => {
    const first = await page({ page_size: 3, ...BY_NUMBER });
    const second = await page({ page_size: 3, page: 2, ...BY_NUMBER });
    const beyond = await page({ page_size: 3, page: 5 });
    expect(numbers(first)).toEqual(['FE-100', 'FE-200', 'FE-300']);
    expect(numbers(second)).toEqual(['ND-400']);
    expect(second).toMatchObject({ total: 4, current_page: 2, page_size: 3, total_pages: 2 });
    expect(beyond.items).toEqual([]);
  });

  it('sorts by amount and by issue date in both directions', async () => {
    expect(numbers(await page({ sort_by: 'amount', sort_order: 'asc' }))).toEqual([
      'FE-100',
      'ND-400',
      'FE-300',
      'FE-200',
    ]);
    expect(numbers(await page({ sort_by: 'issue_date', sort_order: 'desc' }))).toEqual([
      'ND-400',
      'FE-300',
      'FE-200',
      'FE-100',
    ]);
  });

  it('filters by is_admited, is_canceled, tags (names in any case, or ids), type and approval status', async () => {
    expect(numbers(await page({ is_admited: 'true' }))).toEqual(['FE-300']);
    expect(numbers(await page({ is_admited: 'false', ...BY_NUMBER }))).toEqual(['FE-100', 'FE-200', 'ND-400']);
    expect(numbers(await page({ is_canceled: 'true' }))).toEqual(['FE-300']);
    expect((await page({ is_canceled: 'false' })).total).toBe(3);
    expect(numbers(await page({ tags: 'urgente' }))).toEqual(['FE-100']);
    const [urgent] = await ensureTags(companyEm(api.orm, company.id), company, ['Urgente']);
    expect(numbers(await page({ tags: `${urgent!.id},admitido`, ...BY_NUMBER }))).toEqual(['FE-100', 'FE-300']);
    expect(numbers(await page({ type: 'credit_note,debit_note', ...BY_NUMBER }))).toEqual(['FE-200', 'ND-400']);
    expect(numbers(await page({ approval_status: 'approved' }))).toEqual(['ND-400']);
  });

  it("filters issue dates by whole days in the company's time zone, both ends inclusive", async () => {
    // FE-200 was issued 2026-09-15 at 23:30 in Bogotá, already the 16th in UTC.
    expect(
      numbers(
        await page({
          issue_date_from: '2026-09-15',
          issue_date_to: '2026-10-01',
          sort_by: 'issue_date',
          sort_order: 'asc',
        }),
      ),
    ).toEqual(['FE-200', 'FE-300']);
  });

  it('searches the document number and the beneficiary name', async () => {
    expect(numbers(await page({ search: 'nd-4' }))).toEqual(['ND-400']);
    expect(numbers(await page({ search: 'ferreter' }))).toEqual(['FE-100']);
    expect((await page({ search: '100%' })).total).toBe(0);
  });

  it('adds each asked-for expansion, nested as in the detail', async () => {
    const body = await page({ fields: EXPANSIONS.join(','), ...BY_NUMBER });
    const withPayments = body.items.find((item) => item.document_number === 'FE-200')!;
    expect(withPayments.payments).toHaveLength(2);
    expect(withPayments.payments?.[0]).toMatchObject({
      amount: 1000,
      amount_currency: 'COP',
      payment_method: 'banking_correspondent',
      payable_reference: withPayments.payables?.[0]?.reference,
    });
    expect(withPayments.notes).toEqual([
      expect.objectContaining({ comment: 'Comentario 0', created_by: { name: 'Seed' } }),
    ]);
    expect(withPayments.beneficiary).toMatchObject({
      identifier_type: 'NIT',
      contact_information: [],
      bank_accounts: [],
    });
    expect(withPayments.logs?.[0]?.event).toBe('document.created');
    expect(withPayments).toMatchObject({
      document_support: null,
      expenses: null,
      erp_document: null,
      accounting: null,
      invoice_reception_events: [],
      payment_receipt_complements: [],
    });
  });

  it('refuses an unknown expansion, page size or sort with the validation envelope', async () => {
    const fields = expectStatus(await list({ fields: 'payments,secrets' }), 400);
    expect(fields.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(fields.error.details)).toEqual(['fields.1']);
    expect(expectStatus(await list({ page_size: 101 }), 400).error.details).toHaveProperty('page_size');
    expect(expectStatus(await list({ page: 0 }), 400).error.details).toHaveProperty('page');
    // A value outside the documented enum: sent raw, past the client's types.
    expect((await api.call('GET', '/public/api/v1/documents?sort_by=secret', { apiKey })).status).toBe(400);
  });

  it("never lists another company's documents", async () => {
    const other = await makeCompany(api.orm, { country: 'COL' });
    await seedDocument(api.orm, other.company, { documentNumber: 'OTHER-1' });
    expect(numbers(await page({ page_size: 100 }))).not.toContain('OTHER-1');
    expect(numbers(await page({}, other.apiKey))).toEqual(['OTHER-1']);
  });
});

describe('GET /documents/{reference}', () => {
  it('renders a document with every relation, field by field, and lists it the same way', async () => {
    const { company: own, apiKey: ownKey } = await makeCompany(api.orm, { country: 'COL' });
    const other = await makeCompany(api.orm, { country: 'COL' });
    const em = companyEm(api.orm, own.id);
    const at = (time: string) => new Date(`2026-10-${time}Z`);
    const beneficiary = em.create(Beneficiary, {
      company: own,
      name: 'Andina S.A.S.',
      type: 'supplier',
      email: 'cartera@andina.co',
      phoneNumber: '+57 601 555 0101',
      identifierType: 'NIT',
      identifierNumber: `9${process.pid}`,
      paymentTerms: 30,
      fiscalAddress: 'Calle 1 # 2-3, Bogotá',
      createdAt: at('01T08:00:00.001'),
      updatedAt: at('02T08:00:00.002'),
    });
    const document = em.create(Document, {
      company: own,
      beneficiary,
      country: 'COL',
      documentNumber: 'FE-900',
      type: 'invoice',
      amountCents: 1_190_000_05n,
      currency: 'COP',
      approvalStatus: 'approved',
      paymentStatus: 'partial',
      issueDate: at('01T15:00:00.000'),
      expirationDate: at('31T05:00:00.000'),
      fiscalReference: 'f'.repeat(96),
      fiscalMetadata: { finalNotes: ['Gracias por su compra'], format: 'ubl' },
      purchaseOrder: 'OC-77',
      createdBy: { source: 'fiscal', user: null },
      documentSupport: {
        issueDate: '2026-10-02',
        documentNumber: 'DS-12',
        cuds: 'c'.repeat(96),
        cudsCheck: 'format',
        seller: {
          name: 'Ana Ruiz',
          identifierType: 'CC',
          identifierNumber: '52123456',
          checkDigit: null,
          email: null,
          address: 'Calle 1',
        },
        partiesReversed: false,
        resolution: null,
        environment: 'test',
      },
      expenses: {
        origin: 'manual',
        category: 'viajes',
        costCenter: 'cc-ops',
        description: 'Taxi al aeropuerto',
        spentOn: '2026-10-01',
        receiptUrl: null,
        receiptStorageKey: `${own.id}/documents/receipt.pdf`,
        receiptFileName: 'recibo.pdf',
        reimbursedPerson: { name: 'Ana Ruiz', identifierType: 'CC', identifierNumber: '52123456', email: null },
      },
      createdAt: at('01T16:00:00.123'),
      updatedAt: at('03T16:00:00.456'),
    });
    document.sourceXmlPath = `${own.id}/documents/${document.id}/${document.id}.xml`;
    // Created out of their shown order: phones after e-mails, positions and installments ascending.
    em.create(BeneficiaryContact, { company: own, beneficiary, type: 'phone', value: '+57 601 555 0101' });
    em.create(BeneficiaryContact, { company: own, beneficiary, type: 'email', value: 'cartera@andina.co' });
    const account = em.create(BeneficiaryBankAccount, {
      company: own,
      beneficiary,
      bank: em.getReference(Bank, bankReference('COL', '1007')),
      accountNumber: '2400987654',
      accountType: 'savings',
      accountRecipientName: 'Andina S.A.S.',
      accountRecipientDocumentNumber: `9${process.pid}`,
      accountRecipientDocumentType: 'NIT',
    });
    const second = em.create(LineItem, {
      company: own,
      document,
      position: 2,
      name: 'Transporte',
      description: 'Flete',
      code: 'T-1',
      quantity: '2.500000',
      unitCode: 'KGM',
      unitPriceCents: 10_00n,
      currency: 'COP',
      subtotalCents: 25_00n,
      totalCents: 29_75n,
      metadata: { sku: 'T1' },
      createdAt: at('01T16:00:01.000'),
      updatedAt: at('01T16:00:01.000'),
      adjustments: [
        {
          type: 'tax',
          code: '01',
          rate: '0.19',
          ratePercentage: '19.00',
          baseAmountCents: 2500,
          amountCents: 475,
          isInclusive: false,
          metadata: { name: 'IVA' },
        },
        {
          type: 'withholding',
          code: null,
          rate: null,
          ratePercentage: null,
          baseAmountCents: 0,
          amountCents: -3,
          isInclusive: true,
          metadata: {},
        },
      ],
    });
    const first = em.create(LineItem, {
      company: own,
      document,
      position: 1,
      name: 'Servicio',
      quantity: '1',
      unitPriceCents: 1_000_000_00n,
      currency: 'COP',
      subtotalCents: 1_000_000_00n,
      totalCents: 1_190_000_00n,
      createdAt: at('01T16:00:00.500'),
      updatedAt: at('01T16:00:00.500'),
    });
    const later = em.create(Payable, {
      company: own,
      document,
      beneficiary,
      type: 'supplier',
      status: 'pending',
      amountCents: 595_000_02n,
      currency: 'COP',
      balanceCents: 595_000_02n,
      origin: 'document',
      installmentNumber: 2,
      issueDate: '2026-10-01',
      expirationDate: '2026-11-30',
      createdAt: at('04T00:00:00.000'),
      updatedAt: at('04T00:00:00.000'),
    });
    const firstInstallment = em.create(Payable, {
      company: own,
      document,
      beneficiary,
      type: 'supplier',
      status: 'partial',
      amountCents: 595_000_03n,
      currency: 'COP',
      balanceCents: 95_000_03n,
      origin: 'document',
      installmentNumber: 1,
      issueDate: null,
      expirationDate: '2026-10-31',
      concept: 'Cuota 1',
      projects: [{ code: 'P-1' }],
      costCenter: { code: 'cc-ops' },
      filePath: 'https://files.example/cuota-1.pdf',
      createdAt: at('04T00:00:00.000'),
      updatedAt: at('04T00:00:00.000'),
    });
    const paid = em.create(Payment, {
      company: own,
      payable: firstInstallment,
      beneficiary,
      amountCents: 500_000_00n,
      currency: 'COP',
      status: 'processed',
      payDate: '2026-11-05',
      paidAt: at('05T14:30:00.250'),
      paymentMethod: 'banking_correspondent',
      createdAt: at('05T09:00:00.000'),
    });
    const pending = em.create(Payment, {
      company: own,
      payable: firstInstallment,
      beneficiary,
      amountCents: 1n,
      currency: 'COP',
      payDate: '2026-11-06',
      createdAt: at('06T09:00:00.000'),
    });
    em.create(ReceptionEvent, {
      company: own,
      document,
      cufe: 'f'.repeat(96),
      eventType: '032',
      status: 'accepted',
      issueDate: at('07T10:00:00.000'),
    });
    em.create(ReceptionEvent, {
      company: own,
      document,
      cufe: 'f'.repeat(96),
      eventType: '030',
      status: 'rejected',
      message: 'Documento no encontrado',
    });
    em.create(PaymentReceiptComplement, {
      company: own,
      document,
      complementFiscalUuid: 'c2',
      paymentDate: at('09T00:00:00.000'),
      amountCents: 5_00n,
      currency: 'COP',
      installmentNumber: 2,
      previousBalanceCents: 10_05n,
      paidCents: 5_00n,
      outstandingBalanceCents: 5_05n,
    });
    em.create(PaymentReceiptComplement, {
      company: own,
      document,
      complementFiscalUuid: 'c1',
      paymentDate: at('08T00:00:00.000'),
      amountCents: 1n,
      currency: 'COP',
      installmentNumber: 1,
      previousBalanceCents: 10_06n,
      paidCents: 1n,
      outstandingBalanceCents: 10_05n,
    });
    em.create(ErpDocument, {
      company: own,
      document,
      registered: true,
      erpInvoiceId: 'INV-1',
      invoiceReference: null,
      data: null,
    });
    // A refused hand-off: its voucher waits for the customer's retry, which its receiver would take.
    em.create(WebhookSubscription, {
      company: own,
      event: 'document.accounted',
      url: 'https://erp.example.com/hooks',
      secretCiphertext: 'sealed',
    });
    const voucher = em.create(AccountingEntry, {
      company: own,
      document,
      status: 'posted',
      registrationState: 'failed',
      failureCode: 'period_closed',
      failureMessage: 'El periodo contable está cerrado',
      accountedAt: new Date('2026-10-13T00:00:00Z'),
      journalEntry: {} as JournalEntry,
    });
    const uploaded = em.create(DocumentNote, {
      company: own,
      document,
      comment: null,
      fileName: 'soporte.pdf',
      storageKey: `${own.id}/documents/${document.id}/notes/n1.pdf`,
      createdBy: { name: 'API key apk_a' },
      createdAt: at('10T00:00:00.000'),
      updatedAt: at('10T00:00:00.000'),
    });
    const linked = em.create(DocumentNote, {
      company: own,
      document,
      comment: 'Ver anexo',
      filePath: 'https://files.example/anexo.pdf',
      fileName: 'anexo.pdf',
      createdBy: { name: 'Ana' },
      createdAt: at('11T00:00:00.000'),
      updatedAt: at('11T00:00:00.000'),
    });
    em.create(ActivityLog, {
      company: own,
      document,
      event: 'document.created',
      actor: { type: 'system', source: 'fiscal' },
      createdAt: at('01T16:00:00.123'),
    });
    em.create(ActivityLog, {
      company: own,
      document,
      event: 'document.updated',
      actor: { type: 'user', name: 'Ana', email: 'ana@example.co' },
      metadata: { change: 'tagged' },
      createdAt: at('12T00:00:00.000'),
    });
    const tags = await ensureTags(em, own, ['Urgente', 'admitido']);
    const tag = (name: string) => tags.find((candidate) => candidate.name === name)!;
    em.create(DocumentTag, { company: own, document, tag: tag('admitido'), createdAt: at('13T00:00:00.000') });
    em.create(DocumentTag, { company: own, document, tag: tag('Urgente'), createdAt: at('12T00:00:00.000') });
    await em.flush();
    // Rows of another company that point at this document are never shown with it.
    const foreign = companyEm(api.orm, other.company.id);
    foreign.create(DocumentNote, {
      company: other.company,
      document: foreign.getReference(Document, document.id),
      comment: 'ajena',
      createdBy: { name: 'Intruso' },
    });
    foreign.create(ActivityLog, {
      company: other.company,
      document: foreign.getReference(Document, document.id),
      event: 'document.updated',
      actor: { type: 'system' },
    });
    await foreign.flush();

    const files = `${api.url}/public/api/v1/files`;
    const base = {
      reference: document.id,
      document_number: 'FE-900',
      type: 'invoice',
      amount: 1_190_000.05,
      amount_currency: 'COP',
      prepaid: null,
      exchange_rate: null,
      approval_status: 'approved',
      payment_status: 'partial',
      is_archived: false,
      created_at: '2026-10-01T16:00:00.123Z',
      updated_at: '2026-10-03T16:00:00.456Z',
      issue_date: '2026-10-01T15:00:00.000Z',
      expiration_date: '2026-10-31T05:00:00.000Z',
      fiscal_reference: 'f'.repeat(96),
      fiscal_metadata: { final_notes: ['Gracias por su compra'], stated_exchange_rate: null },
      file_path: `${files}/${own.id}/documents/${document.id}/${document.id}.xml`,
      purchase_order: 'OC-77',
      tags: ['Urgente', 'admitido'],
      is_admited: true,
      is_canceled: false,
      canceled_at: null,
      created_by: { source: 'fiscal', user: null },
    };
    const expansions = {
      beneficiary: {
        reference: beneficiary.id,
        name: 'Andina S.A.S.',
        type: 'supplier',
        email: 'cartera@andina.co',
        phone_number: '+57 601 555 0101',
        identifier_type: 'NIT',
        identifier_number: `9${process.pid}`,
        payment_terms: 30,
        fiscal_address: 'Calle 1 # 2-3, Bogotá',
        contact_information: [
          { type: 'email', value: 'cartera@andina.co' },
          { type: 'phone', value: '+57 601 555 0101' },
        ],
        bank_accounts: [
          {
            reference: account.id,
            bank_reference: bankReference('COL', '1007'),
            bank_name: 'Bancolombia',
            account_number: '2400987654',
          },
        ],
        created_at: '2026-10-01T08:00:00.001Z',
        updated_at: '2026-10-02T08:00:00.002Z',
      },
      payments: [
        {
          reference: paid.id,
          date: '2026-10-05T14:30:00.250Z',
          amount: 500_000,
          amount_currency: 'COP',
          payment_method: 'banking_correspondent',
          payable_reference: firstInstallment.id,
          status: 'processed',
        },
        {
          reference: pending.id,
          date: '2026-10-06T09:00:00.000Z',
          amount: 0.01,
          amount_currency: 'COP',
          payment_method: null,
          payable_reference: firstInstallment.id,
          status: 'pending',
        },
      ],
      payables: [
        {
          reference: firstInstallment.id,
          type: 'supplier',
          status: 'partial',
          amount: 595_000.03,
          amount_currency: 'COP',
          file_path: 'https://files.example/cuota-1.pdf',
          balance: 95_000.03,
          issue_date: null,
          expiration_date: '2026-10-31',
          concept: 'Cuota 1',
          origin: 'document',
          projects: [{ code: 'P-1' }],
          installment_number: 1,
          cost_center: { code: 'cc-ops' },
        },
        {
          reference: later.id,
          type: 'supplier',
          status: 'pending',
          amount: 595_000.02,
          amount_currency: 'COP',
          file_path: null,
          balance: 595_000.02,
          issue_date: '2026-10-01',
          expiration_date: '2026-11-30',
          concept: null,
          origin: 'document',
          projects: [],
          installment_number: 2,
          cost_center: null,
        },
      ],
      document_support: {
        issue_date: '2026-10-02',
        document_number: 'DS-12',
        cuds: 'c'.repeat(96),
        cuds_check: 'format',
        seller: {
          name: 'Ana Ruiz',
          identifier_type: 'CC',
          identifier_number: '52123456',
          check_digit: null,
          email: null,
          address: 'Calle 1',
        },
        parties_reversed: false,
        resolution: null,
        environment: 'test',
      },
      invoice_reception_events: [
        { event: 'acuse', event_type: '030', issue_date: null, status: 'rejected', reason: 'Documento no encontrado' },
        {
          event: 'recibo',
          event_type: '032',
          issue_date: '2026-10-07T10:00:00.000Z',
          status: 'accepted',
          reason: null,
        },
      ],
      payment_receipt_complements: [
        {
          fiscal_reference: 'c1',
          payment_date: '2026-10-08T00:00:00.000Z',
          amount: 0.01,
          amount_currency: 'COP',
          installment_number: 1,
          previous_balance: 10.06,
          paid_amount: 0.01,
          outstanding_balance: 10.05,
        },
        {
          fiscal_reference: 'c2',
          payment_date: '2026-10-09T00:00:00.000Z',
          amount: 5,
          amount_currency: 'COP',
          installment_number: 2,
          previous_balance: 10.05,
          paid_amount: 5,
          outstanding_balance: 5.05,
        },
      ],
      expenses: {
        origin: 'manual',
        category: 'viajes',
        cost_center: 'cc-ops',
        description: 'Taxi al aeropuerto',
        spent_on: '2026-10-01',
        receipt_file_path: `${files}/${own.id}/documents/receipt.pdf`,
        receipt_file_name: 'recibo.pdf',
        reimbursed_person: { name: 'Ana Ruiz', identifier_type: 'CC', identifier_number: '52123456', email: null },
      },
      logs: [
        {
          event: 'document.created',
          created_at: '2026-10-01T16:00:00.123Z',
          actor: { type: 'system', source: 'fiscal' },
          metadata: {},
        },
        {
          event: 'document.updated',
          created_at: '2026-10-12T00:00:00.000Z',
          actor: { type: 'user', name: 'Ana', email: 'ana@example.co' },
          metadata: { change: 'tagged' },
        },
      ],
      erp_document: {
        registered: true,
        erp_invoice_id: 'INV-1',
        invoice_reference: null,
        data: null,
      },
      accounting: {
        reference: voucher.id,
        status: 'posted',
        accounted_at: '2026-10-13T00:00:00.000Z',
        registration_state: 'failed',
        missing_catalog_entries: [],
        failure: { code: 'period_closed', message: 'El periodo contable está cerrado' },
        retry_allowed: true,
      },
      notes: [
        {
          reference: uploaded.id,
          comment: null,
          file_path: `${files}/${own.id}/documents/${document.id}/notes/n1.pdf`,
          file_name: 'soporte.pdf',
          created_by: { name: 'API key apk_a' },
          created_at: '2026-10-10T00:00:00.000Z',
          updated_at: '2026-10-10T00:00:00.000Z',
        },
        {
          reference: linked.id,
          comment: 'Ver anexo',
          file_path: 'https://files.example/anexo.pdf',
          file_name: 'anexo.pdf',
          created_by: { name: 'Ana' },
          created_at: '2026-10-11T00:00:00.000Z',
          updated_at: '2026-10-11T00:00:00.000Z',
        },
      ],
    };
    const lineItems = [
      {
        reference: first.id,
        name: 'Servicio',
        description: null,
        code: null,
        quantity: 1,
        unit_code: null,
        unit_price: 1_000_000,
        currency: 'COP',
        subtotal: 1_000_000,
        total: 1_190_000,
        position: 1,
        metadata: {},
        adjustments: [],
        created_at: '2026-10-01T16:00:00.500Z',
        updated_at: '2026-10-01T16:00:00.500Z',
      },
      {
        reference: second.id,
        name: 'Transporte',
        description: 'Flete',
        code: 'T-1',
        quantity: 2.5,
        unit_code: 'KGM',
        unit_price: 10,
        currency: 'COP',
        subtotal: 25,
        total: 29.75,
        position: 2,
        metadata: { sku: 'T1' },
        adjustments: [
          {
            type: 'tax',
            code: '01',
            rate: 0.19,
            rate_percentage: 19,
            base_amount: 25,
            amount: 4.75,
            is_inclusive: false,
            metadata: { name: 'IVA' },
          },
          {
            type: 'withholding',
            code: null,
            rate: null,
            rate_percentage: null,
            base_amount: 0,
            amount: -0.03,
            is_inclusive: true,
            metadata: {},
          },
        ],
        created_at: '2026-10-01T16:00:01.000Z',
        updated_at: '2026-10-01T16:00:01.000Z',
      },
    ];

    const detail = await api.call('GET', `/public/api/v1/documents/${document.id}`, { apiKey: ownKey });
    expect(detail.status).toBe(200);
    const expected = { ...base, ...expansions, line_items: lineItems };
    expect(detail.body).toEqual(expected);
    expect(Object.keys(detail.body)).toEqual(Object.keys(expected));
    const listed = expectStatus(await api.sdk(ownKey).listDocuments({ query: { fields: EXPANSIONS.join(',') } }), 200);
    expect(listed.items).toEqual([{ ...base, ...expansions }]);
    const some = expectStatus(await api.sdk(ownKey).listDocuments({ query: { fields: 'notes,beneficiaries' } }), 200);
    expect(some.items).toEqual([{ ...base, notes: expansions.notes, beneficiary: expansions.beneficiary }]);
    expect((await api.call('GET', `/public/api/v1/documents/${document.id}`, { apiKey: other.apiKey })).status).toBe(
      404,
    );
  });
});

describe('query count', () => {
  it('serves a page of 100 documents with every expansion in a bounded number of queries', async () => {
    const { orm: counted, queries } = await countingOrm();
    const { company: busy, apiKey: busyKey } = await makeCompany(api.orm, { country: 'COL' });
    for (let index = 0; index < 100; index++) await seedDocument(api.orm, busy, { payments: 1, notes: 1, tags: ['x'] });
    const counting = await startTestApi({ orm: counted });
    const countFor = async (pageSize: number) => {
      queries.length = 0;
      const body = expectStatus(
        await counting.sdk(busyKey).listDocuments({ query: { page_size: pageSize, fields: EXPANSIONS.join(',') } }),
        200,
      );
      expect(body.items).toHaveLength(pageSize);
      expect(body.items.every((item) => item.payments?.length === 1 && item.notes?.length === 1)).toBe(true);
      return queries.filter((query) => !query.includes('"api_keys"')).length;
    };
    try {
      await countFor(1); // warm-up: the ORM's own start-up queries are not the request's
      const forFive = await countFor(5);
      const forHundred = await countFor(100);
      // The page's ids, their count, and one statement in which PostgreSQL renders the page with every relation.
      expect(forHundred).toBe(forFive);
      expect(forHundred).toBe(3);
    } finally {
      await counting.close();
      await counted.close();
    }
  });
});
