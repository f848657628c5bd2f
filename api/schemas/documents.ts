import { z } from 'zod';
import { APPROVAL_STATUSES, DOCUMENT_PAYMENT_STATUSES, DOCUMENT_TYPES } from '../../db/documents/document.entity.ts';
import { Reference, trimmedString } from '../../platform/schema-atoms.ts';
import { EXPANSIONS } from '../../read-models/document-schema.ts';
import { PageQuery, QueryBoolean, commaSeparated } from './common.ts';

const DateOnly = z.iso.date();

export const DocumentParams = z.object({ reference: Reference });

const DateFilter = DateOnly.describe('YYYY-MM-DD, inclusive');
export const SORTABLE_DOCUMENT_FIELDS = [
  'created_at',
  'issue_date',
  'expiration_date',
  'amount',
  'document_number',
] as const;

export const DocumentListQuery = z.object({
  ...PageQuery,
  fields: commaSeparated(z.enum(EXPANSIONS, { message: `Each field must be one of ${EXPANSIONS.join(', ')}` }))
    .optional()
    .describe(`Comma-separated expansions: ${EXPANSIONS.join(', ')}`),
  is_admited: QueryBoolean.optional().describe('true: only documents with the tag admitido; false: only without'),
  is_canceled: QueryBoolean.optional().describe(
    'true: only documents cancelled before the tax authority; false: excludes them',
  ),
  is_archived: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe(
      'Default false: archived documents are left out. true: only archived documents (POST /documents/{reference}/archive). A document is always read by its reference, archived or not',
    ),
  tags: commaSeparated(z.string().min(1).max(100))
    .optional()
    .describe('Tag ids or names, comma-separated; a document matches when it has any of them'),
  search: trimmedString()
    .min(1)
    .max(100)
    .optional()
    .describe('Text search on document number, fiscal reference, beneficiary name and identifier'),
  type: commaSeparated(z.enum(DOCUMENT_TYPES)).optional(),
  approval_status: commaSeparated(z.enum(APPROVAL_STATUSES)).optional(),
  payment_status: commaSeparated(z.enum(DOCUMENT_PAYMENT_STATUSES)).optional(),
  beneficiary_reference: Reference.optional(),
  fiscal_reference: z.string().max(100).optional(),
  issue_date_from: DateFilter.optional(),
  issue_date_to: DateFilter.optional(),
  expiration_date_from: DateFilter.optional(),
  expiration_date_to: DateFilter.optional(),
  created_at_from: DateFilter.optional(),
  created_at_to: DateFilter.optional(),
  sort_by: z.enum(SORTABLE_DOCUMENT_FIELDS).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});
export type DocumentListQuery = z.output<typeof DocumentListQuery>;

export const ApproveRequest = z
  .object({
    erp_document_reference: trimmedString()
      .min(1)
      .max(255)
      .optional()
      .describe("The integrator's ERP document reference, stored with the approval"),
  })
  .optional();
export const ApproveParams = z.object({
  reference: z
    .string()
    .regex(
      /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[a-fA-F0-9]{96})$/,
      'Must be a document reference (UUID), a CUFE (96 hex characters) or a SAT fiscal UUID',
    )
    .describe('Internal UUID, CUFE (96 hex characters) or SAT fiscal UUID'),
});
