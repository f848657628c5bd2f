import { z } from 'zod';
import { ACCOUNT_NATURES } from '../../db/erp/book-account.entity.ts';
import { UNSTORABLE_TEXT } from '../errors.ts';
import { PageQuery, QueryBoolean, listOf, unstorableTextPaths } from './common.ts';
import { Currency, trimmedString } from '../../platform/schema-atoms.ts';
import { compareDecimals, decimalInput, scaleDecimal } from './decimal.ts';

/** Records per sync request; the body must also fit the JSON body limit (1 MB by default). */
export const MAX_SYNC_BATCH = 1000;

export const TAX_TYPES = ['iva', 'inc', 'ica', 'retefuente', 'reteiva', 'reteica', 'ieps', 'isr', 'other'] as const;
export const PURCHASE_ORDER_STATUSES = [
  'draft',
  'open',
  'partially_received',
  'received',
  'closed',
  'cancelled',
] as const;

const ExternalId = trimmedString().min(1).max(255);
const ExternalRef = ExternalId.nullish();
const Name = trimmedString().min(1).max(255);
const Code = trimmedString().min(1).max(255);
const Description = trimmedString().max(5000).nullish();
const IsActive = z.boolean().default(true).describe('Inactive records stay for history but are not offered');
const Days = z.number().int().min(0).max(3650);

// ---- Records as an ERP sends them -------------------------------------------------------------------------

export const CostCenterRecord = z
  .object({
    external_id: ExternalId.describe("The ERP's id of the cost center"),
    code: Code.nullish(),
    name: Name,
    description: Description,
    parent_external_id: ExternalRef.describe('external_id of the parent cost center; it may be synced later'),
    is_active: IsActive,
  })
  .meta({ id: 'ErpCostCenterRecord', description: 'A cost center as the ERP holds it.' });

export const VendorRecord = z
  .object({
    external_id: ExternalId,
    name: Name,
    identifier_type: trimmedString()
      .toUpperCase()
      .min(1)
      .max(20)
      .nullish()
      .describe('e.g. NIT, CC, CE, PA, NIT_EXT (Colombia), RFC (Mexico)'),
    identifier_number: trimmedString()
      .min(1)
      .max(50)
      .nullish()
      .describe('Dots and spaces are dropped; a NIT check digit after a dash is dropped too'),
    email: z.email().max(255).nullish(),
    payment_term_external_id: ExternalRef.describe('external_id of the payment term'),
    book_account_external_id: ExternalRef.describe(
      "external_id of the book account the vendor's purchases go to when nothing more specific names one (the vendor's default account)",
    ),
    is_active: IsActive,
  })
  .refine((vendor) => !vendor.identifier_number || vendor.identifier_type, {
    path: ['identifier_type'],
    message: 'Required when identifier_number is given',
  })
  .meta({
    id: 'ErpVendorRecord',
    description: 'A vendor (supplier) as the ERP holds it; matched to beneficiaries by identifier.',
  });

export const ProductRecord = z
  .object({
    external_id: ExternalId,
    code: Code.nullish(),
    name: Name,
    description: Description,
    unit_code: trimmedString()
      .min(1)
      .max(20)
      .nullish()
      .describe('Unit of measure, e.g. UN/ECE code 94 (unit), KGM, HUR'),
    book_account_external_id: ExternalRef.describe('external_id of the book account purchases of it go to'),
    tax_external_ids: z
      .array(ExternalId)
      .max(20)
      .default([])
      .refine((ids) => new Set(ids).size === ids.length, 'Must not repeat a tax')
      .describe('external_ids of the taxes that apply to it'),
    is_active: IsActive,
  })
  .meta({ id: 'ErpProductRecord', description: 'A product or service as the ERP holds it.' });

export const TaxRecord = z
  .object({
    external_id: ExternalId,
    code: Code.nullish(),
    name: Name,
    type: z.enum(TAX_TYPES).nullish(),
    rate: decimalInput({ maxDecimals: 8, min: '0', max: '10' })
      .nullish()
      .describe('Fraction, not percent: 0.19 for 19%, 0.00966 for 9.66 per mil; number or decimal string'),
    is_withholding: z
      .boolean()
      .optional()
      .describe('Defaults to true for retefuente, reteiva and reteica, false otherwise'),
    book_account_external_id: ExternalRef.describe('external_id of the book account the tax is posted to'),
    is_active: IsActive,
  })
  .meta({ id: 'ErpTaxRecord', description: 'A tax or withholding as the ERP holds it.' });

export const BookAccountRecord = z
  .object({
    external_id: ExternalId,
    code: Code.describe('Account number in the chart of accounts, e.g. 220505'),
    name: Name,
    nature: z.enum(ACCOUNT_NATURES).nullish(),
    parent_external_id: ExternalRef.describe('external_id of the parent account; it may be synced later'),
    is_active: IsActive,
  })
  .meta({ id: 'ErpBookAccountRecord', description: 'An account of the chart of accounts as the ERP holds it.' });

const Installment = z.object({
  days: Days.describe('Due this many days after issue'),
  percentage: decimalInput({ maxDecimals: 4, min: '0', exclusiveMin: true, max: '100' }).describe(
    'Share of the total, in percent',
  ),
});

export const PaymentTermRecord = z
  .object({
    external_id: ExternalId,
    name: Name,
    days: Days.nullish().describe('Net days; with installments, usually the last one'),
    installments: z
      .array(Installment)
      .min(1)
      .max(60)
      .nullish()
      .describe('Percentages add up to exactly 100; without them the term is one installment at `days`'),
    is_active: IsActive,
  })
  .superRefine((term, ctx) => {
    if ((term.days === null || term.days === undefined) && !term.installments)
      ctx.addIssue({ code: 'custom', path: ['days'], message: 'Give days or installments' });
    if (term.installments) {
      const total = term.installments.reduce((sum, installment) => sum + scaleDecimal(installment.percentage, 4), 0n);
      if (total !== 100_0000n)
        ctx.addIssue({
          code: 'custom',
          path: ['installments'],
          message: `The percentages must add up to 100 (they add up to ${Number(total) / 10_000})`,
        });
    }
  })
  .meta({ id: 'ErpPaymentTermRecord', description: 'A payment term as the ERP holds it.' });

const Quantity = decimalInput({ maxDecimals: 6, min: '0' });

const PurchaseOrderLine = z
  .object({
    external_id: ExternalId.describe('The ERP id of the line; accounting lines crossed with it reference it'),
    product_external_id: ExternalRef,
    description: trimmedString().max(1000).nullish(),
    quantity: decimalInput({ maxDecimals: 6, min: '0', exclusiveMin: true }).describe('Ordered quantity'),
    unit_price: decimalInput({ min: '0' }).describe(
      'Unit price in the order currency; stored in cents, rounded half away from zero',
    ),
    pending_quantity: Quantity.optional().describe(
      'Not yet invoiced or received; at most `quantity`, which it defaults to',
    ),
  })
  .superRefine((line, ctx) => {
    if (!line.product_external_id && !line.description)
      ctx.addIssue({ code: 'custom', path: ['description'], message: 'Give product_external_id or description' });
    if (line.pending_quantity !== undefined && compareDecimals(line.pending_quantity, line.quantity) > 0)
      ctx.addIssue({ code: 'custom', path: ['pending_quantity'], message: 'Must not exceed quantity' });
  })
  .meta({ id: 'ErpPurchaseOrderLineRecord' });

export const PurchaseOrderRecord = z
  .object({
    external_id: ExternalId,
    number: trimmedString().min(1).max(255).describe('The order number people see, e.g. OC-2026-0142'),
    vendor_external_id: ExternalRef.describe('external_id of the vendor'),
    issue_date: z.iso.date().nullish(),
    currency: Currency.nullish(),
    status: z.enum(PURCHASE_ORDER_STATUSES).default('open'),
    lines: z.array(PurchaseOrderLine).max(500).default([]),
    is_active: IsActive,
  })
  .superRefine((order, ctx) => {
    const seen = new Set<string>();
    order.lines.forEach((line, index) => {
      if (seen.has(line.external_id))
        ctx.addIssue({
          code: 'custom',
          path: ['lines', index, 'external_id'],
          message: 'Repeats another line of the order',
        });
      seen.add(line.external_id);
    });
  })
  .meta({
    id: 'ErpPurchaseOrderRecord',
    description: 'A purchase order as the ERP holds it; its lines are replaced with it.',
  });

// ---- Sync request and result --------------------------------------------------------------------------------

/** A record that failed its own validation: reported, never written, and never blocking the others. */
export class InvalidRecord {
  readonly error: z.ZodError;
  constructor(error: z.ZodError) {
    this.error = error;
  }
}

/** Validates a record on its own: a failure becomes an InvalidRecord instead of failing the request. */
function each<S extends z.ZodType>(record: S) {
  const withoutNul = record.superRefine((value, ctx) => {
    for (const path of unstorableTextPaths(value)) ctx.addIssue({ code: 'custom', path, message: UNSTORABLE_TEXT });
  });
  return withoutNul.catch(
    (ctx) => new InvalidRecord(new z.ZodError(ctx.error.issues)) as never,
  ) as unknown as z.ZodType<z.output<S> | InvalidRecord, z.input<S>>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{ items: [...] }` (1 to MAX_SYNC_BATCH records) or one record. The envelope is checked first, so that a body that
 * is neither answers VALIDATION_ERROR; each record is then validated on its own.
 */
export function syncRequest<S extends z.ZodType>(record: S, name: string) {
  const item = each(record);
  const batch = z.object({ items: z.array(item).min(1).max(MAX_SYNC_BATCH) }).meta({ id: `${name}Batch` });
  return z
    .preprocess(
      (body, ctx) => {
        if (!isPlainObject(body) || Object.keys(body).length === 0) {
          ctx.addIssue({ code: 'custom', message: 'Must be { "items": [...] } or one record', input: body });
        } else if ('items' in body) {
          if (!Array.isArray(body.items))
            ctx.addIssue({
              code: 'custom',
              path: ['items'],
              message: 'Must be an array of records',
              input: body.items,
            });
          else if (body.items.length < 1 || body.items.length > MAX_SYNC_BATCH)
            ctx.addIssue({
              code: 'custom',
              path: ['items'],
              message: `Must hold 1 to ${MAX_SYNC_BATCH} records (got ${body.items.length})`,
              input: body.items,
            });
        }
        return body;
      },
      z.union([batch, item]),
    )
    .meta({
      id: `${name}SyncRequest`,
      description: `A batch \`{ items: [...] }\` of 1 to ${MAX_SYNC_BATCH} records, or one record.`,
    });
}

export const SyncItemError = z
  .strictObject({
    index: z.number().int().min(0).describe('Position in `items` (0 for a single record)'),
    external_id: z.string().nullable().describe('The external_id as sent, when there was one'),
    code: z
      .string()
      .optional()
      .describe(
        'A stable code when the record is refused for what it references rather than for its own fields: `unknown_vendor` (a purchase order whose vendor is not synced)',
      ),
    errors: z.record(z.string(), z.array(z.string())).describe('Field path mapped to its messages'),
  })
  .meta({ id: 'ErpSyncItemError' });

export const SyncResult = z
  .strictObject({
    synced: z.number().int().min(0).describe('Records created or updated'),
    errors: z.array(SyncItemError).describe('Records refused; nothing of them was written'),
  })
  .meta({ id: 'ErpSyncResult', description: '`synced` + `errors.length` is the number of records sent.' });

// ---- What the list endpoints answer -------------------------------------------------------------------------

const Timestamps = {
  is_active: z.boolean(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
};

const Hierarchy = {
  parent_external_id: z.string().nullable(),
  depth: z.number().int().min(0).describe('0 for a root; counts the ancestors in `path`'),
  path: z.array(z.string()).describe('external_ids from the topmost known ancestor down to this record'),
  missing_ancestor_external_id: z
    .string()
    .nullable()
    .describe('The first ancestor referenced but not synced yet (it heads `path`); null when the chain reaches a root'),
};

export const CostCenterItem = z
  .strictObject({
    external_id: z.string(),
    code: z.string().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    ...Hierarchy,
    ...Timestamps,
  })
  .meta({ id: 'ErpCostCenter' });

export const VendorItem = z
  .strictObject({
    external_id: z.string(),
    name: z.string(),
    identifier_type: z.string().nullable(),
    identifier_number: z.string().nullable(),
    email: z.string().nullable(),
    payment_term_external_id: z.string().nullable(),
    book_account_external_id: z.string().nullable(),
    ...Timestamps,
  })
  .meta({ id: 'ErpVendor' });

export const ProductItem = z
  .strictObject({
    external_id: z.string(),
    code: z.string().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    unit_code: z.string().nullable(),
    book_account_external_id: z.string().nullable(),
    tax_external_ids: z.array(z.string()),
    ...Timestamps,
  })
  .meta({ id: 'ErpProduct' });

export const TaxItem = z
  .strictObject({
    external_id: z.string(),
    code: z.string().nullable(),
    name: z.string(),
    type: z.enum(TAX_TYPES).nullable(),
    rate: z.number().nullable().describe('Fraction: 0.19 for 19%'),
    is_withholding: z.boolean(),
    book_account_external_id: z.string().nullable(),
    ...Timestamps,
  })
  .meta({ id: 'ErpTax' });

export const BookAccountItem = z
  .strictObject({
    external_id: z.string(),
    code: z.string(),
    name: z.string(),
    nature: z.enum(ACCOUNT_NATURES).nullable(),
    ...Hierarchy,
    ...Timestamps,
  })
  .meta({ id: 'ErpBookAccount' });

export const PaymentTermItem = z
  .strictObject({
    external_id: z.string(),
    name: z.string(),
    days: z.number().int().nullable(),
    installments: z.array(z.strictObject({ days: z.number().int(), percentage: z.number() })),
    ...Timestamps,
  })
  .meta({ id: 'ErpPaymentTerm' });

export const PurchaseOrderItem = z
  .strictObject({
    external_id: z.string(),
    number: z.string(),
    vendor_external_id: z.string().nullable(),
    issue_date: z.iso.date().nullable(),
    currency: Currency.nullable(),
    status: z.string().nullable(),
    lines: z.array(
      z.strictObject({
        external_id: z.string(),
        product_external_id: z.string().nullable(),
        description: z.string().nullable(),
        quantity: z.number(),
        unit_price: z.number(),
        pending_quantity: z.number(),
      }),
    ),
    ...Timestamps,
  })
  .meta({ id: 'ErpPurchaseOrder' });

export const CostCenterList = listOf(CostCenterItem, 'ErpCostCenterList');
export const VendorList = listOf(VendorItem, 'ErpVendorList');
export const ProductList = listOf(ProductItem, 'ErpProductList');
export const TaxList = listOf(TaxItem, 'ErpTaxList');
export const BookAccountList = listOf(BookAccountItem, 'ErpBookAccountList');
export const PaymentTermList = listOf(PaymentTermItem, 'ErpPaymentTermList');
export const PurchaseOrderList = listOf(PurchaseOrderItem, 'ErpPurchaseOrderList');

// ---- List queries -------------------------------------------------------------------------------------------

const ListQueryFields = {
  ...PageQuery,
  search: trimmedString()
    .min(1)
    .max(100)
    .optional()
    .describe('Text in the external_id, code, name (or number / identifier), case-insensitive'),
  updated_since: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Only records created or updated at or after this instant (ISO 8601)'),
  is_active: QueryBoolean.optional(),
};

export const CatalogListQuery = z.object(ListQueryFields);
export const HierarchyListQuery = z.object({
  ...ListQueryFields,
  parent_external_id: ExternalId.optional().describe('Only the direct children of this record'),
});
export const PurchaseOrderListQuery = z.object({
  ...ListQueryFields,
  vendor_external_id: ExternalId.optional(),
  status: z.enum(PURCHASE_ORDER_STATUSES).optional(),
});
