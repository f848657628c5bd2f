// Baseline: the ceiling for ingestion. Parses fiscal XML with the product's parsers and inserts the rows an import
// writes (supplier, document, line items, creation log) with the pg driver, a batch of documents per statement.
import pg from 'pg';
import { uuidv7 } from '../../db/ids.ts';
import type { NormalizedDocument } from '../../fiscal/normalized-document.ts';
import { parseFiscalDocument } from '../../fiscal/parse.ts';
import { timed } from '../stats.ts';

const BATCH = 250;

export interface XmlFile {
  name: string;
  xml: string;
}

const json = (value: unknown) =>
  JSON.stringify(value, (_, item: unknown) => (typeof item === 'bigint' ? Number(item) : item));

async function insertBatch(
  client: pg.Client,
  companyId: string,
  batch: { file: XmlFile; document: NormalizedDocument }[],
): Promise<void> {
  const now = new Date().toISOString();
  const suppliers = [
    ...new Map(batch.map(({ document }) => [document.supplier.identifierNumber, document.supplier])).values(),
  ];
  await client.query(
    `insert into beneficiaries (id, company_id, name, email, identifier_type, identifier_number, created_at, updated_at)
     select *, $7::timestamptz, $7::timestamptz from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])
     on conflict (company_id, identifier_type, identifier_number) do nothing`,
    [
      suppliers.map(() => uuidv7()),
      suppliers.map(() => companyId),
      suppliers.map((s) => s.name),
      suppliers.map((s) => s.email),
      suppliers.map((s) => s.identifierType),
      suppliers.map((s) => s.identifierNumber),
      now,
    ],
  );
  const { rows } = await client.query<{ id: string; identifier_number: string }>(
    'select id, identifier_number from beneficiaries where company_id = $1 and identifier_number = any($2)',
    [companyId, suppliers.map((s) => s.identifierNumber)],
  );
  const supplierIds = new Map(rows.map((row) => [row.identifier_number, row.id]));
  const ids = batch.map(() => uuidv7());
  const documents = batch.map(({ document }) => document);
  await client.query(
    `insert into documents (id, company_id, beneficiary_id, country, document_number, type, amount_cents, currency, subtotal_cents, tax_total_cents, withholding_total_cents,
       issue_date, expiration_date, fiscal_reference, fiscal_metadata, purchase_order, created_by, created_at, updated_at)
     select *, $16::timestamptz, $16::timestamptz from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::country[], $5::text[], $6::document_type[], $7::bigint[], $8::currency[], $9::bigint[],
       $10::bigint[], $11::bigint[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::jsonb[], $17::text[], $18::jsonb[])`,
    [
      ids,
      ids.map(() => companyId),
      documents.map((d) => supplierIds.get(d.supplier.identifierNumber)),
      documents.map((d) => d.country),
      documents.map((d) => d.documentNumber),
      documents.map((d) => d.type),
      documents.map((d) => d.totals.totalCents.toString()),
      documents.map((d) => d.currency),
      documents.map((d) => d.totals.subtotalCents.toString()),
      documents.map((d) => d.totals.taxTotalCents.toString()),
      documents.map((d) => d.totals.withholdingTotalCents.toString()),
      documents.map((d) => d.issueDate),
      documents.map((d) => d.expirationDate),
      documents.map((d) => d.fiscalReference),
      documents.map((d) =>
        json({
          finalNotes: d.finalNotes,
          format: d.format,
          references: d.references,
          payment: d.payment,
          ...d.metadata,
        }),
      ),
      now,
      documents.map((d) => d.purchaseOrder),
      documents.map(() => json({ source: 'fiscal', user: null })),
    ],
  );
  const lines = documents.flatMap((d, index) =>
    d.lineItems.map((line) => ({ documentId: ids[index]!, currency: d.currency, line })),
  );
  await client.query(
    `insert into line_items (id, company_id, document_id, position, name, description, code, quantity, unit_code,
       unit_price_cents, currency, subtotal_cents, total_cents, metadata, adjustments, created_at, updated_at)
     select *, $15::timestamptz, $15::timestamptz from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[],
       $6::text[], $7::text[], $8::numeric[], $9::text[], $10::bigint[], $11::currency[],
       $12::bigint[], $13::bigint[], $14::jsonb[], $16::jsonb[])`,
    [
      lines.map(() => uuidv7()),
      lines.map(() => companyId),
      lines.map((l) => l.documentId),
      lines.map((l) => l.line.position),
      lines.map((l) => l.line.name),
      lines.map((l) => l.line.description),
      lines.map((l) => l.line.code),
      lines.map((l) => l.line.quantity),
      lines.map((l) => l.line.unitCode),
      lines.map((l) => l.line.unitPriceCents.toString()),
      lines.map((l) => l.currency),
      lines.map((l) => l.line.subtotalCents.toString()),
      lines.map((l) => l.line.totalCents.toString()),
      lines.map((l) => json(l.line.metadata)),
      now,
      lines.map((l) => json(l.line.adjustments)),
    ],
  );
  await client.query(
    `insert into activity_logs (id, company_id, document_id, event, actor, metadata, created_at)
     select id, $2, document_id, 'document.created', '{"type":"system","source":"fiscal"}', metadata, $4 from unnest($1::uuid[], $3::uuid[], $5::jsonb[]) as rows(id, document_id, metadata)`,
    [
      ids.map(() => uuidv7()),
      companyId,
      ids,
      now,
      batch.map(({ file, document }) => json({ file_name: file.name, format: document.format })),
    ],
  );
}

/** Milliseconds to parse `files` and insert their rows for the company, in batches of 250 documents. */
export async function rawInsert(databaseUrl: string, companyId: string, files: readonly XmlFile[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await timed(async () => {
      for (let start = 0; start < files.length; start += BATCH) {
        const batch = files.slice(start, start + BATCH).map((file) => {
          const parsed = parseFiscalDocument(file.xml, file.name);
          if (parsed.kind !== 'document') throw new Error(`${file.name} is not a document`);
          return { file, document: parsed.document };
        });
        await client.query('begin');
        await insertBatch(client, companyId, batch);
        await client.query('commit');
      }
    });
  } finally {
    await client.end();
  }
}
