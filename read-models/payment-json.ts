import type { z } from 'zod';
import type { EntityManager } from '../db/orm.ts';
import { runStatement } from '../db/prepared.ts';
import type { PaymentDetail, PaymentListItem } from './payment-schema.ts';
import { array, date, json, money, object, owned, timestamp } from './sql-json.ts';

type ListItem = z.input<typeof PaymentListItem>;
type Detail = z.input<typeof PaymentDetail>;

// The payments read paths, rendered by PostgreSQL: one statement builds each payment's JSON with its payable,
// document, beneficiary (and contacts), batch and tags, as the API shows it. The SQL bypasses the ORM's tenant
// filter, so every table it reads is constrained by the company explicitly.

/** Documents received from the tax authority are `fiscal_entity`; others say how they were created. */
const DOCUMENT_ORIGIN = `case d.created_by->>'source' when 'fiscal' then 'fiscal_entity' else coalesce(d.created_by->>'source', 'manual') end`;

const DOCUMENT = object({
  reference: 'd.id',
  type: 'd.type',
  document_number: 'd.document_number',
  fiscal_reference: 'd.fiscal_reference',
  origin: DOCUMENT_ORIGIN,
  amount: money('d.amount_cents'),
  amount_currency: 'd.currency',
  is_canceled: 'd.is_canceled',
});

/** A payable (alias `pa`) as payments show it; a document's payables add their installment and cost center. */
export const PAYABLE = {
  reference: 'pa.id',
  type: 'pa.type',
  status: 'pa.status',
  amount: money('pa.amount_cents'),
  amount_currency: 'pa.currency',
  file_path: 'pa.file_path',
  balance: money('pa.balance_cents'),
  issue_date: date('pa.issue_date'),
  expiration_date: date('pa.expiration_date'),
  concept: 'pa.concept',
  origin: 'pa.origin',
  projects: `coalesce(${json('pa.projects')}, '[]')`,
};

/**
 * A payable's (alias `pa`) cost center: as stored (nothing stores one today), else, once the ERP has registered the
 * document's posted voucher, the cost center of the voucher's payment line for this installment (`quota_number`), or
 * the voucher's own, with the code and name the ERP's cost-center catalog gives it (null when it holds none).
 */
export const PAYABLE_COST_CENTER = `coalesce(${json('pa.cost_center')}, (
  select jsonb_build_object('external_id', voucher.cost_center, 'code', cc.code, 'name', cc.name)
  from accounting_entries as e
  cross join lateral (select coalesce(
    (select nullif(line.value ->> 'cost_center_external_id', '')
      from jsonb_array_elements(e.journal_entry -> 'payment_lines') as line
      where line.value ->> 'quota_number' = pa.installment_number::text limit 1),
    nullif(e.journal_entry ->> 'cost_center_external_id', '')) as cost_center) as voucher
  left join erp_cost_centers as cc on cc.external_id = voucher.cost_center and ${owned('cc')}
  where e.document_id = pa.document_id and ${owned('e')} and e.status = 'posted'
    and e.registration_state = 'registered' and voucher.cost_center is not null
  limit 1))`;

const BENEFICIARY = {
  reference: 'b.id',
  name: 'b.name',
  identifier_type: 'b.identifier_type',
  identifier_number: 'b.identifier_number',
  is_deleted: 'b.is_deleted',
  deleted_at: timestamp('b.deleted_at'),
};

// E-mails first, then phones, each by value: the order of the (beneficiary, type, value) index they were read through.
const contacts = (fields: Record<string, string>) =>
  array(
    object(fields),
    `from beneficiary_contacts c where c.beneficiary_id = b.id and ${owned('c')}`,
    'c.type, c.value',
  );

const BASE = {
  reference: 'p.id',
  document: `case when d.id is null then null else ${DOCUMENT} end`,
  amount: money('p.amount_cents'),
  exchange_amount: money('coalesce(p.exchange_amount_cents, p.amount_cents)'),
  amount_currency: 'p.currency',
  exchange_currency: 'p.exchange_currency',
  exchange_rate: 'p.exchange_rate',
  status: 'p.status',
  pay_date: date('p.pay_date'),
  file_path: 'p.file_path',
  receipt_file_path: 'p.receipt_file_path',
  is_archived: 'p.is_archived',
  batch: `case when bt.id is null then null else ${object({ reference: 'bt.id', name: 'bt.name', status: 'bt.status' })} end`,
  tags: array(
    't.name',
    `from payment_tags pt join tags t on t.id = pt.tag_id and ${owned('t')} where pt.payment_id = p.id and ${owned('pt')}`,
    'pt.created_at, pt.id',
  ),
  source_of_fund: 'p.source_of_fund',
  accounting_receipt: 'p.accounting_receipt',
  paid_at: timestamp('p.paid_at'),
  payment_method: 'p.payment_method',
  created_at: timestamp('p.created_at'),
  updated_at: timestamp('p.updated_at'),
};

const LIST_ITEM = object({
  ...BASE,
  beneficiary: object({ ...BENEFICIARY, contact_information: contacts({ type: 'c.type', value: 'c.value' }) }),
  email: 'b.email',
  payable: object(PAYABLE),
});

const DETAIL = object({
  ...BASE,
  beneficiary: object({
    ...BENEFICIARY,
    type: 'b.type',
    contact_information: contacts({ reference: 'c.id', type: 'c.type', value: 'c.value' }),
  }),
  payable: object({ ...PAYABLE, cost_center: PAYABLE_COST_CENTER }),
  payment_gateway: 'p.payment_gateway',
  advance_balance: `case when pa.type = 'advance' and p.status = 'processed' then ${object({
    original_amount: money('p.amount_cents'),
    outstanding_amount: money('coalesce(p.advance_outstanding_cents, p.amount_cents)'),
    updated_at: timestamp('p.advance_balance_updated_at'),
  })} end`,
  has_erp_payment: `(coalesce(p.erp_payment_reference, '') <> '' or p.erp_payment is not null)`,
  erp_payment_reference: 'p.erp_payment_reference',
  is_fiscal_entity: `(pa.origin = 'fiscal_entity' or ${DOCUMENT_ORIGIN} = 'fiscal_entity')`,
  has_erp_payable: `(coalesce(p.erp_payable_reference, '') <> '' or p.erp_payable is not null)`,
  erp_payable_reference: 'p.erp_payable_reference',
  erp_payable: 'p.erp_payable',
  erp_payment: 'p.erp_payment',
});

/** The payments of `ids` that belong to the company, rendered as `json`, in the order of `ids`. */
async function render<T>(em: EntityManager, json: string, companyId: string, ids: string[]): Promise<T[]> {
  if (ids.length === 0) return [];
  const rows = await runStatement<{ payment: T }>(
    em,
    `select ${json} as payment
     from unnest(array[:ids]::uuid[]) with ordinality as page(id, position)
     join payments p on p.id = page.id and ${owned('p')}
     join payables pa on pa.id = p.payable_id and ${owned('pa')}
     left join documents d on d.id = pa.document_id and ${owned('d')}
     join beneficiaries b on b.id = p.beneficiary_id and ${owned('b')}
     left join payment_batches bt on bt.id = p.batch_id and ${owned('bt')}
     order by page.position`,
    { ids, companyId },
  );
  return rows.map((row) => row.payment);
}

/** Payments as the list (and the creation's answer) shows them, in the order of `ids`: one statement. */
export const renderPaymentListItems = (em: EntityManager, companyId: string, ids: string[]) =>
  render<ListItem>(em, LIST_ITEM, companyId, ids);

/** A payment with its detail-only fields, or null when the company has no payment `id`: one statement. */
export async function renderPaymentDetail(em: EntityManager, companyId: string, id: string): Promise<Detail | null> {
  const [detail] = await render<Detail>(em, DETAIL, companyId, [id]);
  return detail ?? null;
}
