import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Integrator } from './integrator.ts';
import { issueSigningCertificate } from './signing-certificates.ts';
import type { Operator } from './operator.ts';
import type { Stack } from './stack.ts';

/** The company member who decides every step. */
export const MEMBER = 'ana@example.co';

/** `ops` arguments that create the suites' company (Colombian, NIT 900111222). */
export const CREATE_COMPANY = [
  'companies',
  'create',
  '--name',
  'Ferretería La Falla S.A.S.',
  '--country',
  'COL',
  '--tax-id',
  '900111222',
];

/** `ops` arguments that let the company sync its DIAN mailbox: forwarding on, and its credentials. */
export const dianForwarding = (company: string) => [
  'fiscal',
  'credentials',
  '--company',
  company,
  '--dian-forwarding',
  'on',
  '--dian-nit',
  '900111222',
  '--dian-legal-representative',
  'Ana Gómez',
];
/** Approval, classification and tagging decided through the API; accounting closed by the ERP's registration. */
export const FLOW = {
  steps: [
    { action: 'document.approval', kind: 'approval', assignees: [MEMBER], require_all: false },
    {
      action: 'document.classification',
      kind: 'classification',
      field_name: 'cost_center',
      options: [{ value: 'cc-ops', label: 'Operaciones' }],
      assignees: [MEMBER],
    },
    { action: 'document.tagging', kind: 'tagging', tags: ['revisado'], assignees: [MEMBER] },
    { action: 'document.accounting', actionable: false },
  ],
};

/**
 * The ERP's catalogs, as far as the accounting agent needs them for the fixture invoice: a PUC chart (Caja general
 * first by code), and the taxes the invoice charges with an amount (IVA 19%, the per-unit bag tax). No product or
 * vendor places its lines: each voucher asks a person through a `book_account` step, which the load answers.
 */
const CATALOGS = {
  'book-accounts': [
    { external_id: 'BA-1105', code: '110505', name: 'Caja general', nature: 'debit' },
    { external_id: 'BA-2205', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
    { external_id: 'BA-2408', code: '240802', name: 'IVA descontable', nature: 'debit' },
    { external_id: 'BA-5195', code: '519595', name: 'Diversos', nature: 'debit' },
  ],
  taxes: [
    { external_id: 'TX-IVA19', name: 'IVA 19%', type: 'iva', rate: '0.19', book_account_external_id: 'BA-2408' },
    { external_id: 'TX-BOLSAS', name: 'INC bolsas plásticas', type: 'inc', book_account_external_id: 'BA-5195' },
  ],
};

async function syncCatalogs(apiUrl: string, apiKey: string): Promise<void> {
  for (const [catalog, items] of Object.entries(CATALOGS)) {
    const answer = await fetch(`${apiUrl}/api/v1/erp/${catalog}`, {
      method: 'POST',
      headers: {
        authorization: `ApiKey ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ items }),
    });
    const body = await answer.json();
    if (answer.status !== 200 || body.synced !== items.length)
      throw new Error(`${catalog} sync: ${answer.status} ${JSON.stringify(body)}`);
  }
}

/** A Colombian company with the workflow API, one member, the flow above, and both webhooks to the ERP receiver. */
export async function setUpCompany(stack: Stack, ops: Operator): Promise<{ company: string; apiKey: string }> {
  const must = async (...args: string[]) => {
    const answer = await ops(...args);
    if (answer.code !== 0) throw new Error(`ops ${args.join(' ')}: ${JSON.stringify(answer.error)}`);
    return answer.stdout;
  };
  const { reference: company, api_key: apiKey } = await must(...CREATE_COMPANY);
  await must('members', 'add', '--company', company, '--email', MEMBER, '--name', 'Ana Gómez');
  await syncCatalogs(stack.apiUrls[0]!, apiKey);
  // The company signs its DIAN events with a certificate from the authority the simulator trusts.
  const certificate = join(stack.dir, 'company-certificate.p12');
  const passwordFile = join(stack.dir, 'company-certificate.password');
  writeFileSync(
    certificate,
    issueSigningCertificate(stack.signingAuthority, {
      nit: '900111222',
      name: 'Ferretería La Falla S.A.S.',
      password: 'clave-de-prueba',
    }),
  );
  writeFileSync(passwordFile, 'clave-de-prueba\n', { mode: 0o600 });
  await must('fiscal', 'certificate', '--company', company, '--file', certificate, '--password-file', passwordFile);
  // Who receives for the company in 030 and 032, without whom those events are not sent.
  await must(
    'fiscal',
    'event-person',
    '--company',
    company,
    '--id-type',
    '13',
    '--id-number',
    '52123456',
    '--first-name',
    'Ana',
    '--family-name',
    'Gómez',
    '--job-title',
    'Jefe de compras',
    '--department',
    'Compras',
  );
  await must('features', 'enable', '--company', company, '--feature', 'workflow_api');
  const flowFile = join(stack.dir, 'flow.json');
  writeFileSync(flowFile, JSON.stringify(FLOW));
  await must('flows', 'set', '--company', company, '--file', flowFile);
  for (const event of ['document.created', 'document.accounted']) {
    await must(
      'webhooks',
      'add',
      '--company',
      company,
      '--event',
      event,
      '--url',
      stack.receiver.url,
      '--secret',
      stack.receiver.secret,
      '--retries',
      '10',
      '--timeout',
      '10',
    );
  }
  return { company, apiKey };
}

/** The operator registers the supplier's bank account at the country's first bank; its validation starts. */
export async function addSupplierAccount(api: Integrator, ops: Operator, beneficiary: string): Promise<void> {
  const banks = await api('GET', '/public/api/v1/banks');
  const answer = await ops(
    'bank-accounts',
    'add',
    '--beneficiary',
    beneficiary,
    '--bank',
    banks.body[0].reference,
    '--account-number',
    '002010077777777771',
    '--account-type',
    'checking',
  );
  if (answer.code !== 0) throw new Error(`bank-accounts add: ${JSON.stringify(answer.error)}`);
}
