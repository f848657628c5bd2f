import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  importFiscalDocument,
  ImportRejected,
  type ImportFiscalDocumentResult,
} from '../../services/documents/import-fiscal-document.ts';
import { accountDocument } from '../../services/accounting/accounting.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { systemEm } from '../../db/orm.ts';
import { FiscalDocumentError } from '../../fiscal/errors.ts';
import { looksLikeSatMetadata, NotSatMetadata, readSatMetadata } from '../../fiscal/sat-metadata.ts';
import {
  addReports,
  applySatMetadata,
  emptyReport,
  MetadataRefused,
  type MetadataReport,
} from '../../services/documents/sat-cancellations.ts';
import { dianSettingsFromEnv } from '../../services/dian/settings.ts';
import { storableName } from '../../fiscal/storable-text.ts';
import { MAX_FISCAL_XML_BYTES, tooLarge } from '../../fiscal/xml.ts';
import { reference } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, notFound, usage } from '../errors.ts';
import { handedOverTogether } from '../handed-over-together.ts';

/** Files imported at once: the import waits on PostgreSQL and Temporal more than it works (the CLI's pool matches). */
const PARALLEL_IMPORTS = 8;

/** Fiscal documents: manual import through the same activity that fiscal synchronisation uses. */
export const documentCommands: Command[] = [
  {
    group: 'documents',
    action: 'import',
    usage: 'documents import --company REF FILE.xml|METADATA.txt...',
    options: { company: { type: 'string' } },
    positionals: true,
    async run(input, context) {
      const companyId = reference(input, 'company');
      if (input.positionals.length === 0) throw usage('Name at least one XML file or SAT metadata file');
      const orm = await context.orm();
      if (!(await systemEm(orm).findOne(Company, { id: companyId }))) throw notFound('company', companyId);
      const deliveries = handedOverTogether(await context.processes());
      const deps = {
        orm,
        storage: context.storage(),
        processes: deliveries.processes,
        publicUrl: context.publicUrl(),
        // A documento soporte issued with the service's DIAN software has its CUDS recomputed, as the worker does.
        dian: dianSettingsFromEnv(),
      };
      // A file named twice is read once; the outcome of each name is reported in `files`, in the order given.
      const named = [...new Set(input.positionals)];
      // SAT's metadata is told by its first line, whatever the file's name; it is applied once the CFDI are in.
      const isMetadata = await Promise.all(named.map((file) => startsAsSatMetadata(file)));
      const files = named.filter((_file, index) => !isMetadata[index]);
      const metadataFiles = named.filter((_file, index) => isMetadata[index]);
      const outcomes: FileOutcome[] = [];
      let done = 0;
      const progress = (file: string) => {
        done += 1;
        if (process.stderr.isTTY)
          process.stderr.write(`\r\u001b[2Kimporting ${done}/${named.length} ${basename(file)}`);
      };
      const importOne = async (file: string) => {
        // The name is the operator's file system's: made storable like any name from outside.
        const fileName = storableName(basename(file));
        // A file past the XML cap is refused from its size, never read whole.
        if ((await stat(file)).size >= MAX_FISCAL_XML_BYTES) throw tooLarge(fileName);
        const xml = await readFile(file);
        return importFiscalDocument(deps, { companyId, fileName, xml, source: 'fiscal' });
      };
      // Payment receipts may come before the invoices they pay: those are applied again once every file is in.
      const receiptsToRetry: [number, string][] = [];
      const queue = [...files.entries()];
      const take = async (index: number, file: string) => {
        try {
          const result = await importOne(file);
          outcomes[index] = { file, document: present(result) };
          return result;
        } catch (error) {
          // A file that cannot be taken never stops the others: it is reported. A dependency that does not answer
          // fails the command (internal_error), which is safe to run again.
          outcomes[index] = { file, error: describe(file, error) };
          return null;
        }
      };
      // A dependency that fails stops the import: no file is taken after it, and the command fails only once the
      // files under way have ended, so that nothing still runs when the connections close.
      let failure: { error: unknown } | undefined;
      await Promise.all(
        Array.from({ length: Math.min(PARALLEL_IMPORTS, files.length) }, async () => {
          for (let next = queue.shift(); next && !failure; next = queue.shift()) {
            try {
              const result = await take(...next);
              if (result?.kind === 'payment_complement' && result.unknownDocuments.length) receiptsToRetry.push(next);
            } catch (error) {
              failure ??= { error };
            }
            progress(next[1]);
          }
        }),
      );
      if (failure) {
        // What was imported before the failure is still handed over; running the import again covers the rest.
        await deliveries.drain().catch(() => undefined);
        throw failure.error;
      }
      for (const [index, file] of receiptsToRetry) await take(index, file);
      const metadata: MetadataOutcome[] = [];
      for (const file of metadataFiles) {
        try {
          const report = await applySatMetadata(
            { orm, processes: deliveries.processes },
            { companyId, items: readSatMetadata(createReadStream(file)), readFrom: 'ops documents import' },
          );
          metadata.push({ file, report });
        } catch (error) {
          metadata.push({ file, error: describeMetadata(file, error) });
        }
        progress(file);
      }
      // Deliveries not handed over stay recorded: the command fails, and importing the files again hands them over.
      await deliveries.drain();

      // Two files may hold the same document: it is one document, created once, listed once.
      const documents = new Map<unknown, Record<string, unknown>>();
      for (const outcome of outcomes) {
        if (!outcome.document) continue;
        const key = outcome.document.reference ?? outcome.document.fiscal_reference;
        const seen = documents.get(key);
        if (seen) seen.created = seen.created === true || outcome.document.created === true;
        else documents.set(key, { ...outcome.document });
      }
      const imported = [...documents.values()];
      const errors = [
        ...outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : [])),
        ...metadata.flatMap((outcome) => (outcome.error ? [outcome.error] : [])),
      ];
      const created = imported.filter((document) => document.created).length;
      const applied = metadata.flatMap((outcome) => (outcome.report ? [outcome.report] : []));
      const total = applied.reduce(addReports, emptyReport());
      process.stderr.write(
        `${process.stderr.isTTY ? '\r\u001b[2K' : ''}${named.length} files: ${imported.length} documents (${created} new, ${imported.length - created} already known), ${errors.length} not imported` +
          (metadataFiles.length
            ? `; SAT metadata: ${total.lines} lines, ${total.applied} applied, ${total.canceled} cancelled, ${total.unknown} unknown, ${total.malformed} malformed\n`
            : '\n'),
      );
      if (imported.length === 0 && applied.length === 0)
        throw new CliError('import_failed', errors.map((error) => error.message).join('; '));
      const outcomeOf = new Map<string, Record<string, unknown>>();
      for (const { file, document, error } of outcomes)
        outcomeOf.set(
          file,
          document
            ? { file, outcome: 'imported', reference: document.reference ?? null, created: document.created }
            : { file, outcome: 'refused', code: error!.code, message: error!.message },
        );
      for (const { file, report, error } of metadata)
        outcomeOf.set(
          file,
          report
            ? { file, outcome: 'metadata_applied', ...presentReport(report) }
            : { file, outcome: 'refused', code: error!.code, message: error!.message },
        );
      return {
        documents: imported,
        errors,
        ...(metadataFiles.length ? { metadata: presentReport(total) } : {}),
        files: named.map((file) => outcomeOf.get(file)!),
      };
    },
  },
];

documentCommands.push({
  group: 'documents',
  action: 'account',
  usage: 'documents account --document REF [--file ENTRY.json] [--retry]',
  options: { document: { type: 'string' }, file: { type: 'string' }, retry: { type: 'boolean' } },
  async run(input, context) {
    const documentId = reference(input, 'document');
    const file = typeof input.values.file === 'string' ? input.values.file : undefined;
    let entry: unknown;
    if (file) {
      try {
        entry = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new CliError('invalid_entry', `${file}: ${(error as Error).message}`);
      }
    }
    const deps = {
      orm: await context.orm(),
      processes: await context.processes(),
      publicUrl: context.publicUrl(),
    };
    const { entry: accounted, deliveries } = await accountDocument(deps, {
      documentId,
      entry,
      retry: input.values.retry === true,
    });
    // Only an automatic run leaves the voucher alone; an operator's always records one.
    if (!accounted) throw new Error(`Document ${documentId} was not accounted`);
    return {
      document: documentId,
      accounting_entry: {
        reference: accounted.id,
        status: accounted.status,
        registration_state: accounted.registrationState,
        is_crossed: accounted.isCrossed,
        proposed_by_agent: entry === undefined && input.values.retry !== true,
        lines: accounted.journalEntry?.erp_journal_entry_lines.length ?? 0,
        payment_lines: accounted.journalEntry?.payment_lines.length ?? 0,
        missing_catalog_entries: accounted.missingCatalogEntries,
      },
      deliveries,
    };
  },
});

function present(result: ImportFiscalDocumentResult): Record<string, unknown> {
  if (result.kind === 'document') {
    return {
      reference: result.reference,
      document_number: result.documentNumber,
      fiscal_reference: result.fiscalReference,
      created: result.created,
    };
  }
  return {
    kind: 'payment_complement',
    document_number: result.documentNumber,
    fiscal_reference: result.fiscalReference,
    applied_to: result.appliedTo,
    unknown_documents: result.unknownDocuments,
    created: result.created,
  };
}

interface MetadataOutcome {
  file: string;
  report?: MetadataReport;
  error?: FileError;
}

/** Whether a file starts with SAT's metadata header; a file that cannot be read is left to the XML import to report. */
async function startsAsSatMetadata(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'r');
    try {
      const head = Buffer.alloc(64);
      const { bytesRead } = await handle.read(head, 0, head.byteLength, 0);
      return looksLikeSatMetadata(head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/** What applying a metadata file did, as the command prints it. */
function presentReport(report: MetadataReport): Record<string, unknown> {
  return {
    lines: report.lines,
    applied: report.applied,
    canceled: report.canceled,
    unknown: report.unknown,
    malformed: report.malformed,
    malformed_lines: report.malformedLines,
    conflicting: report.conflicting,
    conflicting_lines: report.conflictingLines,
    payments_canceled: report.paymentsCanceled,
    payments_not_canceled: report.paymentsNotCanceled,
  };
}

function describeMetadata(file: string, error: unknown): FileError {
  if (error instanceof NotSatMetadata) return { file, code: 'not_sat_metadata', message: `${file}: ${error.message}` };
  if (error instanceof MetadataRefused) return { file, code: error.code, message: `${file}: ${error.message}` };
  return describe(file, error);
}

interface FileError {
  file: string;
  code: string;
  message: string;
  element?: string | null;
}

interface FileOutcome {
  file: string;
  document?: Record<string, unknown>;
  error?: FileError;
}

function describe(file: string, error: unknown): FileError {
  if (error instanceof FiscalDocumentError)
    return { file, code: error.code, element: error.element, message: error.message };
  if (error instanceof ImportRejected) return { file, code: error.code, message: error.message };
  if ((error as NodeJS.ErrnoException).code === 'ENOENT')
    return { file, code: 'file_not_found', message: `${file}: no such file` };
  // The file itself cannot be read (a directory, no permission): that file's outcome.
  if (['open', 'read'].includes((error as NodeJS.ErrnoException).syscall ?? ''))
    return { file, code: 'file_unreadable', message: `${file}: ${(error as Error).message}` };
  throw error;
}
