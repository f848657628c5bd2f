// A realistic data set, fast: companies through the product's repositories, then tens of thousands of documents
// built from the parsed fixtures (varied numbers, fiscal references, amounts, dates and suppliers) written straight
// into the real tables with batched `insert ... select * from unnest(...)`.
import pg from 'pg';
import { createCompany, enableFeature, upsertMember } from '../db/companies/company.repository.ts';
import type { Country } from '../db/companies/company.entity.ts';
import type { Currency } from '../db/money.ts';
import { uuidv7 } from '../db/ids.ts';
import { setDianEventPerson } from '../db/fiscal/dian-event-person.repository.ts';
import { companyEm, systemEm, type Orm } from '../db/orm.ts';
import { fiscalReferenceFor, templates, type Template } from './fixtures.ts';
import { seededRandom, type Random } from '../dev/random.ts';

export interface SeededDocument {
  id: string;
  documentNumber: string;
  fiscalReference: string;
  approvalStatus: string;
  type: string;
}

export interface SeededCompany {
  id: string;
  country: Country;
  apiKey: string;
  member: { email: string; name: string };
  documents: SeededDocument[];
  tags: { id: string; name: string }[];
  beneficiaryIds: string[];
  batchIds: string[];
}

export interface SeedSummary {
  companies: SeededCompany[];
  rows: Record<string, number>;
  seconds: number;
}

const DAY = 86_400_000;
const SUPPLIERS_PER_COMPANY = 400;
const BATCHES_PER_COMPANY = 60;
const TAG_NAMES = [
  'urgente',
  'servicios',
  'materia-prima',
  'caja-menor',
  'proyecto-norte',
  'proyecto-sur',
  'mantenimiento',
  'importacion',
  'revisar',
  'recurrente',
  'logistica',
];
const NOTE_TEXTS = [
  'Factura revisada contra la orden de compra.',
  'Pendiente de soporte de entrega.',
  'Aprobada por el área de compras.',
  'El proveedor confirmó la fecha de vencimiento.',
  'Se solicitó nota crédito por diferencia en precio.',
];
const NAME_WORDS = {
  COL: {
    first: [
      'Ferretería',
      'Distribuidora',
      'Servicios',
      'Transportes',
      'Comercializadora',
      'Tecnología',
      'Alimentos',
      'Construcciones',
      'Papelería',
      'Suministros',
    ],
    second: [
      'Andina',
      'del Caribe',
      'del Pacífico',
      'Central',
      'El Tornillo',
      'La Sabana',
      'Santander',
      'Antioquia',
      'del Valle',
      'Boyacá',
    ],
    legal: ['S.A.S.', 'Ltda.', 'S.A.'],
  },
  MEX: {
    first: [
      'Herrería',
      'Distribuidora',
      'Servicios',
      'Transportes',
      'Comercializadora',
      'Tecnología',
      'Abarrotes',
      'Constructora',
      'Papelería',
      'Refacciones',
    ],
    second: [
      'del Norte',
      'del Bajío',
      'Azteca',
      'Central',
      'Monterrey',
      'Jalisco',
      'Querétaro',
      'del Golfo',
      'Puebla',
      'Sonora',
    ],
    legal: ['S.A. de C.V.', 'S. de R.L. de C.V.', 'S.C.'],
  },
};

/** Rows of one table, flushed in batches as column arrays through `unnest`, so a batch is one statement. */
class Table {
  readonly name: string;
  readonly columns: readonly (readonly [string, string])[];
  rows: unknown[][] = [];
  written = 0;
  constructor(name: string, columns: readonly (readonly [string, string])[]) {
    this.name = name;
    this.columns = columns;
  }
  add(...values: unknown[]): void {
    this.rows.push(values);
  }
  async flush(client: pg.Client, batch = 5_000): Promise<void> {
    const names = this.columns.map(([column]) => `"${column}"`).join(', ');
    const unnest = this.columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
    for (let start = 0; start < this.rows.length; start += batch) {
      const chunk = this.rows.slice(start, start + batch);
      const arrays = this.columns.map((_, index) => chunk.map((row) => row[index]));
      await client.query(`insert into "${this.name}" (${names}) select * from unnest(${unnest})`, arrays);
    }
    this.written += this.rows.length;
    this.rows = [];
  }
}

const tables = () => ({
  beneficiaries: new Table('beneficiaries', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['name', 'text'],
    ['email', 'text'],
    ['phone_number', 'text'],
    ['identifier_type', 'text'],
    ['identifier_number', 'text'],
    ['payment_terms', 'int'],
    ['fiscal_address', 'text'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  beneficiary_contacts: new Table('beneficiary_contacts', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['beneficiary_id', 'uuid'],
    ['type', 'contact_type'],
    ['value', 'text'],
    ['created_at', 'timestamptz'],
  ]),
  tags: new Table('tags', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['name', 'text'],
    ['normalized_name', 'text'],
    ['is_system', 'boolean'],
    ['created_at', 'timestamptz'],
  ]),
  payment_batches: new Table('payment_batches', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['name', 'text'],
    ['status', 'text'],
    ['currency', 'currency'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  documents: new Table('documents', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['beneficiary_id', 'uuid'],
    ['country', 'country'],
    ['document_number', 'text'],
    ['type', 'document_type'],
    ['amount_cents', 'bigint'],
    ['currency', 'currency'],
    ['subtotal_cents', 'bigint'],
    ['tax_total_cents', 'bigint'],
    ['withholding_total_cents', 'bigint'],
    ['approval_status', 'approval_status'],
    ['payment_status', 'document_payment_status'],
    ['issue_date', 'timestamptz'],
    ['expiration_date', 'timestamptz'],
    ['fiscal_reference', 'text'],
    ['fiscal_metadata', 'jsonb'],
    ['source_xml_path', 'text'],
    ['purchase_order', 'text'],
    ['created_by', 'jsonb'],
    ['approved_at', 'timestamptz'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  line_items: new Table('line_items', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['document_id', 'uuid'],
    ['position', 'int'],
    ['name', 'text'],
    ['description', 'text'],
    ['code', 'text'],
    ['quantity', 'numeric'],
    ['unit_code', 'text'],
    ['unit_price_cents', 'bigint'],
    ['currency', 'currency'],
    ['subtotal_cents', 'bigint'],
    ['total_cents', 'bigint'],
    ['metadata', 'jsonb'],
    ['adjustments', 'jsonb'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  document_tags: new Table('document_tags', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['document_id', 'uuid'],
    ['tag_id', 'uuid'],
    ['created_at', 'timestamptz'],
  ]),
  payables: new Table('payables', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['document_id', 'uuid'],
    ['beneficiary_id', 'uuid'],
    ['status', 'payable_status'],
    ['amount_cents', 'bigint'],
    ['currency', 'currency'],
    ['balance_cents', 'bigint'],
    ['issue_date', 'date'],
    ['expiration_date', 'date'],
    ['concept', 'text'],
    ['origin', 'text'],
    ['projects', 'jsonb'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  payments: new Table('payments', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['payable_id', 'uuid'],
    ['beneficiary_id', 'uuid'],
    ['batch_id', 'uuid'],
    ['amount_cents', 'bigint'],
    ['currency', 'currency'],
    ['status', 'payment_status'],
    ['is_archived', 'boolean'],
    ['payment_method', 'text'],
    ['paid_at', 'timestamptz'],
    ['is_expense', 'boolean'],
    ['gateway_reference', 'text'],
    ['pay_date', 'date'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  payment_tags: new Table('payment_tags', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['payment_id', 'uuid'],
    ['tag_id', 'uuid'],
    ['created_at', 'timestamptz'],
  ]),
  document_notes: new Table('document_notes', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['document_id', 'uuid'],
    ['comment', 'text'],
    ['created_by', 'jsonb'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ]),
  activity_logs: new Table('activity_logs', [
    ['id', 'uuid'],
    ['company_id', 'uuid'],
    ['document_id', 'uuid'],
    ['event', 'text'],
    ['actor', 'jsonb'],
    ['metadata', 'jsonb'],
    ['created_at', 'timestamptz'],
  ]),
});

type Tables = ReturnType<typeof tables>;

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
/** Scales an amount in cents by a factor given in hundredths, exactly. */
const scale = (cents: bigint, hundredths: bigint) => ((cents * hundredths) / 100n).toString();
/** JSON of parser output: its bigint cents become numbers, as the importer stores them. */
const json = (value: unknown) =>
  JSON.stringify(value, (_, item: unknown) => (typeof item === 'bigint' ? Number(item) : item));

interface Supplier {
  id: string;
  name: string;
}

function suppliers(t: Tables, rng: Random, companyId: string, country: Country, now: number): Supplier[] {
  const words = NAME_WORDS[country];
  const list: Supplier[] = [];
  for (let n = 0; n < SUPPLIERS_PER_COMPANY; n++) {
    const id = uuidv7(now - 400 * DAY);
    const name = `${rng.pick(words.first)} ${rng.pick(words.second)} ${n + 1} ${rng.pick(words.legal)}`;
    const identifier =
      country === 'COL'
        ? String(800_000_000 + rng.int(0, 199_999_999))
        : `${['ABC', 'HEL', 'DIS', 'SER', 'TRA'][n % 5]}${String(rng.int(100_000, 999_999))}${'A1B'}`;
    const email = `facturacion${n + 1}@proveedor${n + 1}.example`;
    t.beneficiaries.add(
      id,
      companyId,
      name,
      email,
      n % 2 ? `+57 601 ${rng.int(1_000_000, 9_999_999)}` : null,
      country === 'COL' ? 'NIT' : 'RFC',
      identifier,
      rng.pick([0, 15, 30, 45, 60]),
      `Calle ${rng.int(1, 150)} # ${rng.int(1, 99)}-${rng.int(1, 99)}`,
      iso(now - 400 * DAY),
      iso(now - 400 * DAY),
    );
    t.beneficiary_contacts.add(uuidv7(), companyId, id, 'email', email, iso(now - 400 * DAY));
    list.push({ id, name });
  }
  return list;
}

/** One company's documents with their line items, tags, payables, payments, notes and logs. */
function documents(
  t: Tables,
  rng: Random,
  company: { id: string; country: Country },
  count: number,
  now: number,
  context: {
    templates: Template[];
    suppliers: Supplier[];
    tags: { id: string; name: string }[];
    admitted: string;
    batches: string[];
  },
): SeededDocument[] {
  const seeded: SeededDocument[] = [];
  const span = 365 * DAY;
  for (let n = 0; n < count; n++) {
    const template = rng.weighted(context.templates.map((candidate) => [candidate, candidate.weight] as const));
    const source = template.document;
    const factor = BigInt(rng.int(20, 500));
    const createdAt = now - span + Math.floor((span * n) / count) + rng.int(0, 3_600_000);
    const issueDate = createdAt - rng.int(0, 5) * DAY;
    const expirationDate = source.expirationDate ? issueDate + rng.pick([15, 30, 30, 45, 60]) * DAY : null;
    const id = uuidv7(createdAt);
    const fiscalReference = fiscalReferenceFor(company.country, `${company.id}/${n}`);
    const documentNumber =
      company.country === 'COL'
        ? `${source.type === 'credit_note' ? 'NC' : 'SETP'}${990_000_000 + n}`
        : `${source.documentNumber.startsWith('A-') ? 'A-' : 'F-'}${100_000 + n}`;
    const supplier = context.suppliers[Math.floor(rng.next() ** 2 * context.suppliers.length)]!;
    const currency = source.currency as Currency;
    const amount = BigInt(scale(source.totals.totalCents, factor));
    const approvalStatus = rng.weighted([
      ['pending', 0.45],
      ['in_review', 0.1],
      ['approved', 0.4],
      ['rejected', 0.05],
    ] as const);

    // Payables and payments: invoices are paid in zero to two payments; credit notes are not paid.
    const payments: { id: string; amount: bigint; status: string; paidAt: number | null; createdAt: number }[] = [];
    const payableId = source.type === 'invoice' ? uuidv7(createdAt) : null;
    if (payableId) {
      const howMany = rng.weighted([
        [0, 0.15],
        [1, 0.6],
        [2, 0.25],
      ] as const);
      for (let k = 0; k < howMany; k++) {
        const status = rng.weighted([
          ['processed', 0.55],
          ['pending', 0.15],
          ['in_process', 0.15],
          ['failed', 0.15],
        ] as const);
        const paymentCreated = createdAt + rng.int(1, 20) * DAY;
        payments.push({
          id: uuidv7(paymentCreated),
          amount: amount / BigInt(howMany),
          status,
          paidAt: status === 'processed' ? paymentCreated + rng.int(1, 3) * DAY : null,
          createdAt: paymentCreated,
        });
      }
    }
    const paid = payments
      .filter((payment) => payment.status === 'processed')
      .reduce((sum, payment) => sum + payment.amount, 0n);
    const paymentStatus = paid === 0n ? 'pending' : paid >= amount ? 'paid' : 'partial';

    t.documents.add(
      id,
      company.id,
      supplier.id,
      company.country,
      documentNumber,
      source.type,
      amount.toString(),
      currency,
      scale(source.totals.subtotalCents, factor),
      scale(source.totals.taxTotalCents, factor),
      scale(source.totals.withholdingTotalCents, factor),
      approvalStatus,
      paymentStatus,
      iso(issueDate),
      expirationDate === null ? null : iso(expirationDate),
      fiscalReference,
      json({
        finalNotes: source.finalNotes,
        format: source.format,
        references: source.references,
        payment: source.payment,
        ...source.metadata,
      }),
      `${company.id}/documents/${id}/${id}.xml`,
      source.purchaseOrder ?? (rng.next() < 0.3 ? `OC-${rng.int(1000, 99_999)}` : null),
      json({ source: 'fiscal', user: null }),
      approvalStatus === 'approved' ? iso(createdAt + DAY) : null,
      iso(createdAt),
      iso(createdAt),
    );
    for (const line of source.lineItems) {
      t.line_items.add(
        uuidv7(createdAt),
        company.id,
        id,
        line.position,
        line.name,
        line.description,
        line.code,
        line.quantity,
        line.unitCode,
        scale(line.unitPriceCents, factor),
        currency,
        scale(line.subtotalCents, factor),
        scale(line.totalCents, factor),
        json(line.metadata),
        json(
          line.adjustments.map((adjustment) => ({
            type: adjustment.type,
            code: adjustment.code,
            rate: adjustment.rate,
            ratePercentage: adjustment.ratePercentage,
            baseAmountCents: Number(scale(adjustment.baseAmountCents, factor)),
            amountCents: Number(scale(adjustment.amountCents, factor)),
            isInclusive: adjustment.isInclusive,
            metadata: adjustment.name ? { name: adjustment.name } : {},
          })),
        ),
        iso(createdAt),
        iso(createdAt),
      );
    }
    const tagIds = new Set<string>();
    for (
      let k = rng.weighted([
        [0, 0.35],
        [1, 0.4],
        [2, 0.2],
        [3, 0.05],
      ] as const);
      k > 0;
      k--
    )
      tagIds.add(rng.pick(context.tags).id);
    if (rng.next() < 0.15) tagIds.add(context.admitted);
    for (const tagId of tagIds)
      t.document_tags.add(uuidv7(createdAt), company.id, id, tagId, iso(createdAt + 3_600_000));

    if (payableId) {
      const payableStatus = paid === 0n ? 'pending' : paid >= amount ? 'paid' : 'partial';
      t.payables.add(
        payableId,
        company.id,
        id,
        supplier.id,
        payableStatus,
        amount.toString(),
        currency,
        (amount - paid).toString(),
        day(issueDate),
        day(expirationDate ?? issueDate + 30 * DAY),
        `Factura ${documentNumber}`,
        'document',
        '[]',
        iso(createdAt),
        iso(createdAt),
      );
      for (const payment of payments) {
        const method = rng.weighted([
          ['bank_transfer', 0.6],
          ['banking_correspondent', 0.2],
          ['cash', 0.1],
          ['card', 0.1],
        ] as const);
        t.payments.add(
          payment.id,
          company.id,
          payableId,
          supplier.id,
          rng.next() < 0.3 ? rng.pick(context.batches) : null,
          payment.amount.toString(),
          currency,
          payment.status,
          rng.next() < 0.03,
          method,
          payment.paidAt === null ? null : iso(payment.paidAt),
          rng.next() < 0.05,
          method === 'bank_transfer' ? `trf_${payment.id.slice(-12)}` : null,
          iso(payment.createdAt).slice(0, 10),
          iso(payment.createdAt),
          iso(payment.paidAt ?? payment.createdAt),
        );
        for (const tagId of tagIds)
          t.payment_tags.add(uuidv7(payment.createdAt), company.id, payment.id, tagId, iso(payment.createdAt));
      }
    }
    for (
      let k = rng.weighted([
        [0, 0.5],
        [1, 0.35],
        [2, 0.15],
      ] as const);
      k > 0;
      k--
    ) {
      const at = createdAt + rng.int(1, 72) * 3_600_000;
      t.document_notes.add(
        uuidv7(at),
        company.id,
        id,
        rng.pick(NOTE_TEXTS),
        json({ name: 'API key apk_seed' }),
        iso(at),
        iso(at),
      );
    }
    t.activity_logs.add(
      uuidv7(createdAt),
      company.id,
      id,
      'document.created',
      json({ type: 'system', source: 'fiscal' }),
      json({ file_name: template.file.split('/').pop(), format: source.format }),
      iso(createdAt),
    );
    if (tagIds.size)
      t.activity_logs.add(
        uuidv7(createdAt + 3_600_000),
        company.id,
        id,
        'document.updated',
        json({ type: 'system', source: 'integration', name: 'API key apk_seed' }),
        json({ change: 'tagged' }),
        iso(createdAt + 3_600_000),
      );
    if (approvalStatus === 'approved')
      t.activity_logs.add(
        uuidv7(createdAt + DAY),
        company.id,
        id,
        'document.approved',
        json({ type: 'user', name: 'Ana Gómez' }),
        json({}),
        iso(createdAt + DAY),
      );
    seeded.push({ id, documentNumber, fiscalReference, approvalStatus, type: source.type });
  }
  return seeded;
}

/** Two companies (Colombia and Mexico) with `documentsPerCompany` documents each, and everything they carry. */
export async function seed(orm: Orm, databaseUrl: string, documentsPerCompany: number): Promise<SeedSummary> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('set synchronous_commit = off');
  const t = tables();
  const companies: SeededCompany[] = [];
  const now = Date.now();
  try {
    for (const [index, country] of (['COL', 'MEX'] as const).entries()) {
      const em = systemEm(orm);
      const { company, apiKey } = await createCompany(em, {
        name: country === 'COL' ? 'Ferretería El Tornillo S.A.S.' : 'Abarrotes del Bajío S.A. de C.V.',
        country,
        taxId: country === 'COL' ? '900111222' : 'ABB010101AB1',
      });
      await enableFeature(em, company, 'workflow_api');
      const member = { email: 'ana@example.co', name: 'Ana Gómez' };
      await upsertMember(em, company, member);
      // The events benchmark sends 030 and 032, which name who receives for the company.
      if (country === 'COL')
        await setDianEventPerson(companyEm(orm, company.id), company, {
          idType: '13',
          idNumber: '52123456',
          firstName: 'Ana',
          familyName: 'Gómez',
          jobTitle: 'Jefe de compras',
          department: 'Compras',
        });

      const rng = seededRandom(20_261_121 + index);
      const tags = TAG_NAMES.map((name) => ({ id: uuidv7(now - 400 * DAY), name }));
      const admitted = uuidv7(now - 400 * DAY);
      for (const tag of tags) t.tags.add(tag.id, company.id, tag.name, tag.name, false, iso(now - 400 * DAY));
      t.tags.add(admitted, company.id, 'admitido', 'admitido', true, iso(now - 400 * DAY));
      const batches = Array.from({ length: BATCHES_PER_COMPANY }, (_, n) => {
        const id = uuidv7(now - (BATCHES_PER_COMPANY - n) * 6 * DAY);
        t.payment_batches.add(
          id,
          company.id,
          `Lote ${n + 1}`,
          n < BATCHES_PER_COMPANY - 3 ? 'released' : 'releasing',
          country === 'COL' ? 'COP' : 'MXN',
          iso(now - (BATCHES_PER_COMPANY - n) * 6 * DAY),
          iso(now),
        );
        return id;
      });
      const supplierList = suppliers(t, rng, company.id, country, now);
      const seeded = documents(t, rng, { id: company.id, country }, documentsPerCompany, now, {
        templates: templates(country),
        suppliers: supplierList,
        tags,
        admitted,
        batches,
      });
      companies.push({
        id: company.id,
        country,
        apiKey,
        member,
        documents: seeded,
        tags,
        beneficiaryIds: supplierList.map((supplier) => supplier.id),
        batchIds: batches,
      });
      // Parents before children: every table's rows are written once its references exist.
      for (const table of Object.values(t)) await table.flush(client);
    }
    await client.query('analyze');
  } finally {
    await client.end();
  }
  return {
    companies,
    rows: Object.fromEntries(Object.values(t).map((table) => [table.name, table.written])),
    seconds: (performance.now() - started) / 1000,
  };
}
