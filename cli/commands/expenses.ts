import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Company } from '../../db/companies/company.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { systemEm } from '../../db/orm.ts';
import { centsToDecimal, decimalToCents, isDecimal } from '../../fiscal/money.ts';
import { outboundPolicyFromEnv } from '../../platform/outbound-policy.ts';
import { createExpense } from '../../services/expenses/create-expense.ts';
import { type ReceiptInput } from '../../services/expenses/receipt.ts';
import { optional, reference, required } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { CliError, notFound, usage } from '../errors.ts';

/** `--amount`: a decimal of at most 2 decimals; whether it is above 0 is the service's rule. */
function amountCents(input: CommandInput): bigint {
  const value = required(input, 'amount');
  if (!isDecimal(value) || (value.split('.')[1]?.length ?? 0) > 2)
    throw new CliError('invalid_amount', `--amount must be a decimal number with at most 2 decimals (got ${value})`, 2);
  return decimalToCents(value);
}

/** The payee: `--beneficiary`, or the person reimbursed (`--reimbursed-*`), or both. */
function reimbursedPerson(input: CommandInput) {
  const name = optional(input, 'reimbursed-name');
  const type = optional(input, 'reimbursed-id-type');
  const number = optional(input, 'reimbursed-id-number');
  if (!name && !type && !number) return null;
  if (!name || !type || !number)
    throw usage('--reimbursed-name, --reimbursed-id-type and --reimbursed-id-number go together');
  return {
    name,
    identifierType: type.toUpperCase(),
    identifierNumber: number,
    email: optional(input, 'reimbursed-email')?.toLowerCase() ?? null,
  };
}

async function receiptOf(input: CommandInput): Promise<ReceiptInput | null> {
  const url = optional(input, 'receipt-url');
  const file = optional(input, 'receipt-file');
  if (url && file) throw usage('Give --receipt-url or --receipt-file, not both');
  if (url) return { kind: 'link', url, fileName: optional(input, 'receipt-name') ?? null };
  if (!file) return null;
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(error.code === 'ENOENT' ? 'file_not_found' : 'file_unreadable', `${file}: ${error.message}`);
  });
  return { kind: 'upload', bytes, fileName: basename(file) };
}

/** Expenses: an operator records one for a company, through the same service as the API. */
export const expenseCommands: Command[] = [
  {
    group: 'expenses',
    action: 'create',
    usage:
      'expenses create --company REF --amount N --currency USD|COP|MXN|EUR --issue-date YYYY-MM-DD ' +
      '(--beneficiary REF | --reimbursed-name N --reimbursed-id-type T --reimbursed-id-number N [--reimbursed-email E]) ' +
      '[--due-date YYYY-MM-DD] [--spent-on YYYY-MM-DD] [--number N] [--category C] [--cost-center C] [--description D] ' +
      '[--receipt-url URL [--receipt-name NAME] | --receipt-file FILE] [--user EMAIL]',
    options: Object.fromEntries(
      [
        'company',
        'amount',
        'currency',
        'issue-date',
        'due-date',
        'spent-on',
        'beneficiary',
        'reimbursed-name',
        'reimbursed-id-type',
        'reimbursed-id-number',
        'reimbursed-email',
        'number',
        'category',
        'cost-center',
        'description',
        'receipt-url',
        'receipt-name',
        'receipt-file',
        'user',
      ].map((flag) => [flag, { type: 'string' as const }]),
    ),
    async run(input, context) {
      const companyId = reference(input, 'company');
      const beneficiary = optional(input, 'beneficiary');
      const command = {
        companyId,
        expenseId: null,
        beneficiaryId: beneficiary ? reference(input, 'beneficiary') : null,
        reimbursedPerson: reimbursedPerson(input),
        amountCents: amountCents(input),
        currency: required(input, 'currency').toUpperCase(),
        issueDate: required(input, 'issue-date'),
        dueDate: optional(input, 'due-date') ?? null,
        spentOn: optional(input, 'spent-on') ?? null,
        documentNumber: optional(input, 'number') || null,
        category: optional(input, 'category') || null,
        costCenter: optional(input, 'cost-center') || null,
        description: optional(input, 'description') || null,
        receipt: await receiptOf(input),
        author: { source: 'operator' as const, name: 'operator', actingUserEmail: optional(input, 'user') ?? null },
      };
      const orm = await context.orm();
      if (!(await systemEm(orm).findOne(Company, { id: companyId }))) throw notFound('company', companyId);
      const { reference: created } = await createExpense(
        {
          orm,
          storage: context.storage(),
          processes: await context.processes(),
          publicUrl: context.publicUrl(),
          outbound: outboundPolicyFromEnv(),
        },
        command,
      );
      const document = await systemEm(orm).findOneOrFail(Document, { id: created });
      return {
        reference: document.id,
        document_number: document.documentNumber,
        type: document.type,
        amount: centsToDecimal(document.amountCents),
        amount_currency: document.currency,
        beneficiary_reference: document.beneficiary?.id ?? null,
      };
    },
  },
];
