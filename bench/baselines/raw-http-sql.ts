// Baseline: the ceiling for Node over this data. Plain node:http and the pg driver answer the document detail, the
// document list and the payments list with hand-written SQL (PostgreSQL builds the nested rows) and JSON.stringify.
// It authenticates the API key like the product, and serves the same paths, so one request list drives both.
// Run as its own process: `DATABASE_URL=… PORT=… node bench/baselines/raw-http-sql.ts`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});
const money = (column: string) => `round(${column}::numeric / 100, 2)`;

const TAGS = `coalesce((select json_agg(t.name order by dt.created_at) from document_tags dt join tags t on t.id = dt.tag_id where dt.document_id = d.id), '[]')`;
const EXPANSIONS: Record<string, string> = {
  beneficiaries: `(select json_build_object('reference', b.id, 'name', b.name, 'type', b.type, 'email', b.email, 'phone_number', b.phone_number,
      'identifier_type', b.identifier_type, 'identifier_number', b.identifier_number, 'payment_terms', b.payment_terms, 'fiscal_address', b.fiscal_address,
      'contact_information', coalesce((select json_agg(json_build_object('type', c.type, 'value', c.value)) from beneficiary_contacts c where c.beneficiary_id = b.id), '[]'),
      'bank_accounts', coalesce((select json_agg(json_build_object('reference', a.id, 'bank_reference', a.bank_id, 'bank_name', k.name, 'account_number', a.account_number))
        from beneficiary_bank_accounts a join banks k on k.id = a.bank_id where a.beneficiary_id = b.id), '[]'),
      'created_at', b.created_at, 'updated_at', b.updated_at) from beneficiaries b where b.id = d.beneficiary_id) as beneficiary`,
  payables: `coalesce((select json_agg(json_build_object('reference', pa.id, 'type', pa.type, 'status', pa.status, 'amount', ${money('pa.amount_cents')}, 'amount_currency', pa.currency,
      'file_path', pa.file_path, 'balance', ${money('pa.balance_cents')}, 'issue_date', pa.issue_date, 'expiration_date', pa.expiration_date, 'concept', pa.concept, 'origin', pa.origin,
      'projects', pa.projects, 'installment_number', pa.installment_number, 'cost_center', pa.cost_center) order by pa.installment_number, pa.created_at)
      from payables pa where pa.document_id = d.id), '[]') as payables`,
  payments: `coalesce((select json_agg(json_build_object('reference', p.id, 'date', coalesce(p.paid_at, p.created_at), 'amount', ${money('p.amount_cents')}, 'amount_currency', p.currency,
      'payment_method', p.payment_method, 'payable_reference', p.payable_id, 'status', p.status) order by p.created_at)
      from payments p join payables pa on pa.id = p.payable_id where pa.document_id = d.id), '[]') as payments`,
  logs: `coalesce((select json_agg(json_build_object('event', l.event, 'created_at', l.created_at, 'actor', l.actor, 'metadata', l.metadata) order by l.created_at, l.id)
      from activity_logs l where l.document_id = d.id), '[]') as logs`,
  notes: `coalesce((select json_agg(json_build_object('reference', n.id, 'comment', n.comment, 'file_path', n.file_path, 'file_name', n.file_name, 'created_by', n.created_by,
      'created_at', n.created_at, 'updated_at', n.updated_at) order by n.created_at, n.id) from document_notes n where n.document_id = d.id), '[]') as notes`,
  invoice_reception_events: `coalesce((select json_agg(json_build_object('event_type', e.event_type, 'issue_date', e.issue_date, 'status', e.status, 'reason', e.message) order by e.event_type)
      from reception_events e where e.document_id = d.id), '[]') as invoice_reception_events`,
  payment_receipt_complements: `coalesce((select json_agg(json_build_object('fiscal_reference', r.complement_fiscal_uuid, 'payment_date', r.payment_date, 'amount', ${money('r.amount_cents')},
      'installment_number', r.installment_number) order by r.payment_date) from payment_receipt_complements r where r.document_id = d.id), '[]') as payment_receipt_complements`,
  erp_document: `(select json_build_object('registered', x.registered, 'erp_invoice_id', x.erp_invoice_id,
      'invoice_reference', x.invoice_reference, 'data', x.data) from erp_documents x where x.document_id = d.id) as erp_document`,
};
const LINE_ITEMS = `coalesce((select json_agg(json_build_object('reference', li.id, 'name', li.name, 'description', li.description, 'code', li.code, 'quantity', li.quantity,
    'unit_code', li.unit_code, 'unit_price', ${money('li.unit_price_cents')}, 'currency', li.currency, 'subtotal', ${money('li.subtotal_cents')}, 'total', ${money('li.total_cents')},
    'position', li.position, 'metadata', li.metadata, 'adjustments', li.adjustments, 'created_at', li.created_at, 'updated_at', li.updated_at) order by li.position)
    from line_items li where li.document_id = d.id), '[]') as line_items`;
const DOCUMENT_COLUMNS = `d.id, d.document_number, d.type, ${money('d.amount_cents')} as amount, d.currency, d.approval_status, d.payment_status, d.is_archived, d.created_at, d.updated_at,
  d.issue_date, d.expiration_date, d.fiscal_reference, d.fiscal_metadata, d.source_xml_path, d.purchase_order, d.created_by, d.document_support, d.expenses, ${TAGS} as tags,
  case when d.prepaid_cents is not null then json_build_object('amount', ${money('d.prepaid_cents')}, 'convention', d.prepaid_convention) end as prepaid,
  case when d.exchange_rate is not null then json_build_object('rate', d.exchange_rate, 'source_currency', d.exchange_rate_source_currency,
    'target_currency', d.exchange_rate_target_currency, 'date', d.exchange_rate_date) end as exchange_rate`;

interface Caller {
  companyId: string;
}

async function authenticate(key: string | undefined): Promise<Caller | null> {
  const match = key ? /^(apk_[a-z0-9]{12})_[A-Za-z0-9_-]{43}$/.exec(key) : null;
  if (!match) return null;
  const { rows } = await pool.query<{ company_id: string; secret_hash: string }>(
    'select k.company_id, k.secret_hash from api_keys k join companies c on c.id = k.company_id where k.prefix = $1 and k.revoked_at is null',
    [match[1]],
  );
  const row = rows[0];
  if (!row) return null;
  const presented = createHash('sha256').update(key!).digest();
  return timingSafeEqual(presented, Buffer.from(row.secret_hash, 'hex')) ? { companyId: row.company_id } : null;
}

/** A document row as the API names its fields. */
function document(row: Record<string, unknown>, publicUrl: string) {
  const { id, currency, source_xml_path: xml, fiscal_metadata: metadata, tags, ...rest } = row;
  return {
    reference: id,
    ...rest,
    amount_currency: currency,
    fiscal_metadata: metadata ? { final_notes: (metadata as { finalNotes?: unknown }).finalNotes ?? [] } : null,
    file_path: xml ? `${publicUrl}/public/api/v1/files/${xml as string}` : null,
    tags,
    is_admited: (tags as string[]).includes('admitido'),
  };
}

async function documentDetail(caller: Caller, reference: string, publicUrl: string) {
  const { rows } = await pool.query(
    `select ${DOCUMENT_COLUMNS}, ${Object.values(EXPANSIONS).join(', ')}, ${LINE_ITEMS} from documents d where d.company_id = $1 and d.id = $2`,
    [caller.companyId, reference],
  );
  return rows[0] ? document(rows[0], publicUrl) : null;
}

async function documentList(caller: Caller, query: URLSearchParams, publicUrl: string) {
  const page = Number(query.get('page') ?? 1);
  const size = Number(query.get('page_size') ?? 20);
  const fields = (query.get('fields') ?? '').split(',').filter((field) => field in EXPANSIONS);
  const [count, found] = await Promise.all([
    pool.query<{ total: string }>('select count(*) as total from documents d where d.company_id = $1', [
      caller.companyId,
    ]),
    pool.query(
      `select ${DOCUMENT_COLUMNS}${fields.map((field) => `, ${EXPANSIONS[field]}`).join('')} from documents d where d.company_id = $1 order by d.created_at desc, d.id desc limit $2 offset $3`,
      [caller.companyId, size, (page - 1) * size],
    ),
  ]);
  return envelope(
    found.rows.map((row) => document(row, publicUrl)),
    Number(count.rows[0]!.total),
    page,
    size,
  );
}

const PAYMENT_SORTS: Record<string, string> = {
  created_at: 'p.created_at',
  amount: 'p.amount_cents',
  expiration_date: 'pa.expiration_date',
  paid_at: 'p.paid_at',
  beneficiary: 'b.name',
};

async function paymentList(caller: Caller, query: URLSearchParams) {
  const page = Math.trunc(Number(query.get('page') ?? 1));
  const size = Math.trunc(Number(query.get('page_size') ?? 20));
  const params: unknown[] = [caller.companyId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const list = (name: string) => query.get(name)?.split(',').filter(Boolean);
  const where = ['p.company_id = $1', `p.is_archived = ${query.get('state') === 'archived'}`, 'p.is_payroll = false'];
  if (list('status') && query.get('state') !== 'archived')
    where.push(`p.status = any(${param(list('status'))}::payment_status[])`);
  if (list('beneficiary_reference'))
    where.push(`p.beneficiary_id = any(${param(list('beneficiary_reference'))}::uuid[])`);
  if (list('batch_reference')) where.push(`p.batch_id = any(${param(list('batch_reference'))}::uuid[])`);
  if (list('document_reference')) where.push(`pa.document_id = any(${param(list('document_reference'))}::uuid[])`);
  if (query.get('expiration_date_from'))
    where.push(`pa.expiration_date >= ${param(query.get('expiration_date_from'))}`);
  if (query.get('expiration_date_to')) where.push(`pa.expiration_date <= ${param(query.get('expiration_date_to'))}`);
  if (list('payment_method')) where.push(`p.payment_method = any(${param(list('payment_method'))})`);
  if (list('tags'))
    where.push(
      `p.id in (select pt.payment_id from payment_tags pt join tags t on t.id = pt.tag_id where t.company_id = $1 and t.normalized_name = any(${param(list('tags'))}))`,
    );
  if (query.get('search')) {
    const pattern = param(`%${query.get('search')}%`);
    // Each text match through its own trigram index.
    where.push(`(p.beneficiary_id = any(array(select id from beneficiaries where company_id = $1 and (name ilike ${pattern} or identifier_number ilike ${pattern})))
      or p.payable_id = any(array(select id from payables where company_id = $1 and concept ilike ${pattern}))
      or p.payable_id = any(array(select x.id from payables x join documents y on y.id = x.document_id where x.company_id = $1 and y.document_number ilike ${pattern})))`);
  }
  const direction = query.get('sort_order') === 'asc' ? 'asc' : 'desc';
  const sort = PAYMENT_SORTS[query.get('sort_by') ?? 'created_at'] ?? 'p.created_at';
  const from = `from payments p join payables pa on pa.id = p.payable_id left join documents d on d.id = pa.document_id join beneficiaries b on b.id = p.beneficiary_id
    where ${where.join(' and ')}`;
  // The count and the page in parallel, on two connections of the pool.
  const [count, found] = await Promise.all([
    pool.query<{ total: string }>(`select count(*) as total ${from}`, params),
    // The page's ids first, with only what the filters and the sort need; then its 50 rows, nested as JSON.
    pool.query(
      `with page as (select p.id, ${sort} as sort_key ${from} order by ${sort} ${direction} nulls last, p.id ${direction} limit ${size} offset ${(page - 1) * size})
       select p.id as reference, ${money('p.amount_cents')} as amount, ${money('coalesce(p.exchange_amount_cents, p.amount_cents)')} as exchange_amount, p.currency as amount_currency,
         p.exchange_currency, p.exchange_rate::float8, p.status, p.file_path, p.receipt_file_path, p.is_archived, p.source_of_fund, p.accounting_receipt, p.paid_at, p.payment_method,
         p.created_at, p.updated_at, b.email,
         case when d.id is null then null else json_build_object('reference', d.id, 'type', d.type, 'document_number', d.document_number, 'fiscal_reference', d.fiscal_reference,
           'origin', 'fiscal_entity', 'amount', ${money('d.amount_cents')}, 'amount_currency', d.currency, 'is_canceled', d.is_canceled) end as document,
         json_build_object('reference', b.id, 'name', b.name, 'identifier_type', b.identifier_type, 'identifier_number', b.identifier_number, 'is_deleted', b.is_deleted, 'deleted_at', b.deleted_at,
           'contact_information', coalesce((select json_agg(json_build_object('type', c.type, 'value', c.value)) from beneficiary_contacts c where c.beneficiary_id = b.id), '[]')) as beneficiary,
         json_build_object('reference', pa.id, 'type', pa.type, 'status', pa.status, 'amount', ${money('pa.amount_cents')}, 'amount_currency', pa.currency, 'file_path', pa.file_path,
           'balance', ${money('pa.balance_cents')}, 'issue_date', pa.issue_date, 'expiration_date', pa.expiration_date, 'concept', pa.concept, 'origin', pa.origin, 'projects', pa.projects) as payable,
         (select json_build_object('reference', bt.id, 'name', bt.name, 'status', bt.status) from payment_batches bt where bt.id = p.batch_id) as batch,
         coalesce((select json_agg(t.name order by pt.created_at, pt.id) from payment_tags pt join tags t on t.id = pt.tag_id where pt.payment_id = p.id), '[]') as tags
       from page join payments p on p.id = page.id join payables pa on pa.id = p.payable_id left join documents d on d.id = pa.document_id join beneficiaries b on b.id = p.beneficiary_id
       order by page.sort_key ${direction} nulls last, p.id ${direction}`,
      params,
    ),
  ]);
  return envelope(found.rows, Number(count.rows[0]!.total), page, size);
}

const envelope = (items: unknown[], total: number, page: number, size: number) => ({
  items,
  total,
  current_page: page,
  page_size: size,
  total_pages: Math.ceil(total / size),
});

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const url = new URL(request.url ?? '/', 'http://raw');
    const caller = await authenticate(request.headers['api-key'] as string | undefined);
    if (!caller) return send(response, 401, { message: 'Unauthorized' });
    const publicUrl = `http://${request.headers.host}`;
    const detail = /^\/public\/api\/v1\/documents\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (detail) {
      const found = await documentDetail(caller, detail[1]!, publicUrl);
      return found
        ? send(response, 200, found)
        : send(response, 404, { message: 'Document not found', code: 'document_not_found' });
    }
    if (url.pathname === '/public/api/v1/documents')
      return send(response, 200, await documentList(caller, url.searchParams, publicUrl));
    if (url.pathname === '/public/api/v1/payments')
      return send(response, 200, await paymentList(caller, url.searchParams));
    send(response, 404, { message: 'No such endpoint', code: 'route_not_found' });
  } catch (error) {
    send(response, 500, { message: (error as Error).message });
  }
}

const server = createServer((request, response) => void serve(request, response));
server.keepAliveTimeout = 5_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('raw-http-sql listening\n'));
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
