import { z } from 'zod';
import { Currency, Reference, trimmedString } from '../../platform/schema-atoms.ts';
import { decimalInput } from './decimal.ts';

const DateOnly = z.iso.date({ message: 'Must be a date as YYYY-MM-DD' });

export const ReimbursedPersonInput = z
  .object({
    name: trimmedString().min(1, 'Must not be empty').max(255, 'Must be at most 255 characters'),
    identifier_type: trimmedString()
      .min(1, 'Must not be empty')
      .max(20, 'Must be at most 20 characters')
      .transform((value) => value.toUpperCase())
      .describe('CC, CE, NIT, PA, RFC, CURP...; compared without case'),
    identifier_number: trimmedString()
      .min(1, 'Must not be empty')
      .max(40, 'Must be at most 40 characters')
      .regex(/^[A-Za-z0-9-]+$/, 'Letters, digits and dashes only'),
    email: z.email('Must be an e-mail address').max(255).optional(),
  })
  .describe(
    [
      'Who paid the cost out of pocket and is paid back.',
      'Without beneficiary_reference, the beneficiary paid:',
      'the one with this identifier type and number, or, when the company has none, a new beneficiary of type `employee`',
    ].join(' '),
  );

export const CreateExpenseRequest = z
  .object({
    type: z
      .literal('expense', {
        message: 'Only expenses are created through the API: invoices and notes arrive from DIAN and SAT',
      })
      .optional()
      .describe('The document type; `expense`, the only one an integrator creates (absent: `expense`)'),
    beneficiary_reference: Reference.optional().describe(
      'An existing beneficiary of the company, who is paid (`404 beneficiary_not_found` otherwise). Give it, reimbursed_person, or both',
    ),
    reimbursed_person: ReimbursedPersonInput.optional(),
    amount: decimalInput({ min: '0', exclusiveMin: true, maxDecimals: 2 }).describe(
      'Greater than 0, at most 2 decimals (a JSON number or a decimal string)',
    ),
    amount_currency: Currency,
    issue_date: DateOnly.describe("The expense's date, YYYY-MM-DD in the company's country"),
    due_date: DateOnly.optional().describe(
      "When it is to be paid back (the payable's expiration_date); absent: the beneficiary's payment term from issue_date, or issue_date",
    ),
    spent_on: DateOnly.optional().describe('The day the cost was incurred; absent: issue_date'),
    document_number: trimmedString()
      .min(1, 'Must not be empty')
      .max(100, 'Must be at most 100 characters')
      .optional()
      .describe('The receipt or ticket number; absent: `EXP-` and 12 hexadecimal characters of the reference'),
    category: trimmedString().min(1, 'Must not be empty').max(100, 'Must be at most 100 characters').optional(),
    cost_center: trimmedString()
      .min(1, 'Must not be empty')
      .max(100, 'Must be at most 100 characters')
      .optional()
      .describe("The cost center it is charged to: an ERP cost center's external_id, or free text"),
    description: trimmedString().max(1000, 'Must be at most 1000 characters').optional(),
    receipt_url: z
      .url({ protocol: /^https?$/, message: 'Must be a public http(s) URL' })
      .max(2048, 'Must be at most 2048 characters')
      .optional()
      .describe(
        [
          'A link to the receipt at a public address (IPv4 or IPv6), or in a network the operator allows:',
          'private, loopback, link-local and other special-purpose addresses, `localhost` and single-label names are refused, naming the rule.',
          'Kept as given, never fetched.',
          'To upload the file instead, send multipart/form-data',
        ].join(' '),
      ),
    receipt_file_name: trimmedString()
      .min(1)
      .max(255, 'Must be at most 255 characters')
      .optional()
      .describe("Absent: the URL's last path segment"),
    acting_user_email: z
      .email('Must be an e-mail address')
      .optional()
      .describe(
        'A company member recording it through the integration: the `document.created` log names them (actor `user`); absent, the API key',
      ),
  })
  .superRefine((body, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (!body.beneficiary_reference && !body.reimbursed_person)
      issue('beneficiary_reference', 'Required (or reimbursed_person, the person paid back)');
    if (body.due_date && body.due_date < body.issue_date) issue('due_date', 'Must not be before issue_date');
    if (body.receipt_file_name && !body.receipt_url) issue('receipt_url', 'Required when receipt_file_name is given');
  })
  .describe(
    [
      'As JSON, with the receipt as a link (receipt_url).',
      'As multipart/form-data instead: this same object as JSON text in the field `data`,',
      'and the receipt file in `receipt` (pdf, jpg, jpeg or png, at most 5 MB, checked by content).',
    ].join(' '),
  );
