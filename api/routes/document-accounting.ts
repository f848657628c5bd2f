import { accountDocument } from '../../services/accounting/accounting.ts';
import { temporalProcesses } from '../../temporal/processes.ts';
import { renderDocuments } from '../../read-models/document-json.ts';
import { AccountingBody } from '../../read-models/document-schema.ts';
import { refusals } from '../refusals.ts';
import { defineRoute, Reply } from '../route.ts';
import { DocumentParams } from '../schemas/documents.ts';

/** The customer's side of the `document.accounted` hand-off: handing a voucher the ERP refused over again. */
export const documentAccountingRoutes = [
  defineRoute({
    method: 'post',
    path: '/documents/:reference/accounting/retry',
    operationId: 'retryDocumentAccounting',
    summary: 'Hand the voucher over to the ERP again',
    description: [
      'After the ERP answered `document.accounted` with 422 (`accounting.registration_state` `failed`, its message in `accounting.failure`),',
      "and once the cause is fixed on the ERP's side, sends the same posted voucher again through the same hand-off:",
      'signed, logged and retried like the first, with the same `data.reference`, so the ERP cannot register it twice.',
      "Answers at once; the ERP's answer then shows in `accounting` and `erp_document`.",
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    status: 202,
    response: AccountingBody,
    responseDescription: 'Accepted: the voucher is being handed over (`registration_state` `registering`)',
    errors: refusals([
      'document_not_found',
      'not_accounted',
      'already_registered',
      'registration_in_progress',
      'awaiting_catalog',
      'awaiting_classification',
      'awaiting_order_review',
      'voucher_held',
      'no_receiver',
    ]),
    handler: async ({ em, caller, params, deps }) => {
      const documentId = params.reference.toLowerCase();
      await accountDocument(
        {
          orm: deps.orm,
          processes: temporalProcesses(deps.temporal, deps.config.webhookRetry),
          publicUrl: deps.config.publicUrl,
        },
        { documentId, companyId: caller.company.id, retry: true },
      );
      // Only the accounting expansion: the rest of the document is not part of the answer.
      const [document] = await renderDocuments(
        em,
        caller.company.id,
        [documentId],
        ['accounting'],
        deps.config.publicUrl,
      );
      return new Reply(202, document!.accounting);
    },
  }),
];
