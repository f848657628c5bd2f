import { AccountingRefused, accountDocument } from '../../services/accounting/accounting.ts';
import { temporalProcesses } from '../../temporal/processes.ts';
import { renderDocuments } from '../../read-models/document-json.ts';
import { AccountingBody } from '../../read-models/document-schema.ts';
import { ApiError, notFound } from '../errors.ts';
import { defineRoute, Reply } from '../route.ts';
import { DocumentParams } from '../schemas/documents.ts';
import { DOCUMENT_NOT_FOUND } from './documents.ts';

/** Why a voucher cannot be handed over again: it is not there, already in the ERP, or on its way. */
const RETRY_REFUSALS = [
  { status: 409, code: 'not_accounted', description: 'the document has no posted voucher to hand over' },
  { status: 409, code: 'already_registered', description: 'the ERP has already registered the voucher' },
  { status: 409, code: 'registration_in_progress', description: 'the voucher is being handed over right now' },
  {
    status: 409,
    code: 'awaiting_catalog',
    description:
      'the ERP catalog still lacks a book account the voucher needs (`accounting.missing_catalog_entries`); it is handed over once the ERP syncs it',
  },
  {
    status: 409,
    code: 'no_receiver',
    description: 'no webhook subscription of the company receives document.accounted',
  },
];

/** The customer's side of the `document.accounted` hand-off: handing a voucher the ERP refused over again. */
export const documentAccountingRoutes = [
  defineRoute({
    method: 'post',
    path: '/documents/:reference/accounting/retry',
    operationId: 'retryDocumentAccounting',
    summary: 'Hand the voucher over to the ERP again',
    description:
      "After the ERP answered `document.accounted` with 422 (`accounting.registration_state` `failed`, its message in `accounting.failure`), and once the cause is fixed on the ERP's side, sends the same posted voucher again through the same hand-off: signed, logged and retried like the first, with the same `data.reference`, so the ERP cannot register it twice. Answers at once; the ERP's answer then shows in `accounting` and `erp_document`.",
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    status: 202,
    response: AccountingBody,
    responseDescription: 'Accepted: the voucher is being handed over (`registration_state` `registering`)',
    errors: [DOCUMENT_NOT_FOUND, ...RETRY_REFUSALS],
    handler: async ({ em, caller, params, deps }) => {
      const documentId = params.reference.toLowerCase();
      try {
        await accountDocument(
          {
            orm: deps.orm,
            processes: temporalProcesses(deps.temporal, deps.config.webhookRetry),
            publicUrl: deps.config.publicUrl,
          },
          { documentId, companyId: caller.company.id, retry: true },
        );
      } catch (error) {
        if (!(error instanceof AccountingRefused)) throw error;
        if (error.code === 'document_not_found') throw notFound(DOCUMENT_NOT_FOUND.code, 'Document not found');
        throw new ApiError(409, error.code, error.message);
      }
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
