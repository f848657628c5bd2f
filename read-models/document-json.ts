import type { z } from 'zod';
import type { EntityManager } from '../db/orm.ts';
import { runStatement, type Transaction } from '../db/prepared.ts';
import { supplierPaymentTermDays } from '../db/erp/payment-term-days.ts';
import type { ReceptionEventType } from '../db/reception-events/reception-event.entity.ts';
import { ADMITTED_TAG } from '../db/tags/tag.entity.ts';
import { EXPANSIONS, type DocumentDetail, type DocumentListItem, type Expansion } from './document-schema.ts';
import { fileUrl } from './files.ts';
import { PAYABLE as PAYMENT_PAYABLE, PAYABLE_COST_CENTER } from './payment-json.ts';
import { array, date, json, money, object, owned, timestamp } from './sql-json.ts';

type ListItem = z.input<typeof DocumentListItem>;
type Detail = z.input<typeof DocumentDetail>;

// Documents as the API shows them, rendered by PostgreSQL: one statement builds each document's JSON with the
// relations asked for. The SQL bypasses the ORM's tenant filter, so every table it reads is constrained by the
// company explicitly (`owned`); banks, shared by every company, are reached only through an owned bank account.

/** A stored file, served by the API under the public URL (`:files` is its prefix). */
const served = (storageKey: string) => `:files || ${storageKey}`;

const RECEPTION_EVENT_NAMES: Record<ReceptionEventType, string> = {
  '030': 'acuse',
  '031': 'reclamo',
  '032': 'recibo',
  '033': 'aceptacion_expresa',
  '034': 'aceptacion_tacita',
};

// One pass over the document's tags gives both `tags` and `is_admited`; the normalized name is the lower-cased one.
const TAGS = `select coalesce(json_agg(t.name order by dt.created_at, dt.id), '[]') as names, coalesce(bool_or(t.normalized_name = '${ADMITTED_TAG}'), false) as admitted
  from document_tags dt join tags t on t.id = dt.tag_id and ${owned('t')} where dt.document_id = d.id and ${owned('dt')}`;

const BASE = {
  reference: 'd.id',
  document_number: 'd.document_number',
  type: 'd.type',
  amount: money('d.amount_cents'),
  amount_currency: 'd.currency',
  prepaid: `case when d.prepaid_cents is not null then ${object({
    amount: money('d.prepaid_cents'),
    convention: 'd.prepaid_convention',
  })} end`,
  exchange_rate: `case when d.exchange_rate is not null then ${object({
    rate: 'd.exchange_rate',
    source_currency: 'd.exchange_rate_source_currency',
    target_currency: 'd.exchange_rate_target_currency',
    date: date('d.exchange_rate_date'),
  })} end`,
  approval_status: 'd.approval_status',
  payment_status: 'd.payment_status',
  is_archived: 'd.is_archived',
  created_at: timestamp('d.created_at'),
  updated_at: timestamp('d.updated_at'),
  issue_date: timestamp('d.issue_date'),
  expiration_date: timestamp('d.expiration_date'),
  fiscal_reference: 'd.fiscal_reference',
  fiscal_metadata: `case when ${json('d.fiscal_metadata')} is not null then ${object({
    final_notes: `case when jsonb_typeof(d.fiscal_metadata -> 'finalNotes') = 'array' then d.fiscal_metadata -> 'finalNotes' else '[]' end`,
    stated_exchange_rate: `case when jsonb_typeof(d.fiscal_metadata -> 'statedExchangeRate') = 'object' then ${object({
      rate: `(d.fiscal_metadata #>> '{statedExchangeRate,rate}')::numeric`,
      source_currency: `d.fiscal_metadata #>> '{statedExchangeRate,sourceCurrency}'`,
      target_currency: `d.fiscal_metadata #>> '{statedExchangeRate,targetCurrency}'`,
      date: `d.fiscal_metadata #>> '{statedExchangeRate,date}'`,
    })} end`,
  })} end`,
  file_path: `coalesce(d.file_path, ${served(`nullif(d.source_xml_path, '')`)})`,
  purchase_order: 'd.purchase_order',
  tags: 'tags.names',
  is_admited: 'tags.admitted',
  is_canceled: 'd.is_canceled',
  canceled_at: timestamp('d.canceled_at'),
  created_by: `case when ${json('d.created_by')} is not null then ${object({ source: `d.created_by -> 'source'`, user: `d.created_by -> 'user'` })} end`,
};

const BENEFICIARY = object({
  reference: 'b.id',
  name: 'b.name',
  type: 'b.type',
  email: 'b.email',
  phone_number: 'b.phone_number',
  identifier_type: 'b.identifier_type',
  identifier_number: 'b.identifier_number',
  payment_terms: `coalesce(${supplierPaymentTermDays('b')}, b.payment_terms)`,
  fiscal_address: 'b.fiscal_address',
  // E-mails first, then phones, each by value, as the payments show them.
  contact_information: array(
    object({ type: 'c.type', value: 'c.value' }),
    `from beneficiary_contacts c where c.beneficiary_id = b.id and ${owned('c')}`,
    'c.type, c.value',
  ),
  bank_accounts: array(
    object({ reference: 'a.id', bank_reference: 'a.bank_id', bank_name: 'k.name', account_number: 'a.account_number' }),
    `from beneficiary_bank_accounts a join banks k on k.id = a.bank_id where a.beneficiary_id = b.id and ${owned('a')}`,
    'a.created_at, a.id',
  ),
  created_at: timestamp('b.created_at'),
  updated_at: timestamp('b.updated_at'),
});

const PAYABLE = object({
  ...PAYMENT_PAYABLE,
  installment_number: 'pa.installment_number',
  cost_center: PAYABLE_COST_CENTER,
});

/** A stored JSON object (camelCase keys, as the services write it) shown with the API's keys; null when absent. */
const storedObject = (column: string, fields: Record<string, string>) =>
  `case when ${json(column)} is not null then ${object(
    Object.fromEntries(Object.entries(fields).map(([key, stored]) => [key, `${column} -> '${stored}'`])),
  )} end`;

const DOCUMENT_SUPPORT = `case when ${json('d.document_support')} is not null then ${object({
  issue_date: `d.document_support -> 'issueDate'`,
  document_number: `d.document_support -> 'documentNumber'`,
  cuds: `d.document_support -> 'cuds'`,
  cuds_check: `d.document_support -> 'cudsCheck'`,
  seller: storedObject(`(d.document_support -> 'seller')`, {
    name: 'name',
    identifier_type: 'identifierType',
    identifier_number: 'identifierNumber',
    check_digit: 'checkDigit',
    email: 'email',
    address: 'address',
  }),
  parties_reversed: `coalesce(d.document_support -> 'partiesReversed', 'false'::jsonb)`,
  resolution: storedObject(`(d.document_support -> 'resolution')`, {
    number: 'number',
    valid_from: 'validFrom',
    valid_to: 'validTo',
    prefix: 'prefix',
    range_from: 'rangeFrom',
    range_to: 'rangeTo',
  }),
  environment: `d.document_support -> 'environment'`,
})} end`;

// A receipt is a link kept as given, or a file the service stored and serves.
const EXPENSES = `case when ${json('d.expenses')} is not null then ${object({
  origin: `d.expenses -> 'origin'`,
  category: `d.expenses -> 'category'`,
  cost_center: `d.expenses -> 'costCenter'`,
  description: `d.expenses -> 'description'`,
  spent_on: `d.expenses -> 'spentOn'`,
  receipt_file_path: `coalesce(d.expenses ->> 'receiptUrl', ${served(`nullif(d.expenses ->> 'receiptStorageKey', '')`)})`,
  receipt_file_name: `d.expenses -> 'receiptFileName'`,
  reimbursed_person: storedObject(`(d.expenses -> 'reimbursedPerson')`, {
    name: 'name',
    identifier_type: 'identifierType',
    identifier_number: 'identifierNumber',
    email: 'email',
  }),
})} end`;

/** What each `fields` expansion adds to a document, keyed as the response names it. */
const EXPANDED: Record<Expansion, Record<string, string>> = {
  beneficiaries: {
    beneficiary: `(select ${BENEFICIARY} from beneficiaries b where b.id = d.beneficiary_id and ${owned('b')})`,
  },
  payments: {
    payments: array(
      object({
        reference: 'p.id',
        date: timestamp('coalesce(p.paid_at, p.created_at)'),
        amount: money('p.amount_cents'),
        amount_currency: 'p.currency',
        payment_method: 'p.payment_method',
        payable_reference: 'p.payable_id',
        status: 'p.status',
      }),
      `from payments p join payables pa on pa.id = p.payable_id and ${owned('pa')} where pa.document_id = d.id and ${owned('p')}`,
      'p.created_at, p.id',
    ),
  },
  payables: {
    payables: array(
      PAYABLE,
      `from payables pa where pa.document_id = d.id and ${owned('pa')}`,
      'pa.installment_number, pa.created_at, pa.id',
    ),
  },
  document_support: { document_support: DOCUMENT_SUPPORT },
  invoice_reception_events: {
    invoice_reception_events: array(
      object({
        event: `case e.event_type ${Object.entries(RECEPTION_EVENT_NAMES)
          .map(([type, name]) => `when '${type}' then '${name}'`)
          .join(' ')} end`,
        event_type: 'e.event_type',
        issue_date: timestamp('e.issue_date'),
        status: 'e.status',
        reason: 'e.message',
      }),
      `from reception_events e where e.document_id = d.id and ${owned('e')}`,
      'e.event_type',
    ),
  },
  payment_receipt_complements: {
    payment_receipt_complements: array(
      object({
        fiscal_reference: 'r.complement_fiscal_uuid',
        payment_date: timestamp('r.payment_date'),
        amount: money('r.amount_cents'),
        amount_currency: 'r.currency',
        installment_number: 'r.installment_number',
        previous_balance: money('r.previous_balance_cents'),
        paid_amount: money('r.paid_cents'),
        outstanding_balance: money('r.outstanding_balance_cents'),
      }),
      `from payment_receipt_complements r where r.document_id = d.id and ${owned('r')}`,
      'r.payment_date, r.id',
    ),
  },
  expenses: { expenses: EXPENSES },
  logs: {
    logs: array(
      object({
        event: 'l.event',
        created_at: timestamp('l.created_at'),
        actor: 'l.actor',
        metadata: `coalesce(${json('l.metadata')}, '{}')`,
      }),
      `from activity_logs l where l.document_id = d.id and ${owned('l')}`,
      'l.created_at, l.id',
    ),
  },
  erp_document: {
    erp_document: `(select ${object({
      registered: 'x.registered',
      erp_invoice_id: 'x.erp_invoice_id',
      invoice_reference: 'x.invoice_reference',
      data: json('x.data'),
    })} from erp_documents x where x.document_id = d.id and ${owned('x')})`,
  },
  accounting: {
    // The posted voucher, else the latest one (cancelled).
    accounting: `(select ${object({
      reference: 'e.id',
      status: 'e.status',
      accounted_at: timestamp('e.accounted_at'),
      registration_state: 'e.registration_state',
      missing_catalog_entries: json('e.missing_catalog_entries'),
      failure: `case when e.failure_code is null then null else ${object({ code: 'e.failure_code', message: 'e.failure_message' })} end`,
      // Only where a retry would be taken: someone receives the voucher.
      retry_allowed: `e.status = 'posted' and e.registration_state in ('failed', 'pending') and exists (select 1 from webhook_subscriptions s
        where s.company_id = e.company_id and s.event = 'document.accounted' and s.is_active)`,
    })} from accounting_entries e where e.document_id = d.id and ${owned('e')}
      order by e.status = 'posted' desc, e.created_at desc limit 1)`,
  },
  notes: {
    notes: array(
      object({
        reference: 'n.id',
        comment: 'n.comment',
        // An uploaded attachment is served by the API; a linked one keeps its outside URL.
        file_path: `case when n.storage_key <> '' then ${served('n.storage_key')} else n.file_path end`,
        file_name: 'n.file_name',
        created_by: object({ name: `n.created_by -> 'name'` }),
        created_at: timestamp('n.created_at'),
        updated_at: timestamp('n.updated_at'),
      }),
      `from document_notes n where n.document_id = d.id and ${owned('n')}`,
      'n.created_at, n.id',
    ),
  },
};

// Adjustments are stored as the import wrote them (camelCase keys, cents); the API shows them in its own shape.
const ADJUSTMENT = object({
  type: `a.value -> 'type'`,
  code: `a.value -> 'code'`,
  rate: `(a.value ->> 'rate')::numeric`,
  rate_percentage: `(a.value ->> 'ratePercentage')::numeric`,
  base_amount: money(`a.value ->> 'baseAmountCents'`),
  amount: money(`a.value ->> 'amountCents'`),
  is_inclusive: `a.value -> 'isInclusive'`,
  metadata: `coalesce(${json(`a.value -> 'metadata'`)}, '{}')`,
});

const LINE_ITEMS = array(
  object({
    reference: 'li.id',
    name: 'li.name',
    description: 'li.description',
    code: 'li.code',
    quantity: 'li.quantity',
    unit_code: 'li.unit_code',
    unit_price: money('li.unit_price_cents'),
    currency: 'li.currency',
    subtotal: money('li.subtotal_cents'),
    total: money('li.total_cents'),
    position: 'li.position',
    metadata: `coalesce(${json('li.metadata')}, '{}')`,
    adjustments: array(
      ADJUSTMENT,
      `from jsonb_array_elements(li.adjustments) with ordinality as a(value, position)`,
      'a.position',
    ),
    created_at: timestamp('li.created_at'),
    updated_at: timestamp('li.updated_at'),
  }),
  `from line_items li where li.document_id = d.id and ${owned('li')}`,
  'li.position',
);

/** The company's documents among `ids`, in the order of `ids`, each built by PostgreSQL from `fields`. */
async function render<T>(
  em: EntityManager | Transaction,
  companyId: string,
  ids: readonly string[],
  fields: Record<string, string>,
  publicUrl: string,
): Promise<T[]> {
  if (ids.length === 0) return [];
  const rows = await runStatement<{ document: T }>(
    em,
    `select ${object(fields)} as document
     from unnest(array[:ids]::uuid[]) with ordinality as page(id, position)
     join documents d on d.id = page.id and ${owned('d')}
     cross join lateral (${TAGS}) as tags
     order by page.position`,
    { ids: [...ids], companyId, files: fileUrl(publicUrl, '') },
  );
  return rows.map((row) => row.document);
}

/** Documents as the list shows them (base fields plus `expansions`), in the order of `ids`: one statement. */
export function renderDocuments(
  em: EntityManager | Transaction,
  companyId: string,
  ids: readonly string[],
  expansions: readonly Expansion[],
  publicUrl: string,
): Promise<ListItem[]> {
  return render<ListItem>(
    em,
    companyId,
    ids,
    Object.assign({ ...BASE }, ...expansions.map((expansion) => EXPANDED[expansion])),
    publicUrl,
  );
}

/** The full document (every expansion and its line items), or null when the company has no document `id`: one statement. */
export async function renderDocument(
  em: EntityManager,
  companyId: string,
  id: string,
  publicUrl: string,
): Promise<Detail | null> {
  const fields = Object.assign({ ...BASE }, ...EXPANSIONS.map((expansion) => EXPANDED[expansion]), {
    line_items: LINE_ITEMS,
  });
  const [document] = await render<Detail>(em, companyId, [id], fields, publicUrl);
  return document ?? null;
}
