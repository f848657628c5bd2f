import type { Context } from 'koa';
import type { z } from 'zod';
import { uuidv5 } from '../../db/ids.ts';
import { MAX_ATTACHMENT_BYTES } from '../../platform/file-types.ts';
import { renderDocument } from '../../read-models/document-json.ts';
import { DocumentDetail } from '../../read-models/document-schema.ts';
import { createExpense, ExpenseRefused, type NewExpense } from '../../services/expenses/create-expense.ts';
import { ReceiptRefused, type ReceiptInput } from '../../services/expenses/receipt.ts';
import { temporalProcesses } from '../../temporal/processes.ts';
import { amountToCents } from '../schemas/decimal.ts';
import { UNSTORABLE_TEXT, validationError } from '../errors.ts';
import { refusals } from '../refusals.ts';
import { requestContent } from '../middleware/idempotency.ts';
import type { MultipartBody } from '../multipart.ts';
import { defineRoute, type Caller } from '../route.ts';
import { fieldErrors } from '../router.ts';
import { unstorableTextPaths } from '../schemas/common.ts';
import { CreateExpenseRequest } from '../schemas/expenses.ts';

type ExpenseBody = z.output<typeof CreateExpenseRequest>;

/** The field of the request each refusal of the rules the schema shares is about. */
const REFUSED_FIELD: Partial<Record<ExpenseRefused['code'], string>> = {
  invalid_amount: 'amount',
  unsupported_currency: 'amount_currency',
  invalid_date: 'issue_date',
  beneficiary_required: 'beneficiary_reference',
};

/**
 * The expense's reference: with an Idempotency-Key, derived from the key and the request, so that a retry whose answer
 * was lost (a 5xx releases the key) finds the expense it wrote instead of recording it twice.
 */
function expenseIdOf(companyId: string, ctx: Context, form: MultipartBody | undefined): string | null {
  const key = ctx.get('idempotency-key');
  return key ? uuidv5(`expense\n${companyId}\n${key}\n${requestContent(ctx, form)}`) : null;
}

/** Expenses an integrator records: documents of type `expense`, read, approved and paid like any document. */
export const expenseRoutes = [
  defineRoute({
    method: 'post',
    path: '/documents',
    operationId: 'createExpense',
    summary: 'Record an expense with its receipt',
    description: [
      'Documents an integrator creates are expenses (invoices and notes arrive from DIAN and SAT).',
      "A cost that is no supplier's invoice (a reimbursement, a purchase without an invoice) becomes a document of type `expense`:",
      "it answers 201 with the document, announces it with `document.created`, and goes through the company's flow like an imported one,",
      'so it is approved (POST /documents/{reference}/approve or its approval step),',
      'gets its payable on approval, and is paid with POST /payments (`payable_reference`);',
      'those payments are the ones `GET /payments?only_expenses=true` lists.',
      'Its receipt is a public link (JSON `receipt_url`) or a file (multipart/form-data).',
      'Nothing is written when it is refused.',
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    body: CreateExpenseRequest,
    multipart: {
      limits: { maxFileBytes: MAX_ATTACHMENT_BYTES, maxFiles: 1, maxFieldBytes: 64 * 1024 },
      form: {
        id: 'ExpenseUpload',
        description: 'An expense with its receipt as a file, as multipart/form-data',
        properties: {
          data: {
            type: 'string',
            contentMediaType: 'application/json',
            description: 'The expense as JSON text: the same object as the JSON body (without receipt_url)',
          },
          receipt: { type: 'string', format: 'binary', description: 'pdf, jpg, jpeg or png, at most 5 MB' },
        },
        required: ['data', 'receipt'],
      },
    },
    status: 201,
    response: DocumentDetail,
    responseDescription: 'Created: the expense as GET /documents/{reference} shows it',
    errors: refusals(['acting_user_not_found_in_company', 'beneficiary_not_found', 'beneficiary_deleted']),
    handler: async ({ em, body, form, caller, ctx, deps }) => {
      const { fields, receipt } = form ? uploaded(form) : { fields: body, receipt: linkedReceipt(body) };
      let reference: string;
      try {
        ({ reference } = await createExpense(
          {
            orm: deps.orm,
            storage: deps.storage,
            processes: temporalProcesses(deps.temporal, deps.config.webhookRetry),
            publicUrl: deps.config.publicUrl,
            outbound: deps.config.outbound,
          },
          commandOf(caller, fields, receipt, expenseIdOf(caller.company.id, ctx, form)),
        ));
      } catch (error) {
        throw refusalAnswer(error);
      }
      const document = await renderDocument(em, caller.company.id, reference, deps.config.publicUrl);
      if (!document) throw new Error(`Expense ${reference} is not in the read state after it was written`);
      return document;
    },
  }),
];

function commandOf(
  caller: Caller,
  body: ExpenseBody,
  receipt: ReceiptInput | null,
  expenseId: string | null,
): NewExpense {
  const person = body.reimbursed_person;
  return {
    companyId: caller.company.id,
    expenseId,
    beneficiaryId: body.beneficiary_reference ?? null,
    reimbursedPerson: person
      ? {
          name: person.name,
          identifierType: person.identifier_type,
          identifierNumber: person.identifier_number,
          email: person.email?.toLowerCase() ?? null,
        }
      : null,
    amountCents: amountToCents(body.amount),
    currency: body.amount_currency,
    issueDate: body.issue_date,
    dueDate: body.due_date ?? null,
    spentOn: body.spent_on ?? null,
    documentNumber: body.document_number ?? null,
    category: body.category ?? null,
    costCenter: body.cost_center ?? null,
    description: body.description || null,
    receipt,
    author: {
      source: 'integration',
      name: `API key ${caller.apiKeyPrefix}`,
      actingUserEmail: body.acting_user_email?.toLowerCase() ?? null,
    },
  };
}

const linkedReceipt = (body: ExpenseBody): ReceiptInput | null =>
  body.receipt_url ? { kind: 'link', url: body.receipt_url, fileName: body.receipt_file_name ?? null } : null;

/** The multipart form: the expense as JSON text in `data`, validated as the JSON body is, and the file in `receipt`. */
function uploaded(form: MultipartBody): { fields: ExpenseBody; receipt: ReceiptInput } {
  const text = form.fields.data;
  if (text === undefined) throw validationError({ data: ['Required: the expense as JSON text'] });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw validationError({ data: ['Must be the expense as JSON text'] });
  }
  const result = CreateExpenseRequest.safeParse(json);
  if (!result.success) throw validationError(fieldErrors(result.error));
  const [unstorable] = unstorableTextPaths(result.data);
  if (unstorable) throw validationError({ [unstorable.join('.') || 'data']: [UNSTORABLE_TEXT] });
  if (result.data.receipt_url)
    throw validationError({ receipt_url: ['Not allowed with an uploaded receipt: send one or the other'] });
  const file = form.files.find((candidate) => candidate.field === 'receipt');
  if (!file) throw validationError({ receipt: ['Required: the receipt file, in the field `receipt`'] });
  return { fields: result.data, receipt: { kind: 'upload', bytes: file.bytes, fileName: file.fileName } };
}

/** The refusals of the rules the schema also states, and the receipt's, answer as validation errors. */
function refusalAnswer(error: unknown): unknown {
  if (error instanceof ReceiptRefused)
    return validationError({ [error.code === 'receipt_not_public' ? 'receipt_url' : 'receipt']: [error.message] });
  const field = error instanceof ExpenseRefused ? REFUSED_FIELD[error.code] : undefined;
  return field ? validationError({ [field]: [(error as Error).message] }) : error;
}
