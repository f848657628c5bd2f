import type { z } from 'zod';
import type { Payable } from '../../db/payments/payable.entity.ts';
import type { PaymentListItem } from '../schemas/payments.ts';
import { centsToAmount, isoDate } from './money.ts';

/** A payable as a payment shows it; the document's payables add their installment and cost center. */
export function presentPayable(payable: Payable): z.input<typeof PaymentListItem>['payable'] {
  return {
    reference: payable.id,
    type: payable.type,
    status: payable.status,
    amount: centsToAmount(payable.amountCents),
    amount_currency: payable.currency,
    file_path: payable.filePath ?? null,
    balance: centsToAmount(payable.balanceCents),
    issue_date: isoDate(payable.issueDate),
    expiration_date: isoDate(payable.expirationDate),
    concept: payable.concept ?? null,
    origin: payable.origin,
    projects: payable.projects ?? [],
  };
}
