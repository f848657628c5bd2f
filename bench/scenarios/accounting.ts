// The accounting agent's proposal for a company with a history (BENCH_VOUCHERS registered vouchers, 5,000, of 50
// suppliers, and the rules its people taught per supplier, some 100 each), next to the same proposal in a company with
// the same suppliers and ERP catalogs and no history. Each of the timed supplier's BENCH_PROPOSALS documents (200) has
// 3 lines its people taught and one only other suppliers' people did: with the history, the proposal places 3 lines by
// the supplier's rules and asks a person for the fourth with the other suppliers' guesses; with none, it asks for all
// 4, guessing nothing. The proposal and the question run in the bench's own process (the activity's work, without
// Temporal), in a transaction as the product runs them, each document in one company right after the other.
import {
  learnRules,
  rulesForStatement,
  rulesOfOtherSuppliersStatement,
  type RuleKey,
  type RuleStatement,
} from '../../db/accounting/book-account-rules.ts';
import { createCompany, upsertMember } from '../../db/companies/company.repository.ts';
import type { EntityName } from '@mikro-orm/core';
import { Document } from '../../db/documents/document.entity.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import { syncCatalog, type CatalogRecord, type CatalogRow } from '../../db/erp/catalog.repository.ts';
import { ErpProduct } from '../../db/erp/product.entity.ts';
import { ErpTax } from '../../db/erp/tax.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import { companyEm, systemEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { inTransaction, positional, runStatement } from '../../db/prepared.ts';
import { agentProposal } from '../../services/accounting/accounting.ts';
import { bookAccountQuestion } from '../../services/accounting/accounting-questions.ts';
import { row, type BenchContext, type Row } from '../context.ts';
import { latencyOf, timed } from '../stats.ts';

const VOUCHERS = Number(process.env.BENCH_VOUCHERS ?? 5_000);
const PROPOSALS_PER_RUN = Number(process.env.BENCH_PROPOSALS ?? 200);
const SUPPLIERS = 50;
/** The items the suppliers sell: each sells a window of 50, shifted by 4 from one supplier to the next. */
const ITEMS = 200;
const ITEMS_PER_SUPPLIER = 50;
const LINES_PER_VOUCHER = 3;
const MEMBER = { email: 'ana@example.co', name: 'Ana Gómez' };
const DAY = 86_400_000;

const NOUNS = [
  'Tornillo hexagonal',
  'Tuerca de seguridad',
  'Cable eléctrico',
  'Tubería PVC',
  'Pintura vinílica',
  'Cemento gris',
  'Guantes de nitrilo',
  'Resma de papel',
  'Tóner de impresora',
  'Servicio de aseo',
  'Mantenimiento preventivo',
  'Transporte de carga',
  'Café molido',
  'Bombillo LED',
  'Cinta aislante',
  'Broca para concreto',
  'Llanta radial',
  'Aceite hidráulico',
  'Silla ergonómica',
  'Licencia de software',
];
const QUALIFIERS = ['estándar', 'industrial', 'x 10 unidades', 'tamaño grande', 'ref. básica'];
const VARIANTS = ['A', 'B'];

/** A PUC chart as a Colombian ERP syncs it: expense accounts to place lines, IVA, and what is owed to suppliers. */
const EXPENSES = [
  ['puc-143505', '143505', 'Mercancías no fabricadas por la empresa'],
  ['puc-152405', '152405', 'Equipo de oficina'],
  ['puc-513505', '513505', 'Aseo y vigilancia'],
  ['puc-514510', '514510', 'Mantenimiento de construcciones'],
  ['puc-514520', '514520', 'Mantenimiento de maquinaria y equipo'],
  ['puc-519530', '519530', 'Útiles, papelería y fotocopias'],
  ['puc-519520', '519520', 'Gastos de representación'],
  ['puc-523550', '523550', 'Transportes, fletes y acarreos'],
  ['puc-516515', '516515', 'Licencias de software'],
  ['puc-519595', '519595', 'Diversos'],
] as const;
const ACCOUNTS: CatalogRow[] = [
  ['puc-110505', '110505', 'Caja general', 'debit'],
  ...EXPENSES.map(([id, code, name]) => [id, code, name, 'debit']),
  ['puc-220505', '220505', 'Proveedores nacionales', 'credit'],
  ['puc-236540', '236540', 'Retención en la fuente: compras', 'credit'],
  ['puc-240802', '240802', 'IVA descontable', 'debit'],
].map(([externalId, code, name, nature]) => ({
  externalId: externalId!,
  isActive: true,
  raw: { external_id: externalId, code, name, nature },
  code,
  name,
  nature,
  parentExternalId: null,
}));
const TAXES: CatalogRow[] = [
  ['tax-iva19', 'IVA 19%', 'iva', '0.19', false, 'puc-240802'],
  ['tax-iva5', 'IVA 5%', 'iva', '0.05', false, 'puc-240802'],
  ['tax-rtf25', 'Retención en la fuente 2,5%', 'retefuente', '0.025', true, 'puc-236540'],
].map(([externalId, name, type, rate, isWithholding, account]) => ({
  externalId: externalId as string,
  isActive: true,
  raw: { external_id: externalId, name, type, rate },
  code: null,
  name,
  type,
  rate,
  isWithholding,
  bookAccountExternalId: account,
}));
/** The ERP's products (a proposal reads every active one): codes the suppliers' invoices do not use, half with an account. */
const PRODUCTS: CatalogRow[] = Array.from({ length: 300 }, (_, n) => ({
  externalId: `prod-${n}`,
  isActive: true,
  raw: { external_id: `prod-${n}` },
  code: `ERP-${String(n).padStart(4, '0')}`,
  name: `Producto ERP ${n}`,
  bookAccountExternalId: n % 2 ? EXPENSES[n % EXPENSES.length]![0] : null,
}));

interface Item {
  name: string;
  code: string;
  quantity: number;
  unitPriceCents: number;
}
const items: Item[] = Array.from({ length: ITEMS }, (_, n) => ({
  name: `${NOUNS[n % NOUNS.length]} ${QUALIFIERS[Math.floor(n / NOUNS.length) % QUALIFIERS.length]} ${VARIANTS[Math.floor(n / (NOUNS.length * QUALIFIERS.length))]}`,
  code: `REF-${String(n).padStart(4, '0')}`,
  quantity: 1 + (n % 5),
  unitPriceCents: 1_000_000 + (n % 40) * 250_000,
}));
/** The j-th item of supplier s's window. */
const itemOf = (supplier: number, j: number) => (supplier * 4 + (j % ITEMS_PER_SUPPLIER)) % ITEMS;
/** Where supplier s's people put its j-th item: by groups of 3, so that suppliers selling the same item disagree. */
const accountOf = (supplier: number, j: number) =>
  EXPENSES[(Math.floor((j % ITEMS_PER_SUPPLIER) / 3) + supplier) % EXPENSES.length]![0];

const iso = (ms: number) => new Date(ms).toISOString();

/** Rows written in one statement per chunk, read as rows of the table from one JSON parameter. */
async function insertRows(em: EntityManager, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 2_000) {
    const chunk = rows.slice(start, start + 2_000);
    const columns = Object.keys(chunk[0]!)
      .map((column) => `"${column}"`)
      .join(', ');
    await runStatement(
      em,
      `insert into "${table}" (${columns}) select ${columns} from jsonb_populate_recordset(null::"${table}", :rows::jsonb)`,
      { rows: JSON.stringify(chunk) },
    );
  }
}

/** A document of `lines` (indices into `items`), each with its IVA at 19%, as the importer stores it. */
function documentRows(companyId: string, supplierId: string, documentNumber: string, lines: number[], at: number) {
  const id = uuidv7(at);
  const priced = lines.map((item) => {
    const { quantity, unitPriceCents } = items[item]!;
    const subtotal = quantity * unitPriceCents;
    return { item, subtotal, tax: Math.round(subtotal * 0.19) };
  });
  const subtotal = priced.reduce((sum, line) => sum + line.subtotal, 0);
  const tax = priced.reduce((sum, line) => sum + line.tax, 0);
  return {
    document: {
      id,
      company_id: companyId,
      beneficiary_id: supplierId,
      country: 'COL',
      document_number: documentNumber,
      type: 'invoice',
      amount_cents: subtotal + tax,
      currency: 'COP',
      subtotal_cents: subtotal,
      tax_total_cents: tax,
      approval_status: 'approved',
      issue_date: iso(at),
      created_at: iso(at),
      updated_at: iso(at),
    },
    lines: priced.map((line, index) => ({
      id: uuidv7(at),
      company_id: companyId,
      document_id: id,
      position: index + 1,
      name: items[line.item]!.name,
      description: null,
      code: items[line.item]!.code,
      quantity: items[line.item]!.quantity,
      unit_code: '94',
      unit_price_cents: items[line.item]!.unitPriceCents,
      currency: 'COP',
      subtotal_cents: line.subtotal,
      total_cents: line.subtotal + line.tax,
      metadata: {},
      adjustments: [
        {
          type: 'tax',
          code: '01',
          rate: '0.19',
          ratePercentage: '19',
          baseAmountCents: line.subtotal,
          amountCents: line.tax,
          isInclusive: false,
          metadata: {},
        },
      ],
      created_at: iso(at),
      updated_at: iso(at),
    })),
    priced,
  };
}

/** A company with the 50 suppliers, a member to answer the agent's questions, and the same ERP catalogs. */
async function companyWithCatalogs(orm: Orm, name: string, taxId: string) {
  const { company } = await createCompany(systemEm(orm), { name, country: 'COL', taxId });
  await upsertMember(systemEm(orm), company, MEMBER);
  const em = companyEm(orm, company.id);
  const created = iso(Date.now() - 400 * DAY);
  const suppliers = Array.from({ length: SUPPLIERS }, (_, n) => ({
    id: uuidv7(Date.now() - 400 * DAY),
    company_id: company.id,
    name: `Proveedor ${n + 1} S.A.S.`,
    identifier_type: 'NIT',
    identifier_number: String(900_100_000 + n),
    created_at: created,
    updated_at: created,
  }));
  await insertRows(em, 'beneficiaries', suppliers);
  await syncCatalog(em, ErpBookAccount as EntityName<CatalogRecord>, company.id, ACCOUNTS, { hierarchical: true });
  await syncCatalog(em, ErpTax as EntityName<CatalogRecord>, company.id, TAXES, { hierarchical: false });
  await syncCatalog(em, ErpProduct as EntityName<CatalogRecord>, company.id, PRODUCTS, { hierarchical: false });
  // The ERP knows every supplier, with no default account: only people's decisions place their lines.
  const vendors = suppliers.map((supplier, n) => ({
    externalId: `vendor-${n}`,
    isActive: true,
    raw: { external_id: `vendor-${n}` },
    name: supplier.name,
    identifierType: 'NIT',
    identifierNumber: supplier.identifier_number,
  }));
  await syncCatalog(em, ErpVendor as EntityName<CatalogRecord>, company.id, vendors, { hierarchical: false });
  return { companyId: company.id, supplierIds: suppliers.map((supplier) => supplier.id) };
}

/**
 * The history: each supplier's documents with their registered vouchers, oldest first. A document that brings items
 * new to its supplier was placed by a person through a `document.book_account` step, which taught the rules for its
 * lines (`learnRules`, as the proposal learns from the answer); every other line went by those rules.
 */
async function seedHistory(em: EntityManager, companyId: string, supplierIds: string[]) {
  const now = Date.now();
  const documents: Record<string, unknown>[] = [];
  const lines: Record<string, unknown>[] = [];
  const entries: Record<string, unknown>[] = [];
  const steps: Record<string, unknown>[] = [];
  const lessons: Parameters<typeof learnRules>[1][] = [];
  const debitOptions = ACCOUNTS.filter((account) => account.nature === 'debit').map((account) => ({
    value: account.externalId,
    label: account.name,
  }));
  const taught = supplierIds.map(() => new Set<number>());
  for (let n = 0; n < VOUCHERS; n++) {
    const supplier = n % SUPPLIERS;
    const k = Math.floor(n / SUPPLIERS);
    const at = now - 365 * DAY + Math.floor((n * 365 * DAY) / VOUCHERS);
    const js = Array.from({ length: LINES_PER_VOUCHER }, (_, l) => (k * LINES_PER_VOUCHER + l) % ITEMS_PER_SUPPLIER);
    const made = documentRows(
      companyId,
      supplierIds[supplier]!,
      `HIST${String(n).padStart(6, '0')}`,
      js.map((j) => itemOf(supplier, j)),
      at,
    );
    documents.push(made.document);
    lines.push(...made.lines);
    const fresh = js.filter((j) => !taught[supplier]!.has(j));
    const stepId = fresh.length ? uuidv7(at + DAY) : null;
    const account = fresh.length ? accountOf(supplier, fresh[0]!) : null;
    const journalLines = made.priced.flatMap((line, index) => {
      const j = js[index]!;
      const byPerson = stepId !== null && fresh.includes(j);
      return [
        {
          source: 'agent',
          description: items[line.item]!.name,
          book_account_external_id: byPerson ? account : accountOf(supplier, j),
          debit_cents: line.subtotal,
          credit_cents: null,
          quantity: items[line.item]!.quantity,
          unit_price_cents: items[line.item]!.unitPriceCents,
          metadata: byPerson
            ? { account_source: 'classification', classification_step: stepId, decided_by: MEMBER.email }
            : { account_source: 'company_rule' },
        },
        {
          source: 'agent',
          description: 'IVA 19%',
          book_account_external_id: 'puc-240802',
          debit_cents: line.tax,
          credit_cents: null,
          metadata: { account_source: 'tax', tax_external_id: 'tax-iva19' },
        },
      ];
    });
    const amount = made.document.amount_cents;
    entries.push({
      id: uuidv7(at + DAY),
      company_id: companyId,
      document_id: made.document.id,
      status: 'posted',
      registration_state: 'registered',
      accounted_at: iso(at + DAY),
      summary: { debit_cents: amount, credit_cents: amount, lines: journalLines.length, payment_lines: 1 },
      journal_entry: {
        status: 'posted',
        document_number: made.document.document_number,
        vendor_external_id: `vendor-${supplier}`,
        issue_date: iso(at).slice(0, 10),
        posting_date: iso(at + DAY).slice(0, 10),
        description: `invoice ${made.document.document_number}`,
        erp_journal_entry_lines: journalLines,
        payment_lines: [
          {
            book_account_external_id: 'puc-220505',
            book_account_code: '220505',
            book_account_name: 'Proveedores nacionales',
            amount_cents: amount,
            due_date: iso(at + 30 * DAY).slice(0, 10),
            quota_number: 1,
          },
        ],
        erp_journal_entry_taxes: [],
      },
      missing_catalog_entries: [],
      advance_crossings: [],
      registration_payload: { proposed_by: 'agent' },
      is_crossed: false,
      created_at: iso(at + DAY),
      updated_at: iso(at + 2 * DAY),
    });
    if (stepId === null || account === null) continue;
    steps.push({
      id: stepId,
      company_id: companyId,
      document_id: made.document.id,
      beneficiary_id: supplierIds[supplier],
      position: 1000,
      action: 'document.book_account',
      kind: 'classification',
      status: 'completed',
      actionable: true,
      require_all: false,
      entity: {
        type: 'document',
        reference: made.document.id,
        documentNumber: made.document.document_number,
        concept: 'choose the book account of the lines no evidence places',
        amountCents: String(amount),
        currency: 'COP',
        issueDate: null,
        expirationDate: null,
        thirdParty: [],
      },
      decision: {
        kind: 'classification',
        multiple: false,
        fieldName: 'book_account',
        options: debitOptions,
        optionsComplete: true,
      },
      assignees: [{ ...MEMBER, acted: true }],
      recommendations: [],
      result: { values: [account], labels: [EXPENSES.find(([id]) => id === account)![2]] },
      acted_by: MEMBER,
      decided_by_agent: false,
      created_at: iso(at + DAY),
      completed_at: iso(at + DAY + 3_600_000),
    });
    lessons.push({
      companyId,
      beneficiaryId: supplierIds[supplier]!,
      rules: fresh.flatMap((j) => [
        { matchKind: 'product' as const, matchKey: items[itemOf(supplier, j)]!.code, bookAccountExternalId: account },
        {
          matchKind: 'description' as const,
          matchKey: items[itemOf(supplier, j)]!.name,
          bookAccountExternalId: account,
        },
      ]),
      source: 'classification',
      sourceReference: stepId,
    });
    for (const j of fresh) taught[supplier]!.add(j);
  }
  await insertRows(em, 'documents', documents);
  await insertRows(em, 'line_items', lines);
  await insertRows(em, 'accounting_entries', entries);
  await insertRows(em, 'workflow_steps', steps);
  // One decision after another, as people taught them; in one transaction, so that the seed commits once.
  await em.transactional(async (tx) => {
    for (const lesson of lessons) await learnRules(tx, lesson);
  });
  return { steps: steps.length, lessons: lessons.length };
}

/**
 * The timed supplier's documents, the same in both companies: 3 lines of items its people taught (the first supplier
 * sells items 0-49), and one of the items only other suppliers sell (50-199).
 */
async function seedProposals(em: EntityManager, companyId: string, supplierId: string) {
  const documents: Record<string, unknown>[] = [];
  const lines: Record<string, unknown>[] = [];
  const keys: RuleKey[][] = [];
  const now = Date.now();
  for (let n = 0; n < PROPOSALS_PER_RUN; n++) {
    const sold = Array.from({ length: 3 }, (_, l) => itemOf(0, n * 3 + l));
    const lineItems = [...sold, ITEMS_PER_SUPPLIER + (n % (ITEMS - ITEMS_PER_SUPPLIER))];
    const made = documentRows(companyId, supplierId, `PROP${String(n).padStart(6, '0')}`, lineItems, now - n * 60_000);
    documents.push(made.document);
    lines.push(...made.lines);
    keys.push(
      lineItems.flatMap((item) => [
        { matchKind: 'product' as const, matchKey: items[item]!.code },
        { matchKind: 'description' as const, matchKey: items[item]!.name },
      ]),
    );
  }
  await insertRows(em, 'documents', documents);
  await insertRows(em, 'line_items', lines);
  return { documentIds: documents.map((document) => document.id as string), keys };
}

/** A statement's plan at this size, run with its parameters: its index, the rows it read, and its nodes. */
async function planOf(em: EntityManager, statement: RuleStatement | null) {
  if (!statement) throw new Error('no rule statement to explain');
  const { text, values } = positional(statement.sql, statement.params);
  const [planRow] = await inTransaction(
    em,
    async (tx) =>
      (await tx.client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${text}`, values)).rows,
  );
  const plan = JSON.stringify(planRow!['QUERY PLAN']);
  type Node = {
    'Node Type': string;
    'Index Name'?: string;
    'Actual Rows': number;
    'Actual Loops': number;
    Plans?: Node[];
  };
  const nodes: Node[] = [];
  const walk = (node: Node) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((planRow!['QUERY PLAN'] as { Plan: Node }[])[0]!.Plan);
  const scans = nodes.filter((node) => node['Index Name']?.startsWith('book_account_rules_'));
  return {
    plan,
    index: scans.map((node) => node['Index Name']).join(', '),
    read: scans.reduce((sum, node) => sum + node['Actual Rows'] * node['Actual Loops'], 0),
    seqScan: plan.includes('"Node Type":"Seq Scan"'),
    limited: nodes.some((node) => node['Node Type'] === 'Limit'),
    shape: nodes.map((node) => node['Node Type'] + (node['Index Name'] ? ` on ${node['Index Name']}` : '')).join(' > '),
  };
}

/** Whether the two rule reads use their indexes, with a limit, at this size; and what they read for one document. */
async function rulePlans(em: EntityManager, companyId: string, supplierId: string, keys: RuleKey[]) {
  const own = await planOf(em, rulesForStatement({ companyId, beneficiaryId: supplierId, keys }));
  const others = await planOf(
    em,
    rulesOfOtherSuppliersStatement({ companyId, beneficiaryId: supplierId, keys: keys.slice(-2), limit: 50 }),
  );
  return {
    shapes: [own.shape, others.shape],
    checks: [
      {
        name: "supplier's rules by book_account_rules_one_per_key, one per key",
        value: `${own.index || own.plan.slice(0, 160)}, ${own.read} rows read for ${keys.length} keys`,
        met:
          own.index.includes('book_account_rules_one_per_key') &&
          !own.seqScan &&
          own.limited &&
          own.read <= keys.length,
      },
      {
        name: "other suppliers' rules by (company, match_kind, match_key), limited",
        value: `${others.index || others.plan.slice(0, 160)}, ${others.read} rows read for 2 keys`,
        met:
          others.index.includes('book_account_rules_company_id_match_kind_match_key_index') &&
          !others.seqScan &&
          others.limited,
      },
    ],
  };
}

export async function accountingScenario(context: BenchContext): Promise<Row[]> {
  const orm = context.stack.orm;
  context.log(
    `  seeding ${VOUCHERS.toLocaleString('en')} registered vouchers of ${SUPPLIERS} suppliers, and a company with none`,
  );
  const started = performance.now();
  const withHistory = await companyWithCatalogs(orm, 'Contabilidad con Historia S.A.S.', '900555666');
  const withoutHistory = await companyWithCatalogs(orm, 'Contabilidad sin Historia S.A.S.', '900555667');
  const history = await seedHistory(
    companyEm(orm, withHistory.companyId),
    withHistory.companyId,
    withHistory.supplierIds,
  );
  const timedWith = await seedProposals(
    companyEm(orm, withHistory.companyId),
    withHistory.companyId,
    withHistory.supplierIds[0]!,
  );
  const timedWithout = await seedProposals(
    companyEm(orm, withoutHistory.companyId),
    withoutHistory.companyId,
    withoutHistory.supplierIds[0]!,
  );
  const em = companyEm(orm, withHistory.companyId);
  for (const table of ['documents', 'line_items', 'accounting_entries', 'workflow_steps', 'book_account_rules'])
    await em.execute(`analyze "${table}"`);
  const [counted] = await em.execute<{ rules: number }[]>(
    `select count(*)::int as "rules" from "book_account_rules" where "company_id" = ?`,
    [withHistory.companyId],
  );
  const rules = counted!.rules;
  context.log(
    `  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${rules} rules taught through ${history.lessons} book_account steps`,
  );
  const { checks, shapes } = await rulePlans(
    em,
    withHistory.companyId,
    withHistory.supplierIds[0]!,
    timedWith.keys[0]!,
  );

  /** Proposes a document's voucher, asking when the agent asks: milliseconds, the transaction itself not timed. */
  const propose = (companyId: string, documentId: string, placedByRules: boolean) =>
    companyEm(orm, companyId).transactional(async (tx) => {
      const document = await tx.findOneOrFail(Document, { id: documentId }, { populate: ['beneficiary'] });
      let unplaced = 0;
      let guesses = 0;
      const took = await timed(async () => {
        const proposal = await agentProposal(tx, document);
        if (proposal.status !== 'awaiting_classification') return;
        unplaced = proposal.unplaced.length;
        guesses = (await bookAccountQuestion(tx, document, proposal.unplaced)).recommendations.length;
      });
      // With the history, the supplier's rules place 3 lines and other suppliers' guess the fourth; with none, all 4 ask.
      if (placedByRules ? unplaced !== 1 || guesses === 0 : unplaced !== 4 || guesses !== 0)
        throw new Error(`unexpected proposal (history: ${placedByRules}): ${unplaced} lines asked, ${guesses} guesses`);
      return took;
    });
  /**
   * The same document proposed in each company back to back, the first one alternating from document to document
   * and from run to run: on a shared machine, each pair sees the same load.
   */
  const phase = async (run: number, count: number) => {
    const timings = { history: [] as number[], none: [] as number[] };
    for (let n = 0; n < count; n++) {
      const withIt = async () =>
        void timings.history.push(await propose(withHistory.companyId, timedWith.documentIds[n]!, true));
      const none = async () =>
        void timings.none.push(await propose(withoutHistory.companyId, timedWithout.documentIds[n]!, false));
      for (const side of (n + run) % 2 ? [withIt, none] : [none, withIt]) await side();
    }
    return timings;
  };

  const runs = { history: [] as number[][], none: [] as number[][] };
  await phase(0, Math.min(50, PROPOSALS_PER_RUN)); // warm-up: prepared plans, caches
  for (let run = 0; run < context.runs; run++) {
    const timings = await phase(run, PROPOSALS_PER_RUN);
    runs.history.push(timings.history);
    runs.none.push(timings.none);
  }
  const p50s = (list: number[][]) => list.map((timings) => latencyOf(timings).p50);
  const shown = (list: number[][]) =>
    p50s(list)
      .map((value) => value.toFixed(2))
      .join(' / ');
  context.log(`  proposing a voucher p50: no history ${shown(runs.none)} ms; with history ${shown(runs.history)} ms`);
  for (const shape of shapes) context.log(`  plan: ${shape}`);
  for (const check of checks) context.log(`  ${check.met ? 'met   ' : 'MISSED'} ${check.name}: ${check.value}`);
  return [
    row({
      path: `Proposing a voucher with the company's history (${VOUCHERS.toLocaleString('en')} registered vouchers, ${SUPPLIERS} suppliers)`,
      figure: 'p50 latency',
      unit: 'ms',
      baselineName: 'the same proposal with no history',
      product: p50s(runs.history),
      baseline: p50s(runs.none),
      kind: 'max',
      target: 1.5,
      latency: runs.history.map(latencyOf),
      baselineLatency: runs.none.map(latencyOf),
      checks,
      bound: [
        "The history adds to a proposal the supplier's rules for its lines' keys (one read by",
        `book_account_rules_one_per_key, at most one row per key, of ${rules} rules) and, when a line is left for a person,`,
        "the other suppliers' rules for that line's keys (one grouped read by the (company, match_kind, match_key) index,",
        'at most 50 rows out) and the names of the accounts they guess. See docs/decisions.md, "The accounting agent".',
      ],
    }),
  ];
}
