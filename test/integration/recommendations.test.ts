// The recommendation agent over HTTP: documents imported as operators import them, steps decided through the API, and
// what the agent then recommends (or decides) on the next document of the same supplier.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus, type WorkflowStep } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { decisionHistoryStatement } from '../../db/recommendations/decision-history.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { WorkflowStep as WorkflowStepEntity } from '../../db/workflow-steps/workflow-step.entity.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { writeInvoices } from '../harness/invoices.ts';
import { setFlow } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const SUPPLIER = 'FACTURADOR DE EJEMPLO';
const ANA = { email: 'ana@example.co', name: 'Ana Gómez' };
const FULL_FLOW = {
  steps: [
    { action: 'document.approval', kind: 'approval', assignees: [ANA.email] },
    {
      action: 'document.classification',
      kind: 'classification',
      field_name: 'cost_center',
      options: [
        { value: 'cc-bog', label: 'Bogotá' },
        { value: 'cc-med', label: 'Medellín' },
      ],
      assignees: [ANA.email],
    },
    { action: 'document.tagging', kind: 'tagging', tags: null, assignees: [ANA.email] },
  ],
};
const APPROVAL_FLOW = { steps: [FULL_FLOW.steps[0]] };

interface Tenant {
  company: Company;
  apiKey: string;
}

let api: TestApi;
let invoicesDir: string;
let imports = 0;
/** Decides every step of the full flow through the API; B only approves. */
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  api = await startTestApi();
  invoicesDir = tempDir('ap-recommendations-');
  a = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members: [ANA] });
  b = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members: [ANA] });
  await setFlow(api.orm, a.company, FULL_FLOW);
  await setFlow(api.orm, b.company, APPROVAL_FLOW);
  await ensureTags(companyEm(api.orm, a.company.id), a.company, ['Proyecto Norte', 'Caja menor']);
});
afterAll(async () => {
  await api.close();
  rmSync(invoicesDir, { recursive: true, force: true });
});

/** Imports `count` invoices of the same supplier (and amount) with the operator CLI; answers their references. */
async function importInvoices(tenant: Tenant, count: number): Promise<string[]> {
  const files = writeInvoices(join(invoicesDir, String(++imports)), count, `${tenant.company.id}/${imports}`);
  const result = await ops('documents', 'import', '--company', tenant.company.id, ...files.map((file) => file.path));
  expect(result.code, JSON.stringify(result.stderr)).toBe(0);
  return result.stdout.documents.map((document: { reference: string }) => document.reference);
}

async function setAgent(tenant: Tenant, kind: string, ...flags: string[]) {
  const result = await ops('agents', 'set', '--company', tenant.company.id, '--kind', kind, ...flags);
  expect(result.code, JSON.stringify(result.stderr)).toBe(0);
  return result.stdout;
}

/** Waits until the document's pending step is the one with this action, and returns it. */
async function stepWith(tenant: Tenant, documentId: string, action: string): Promise<WorkflowStep> {
  let step: WorkflowStep | undefined;
  await expect
    .poll(async () => {
      const response = await api.sdk(tenant.apiKey).getCurrentWorkflowStep({ query: { entity_reference: documentId } });
      step = response.status === 200 ? response.body.step : undefined;
      return step?.action;
    })
    .toBe(action);
  return step!;
}

async function decide(tenant: Tenant, step: WorkflowStep, decision: string | string[]) {
  const answer = await api.sdk(tenant.apiKey).completeWorkflowStep({
    params: { reference: step.reference },
    body: { decision, acting_user_email: ANA.email },
  });
  expect(expectStatus(answer, 200).step.status).toBe('completed');
}

/** Decides the full flow of A's document as its people would. */
async function decideAll(documentId: string, decisions: { costCenter: string; tags: string[] }) {
  await decide(a, await stepWith(a, documentId, 'document.approval'), 'approve');
  await decide(a, await stepWith(a, documentId, 'document.classification'), decisions.costCenter);
  await decide(a, await stepWith(a, documentId, 'document.tagging'), decisions.tags);
}

const documentOf = async (tenant: Tenant, documentId: string) =>
  expectStatus(await api.sdk(tenant.apiKey).getDocument({ params: { reference: documentId } }), 200);

describe('configuring the agents (operator CLI)', () => {
  it('sets an agent per company and kind, off by default, and refuses a bad threshold without writing', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const listed = await ops('agents', 'list', '--company', company.id);
    expect(listed.stdout.agents).toEqual(
      ['approval', 'classification', 'tagging'].map((kind) => ({
        company: company.id,
        kind,
        enabled: false,
        auto_decide_above: null,
      })),
    );
    const set = await ops(
      'agents',
      'set',
      '--company',
      company.id,
      '--kind',
      'approval',
      '--auto-decide-above',
      '0.95',
    );
    expect(set).toMatchObject({
      code: 0,
      stdout: { company: company.id, kind: 'approval', enabled: true, auto_decide_above: 0.95 },
    });
    // A negative number is given with `=`, or the argument parser takes it for a flag.
    for (const threshold of ['1.5', '=-0.2', 'high']) {
      const flag = threshold.startsWith('=') ? [`--auto-decide-above${threshold}`] : ['--auto-decide-above', threshold];
      const refused = await ops('agents', 'set', '--company', company.id, '--kind', 'approval', ...flag);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toEqual({
        error: { code: 'invalid_threshold', message: expect.stringContaining('from 0 to 1') },
      });
    }
    const unknownKind = await ops('agents', 'set', '--company', company.id, '--kind', 'payment');
    expect(unknownKind).toMatchObject({ code: 2, stderr: { error: { code: 'usage' } } });
    const after = await ops('agents', 'list', '--company', company.id);
    expect(after.stdout.agents).toEqual([
      { company: company.id, kind: 'approval', enabled: true, auto_decide_above: 0.95 },
      { company: company.id, kind: 'classification', enabled: false, auto_decide_above: null },
      { company: company.id, kind: 'tagging', enabled: false, auto_decide_above: null },
    ]);
    const off = await ops('agents', 'set', '--company', company.id, '--kind', 'approval', '--off');
    expect(off.stdout).toEqual({ company: company.id, kind: 'approval', enabled: false, auto_decide_above: null });
    const everyCompany = await ops('agents', 'list');
    expect(everyCompany.stdout.agents).toContainEqual(off.stdout);
  });
});

// The tests below build on one another: each company's decisions are the evidence of the next ones.
describe('recommendations on a supplier’s next document', () => {
  it('recommends nothing while the agent is off, nor on thin evidence once it is on', async () => {
    const first = await importInvoices(a, 3);
    expect((await stepWith(a, first[0]!, 'document.approval')).recommendations).toEqual([]);
    for (const documentId of first) await decideAll(documentId, { costCenter: 'cc-bog', tags: ['Proyecto Norte'] });

    // Three decisions of each kind: fewer than the five a recommendation needs.
    for (const kind of ['approval', 'classification', 'tagging']) await setAgent(a, kind);
    const [thin] = await importInvoices(a, 1);
    expect((await stepWith(a, thin!, 'document.approval')).recommendations).toEqual([]);
    await decideAll(thin!, { costCenter: 'cc-bog', tags: ['Proyecto Norte', 'Caja menor'] });
    const more = await importInvoices(a, 2);
    await decideAll(more[0]!, { costCenter: 'cc-bog', tags: ['Proyecto Norte', 'Caja menor'] });
    await decideAll(more[1]!, { costCenter: 'cc-med', tags: ['Proyecto Norte'] });
  });

  it("recommends what the company's people decided for the supplier, with its confidence and rationale", async () => {
    const [next] = await importInvoices(a, 1);
    const approval = await stepWith(a, next!, 'document.approval');
    expect(approval.recommendations).toEqual([
      {
        value: 'approve',
        confidence_level: 'medium',
        rationale: `approve: 6 approved and 0 rejected for ${SUPPLIER} at amounts within 10% of this one`,
      },
    ]);
    await decide(a, approval, 'approve');
    const classification = await stepWith(a, next!, 'document.classification');
    expect(classification.recommendations).toEqual([
      {
        value: 'cc-bog',
        confidence_level: 'low',
        rationale: `cost center Bogotá: 5 of the last 6 documents of ${SUPPLIER}`,
      },
    ]);
    await decide(a, classification, 'cc-bog');
    const tagging = await stepWith(a, next!, 'document.tagging');
    // "Caja menor" went on 2 of 6: no majority.
    expect(tagging.recommendations).toEqual([
      {
        value: 'Proyecto Norte',
        confidence_level: 'medium',
        rationale: `tag Proyecto Norte: chosen for 6 of the last 6 documents of ${SUPPLIER}`,
      },
    ]);
    await decide(a, tagging, ['Proyecto Norte']);
  });

  it('reads the history through its index, newest first, without sorting', async () => {
    const em = companyEm(api.orm, a.company.id);
    const step = await em.findOneOrFail(WorkflowStepEntity, { kind: 'classification', status: 'completed' });
    const plans = await em.transactional(async (tx) => {
      // The test's tables are small: with other plans ruled out, only an index that fits the statement can serve it.
      await tx.execute('set local enable_seqscan = off');
      await tx.execute('set local enable_bitmapscan = off');
      return Promise.all(
        (['approval', 'classification', 'tagging'] as const).map(async (kind) => {
          const { sql, params } = decisionHistoryStatement({
            companyId: a.company.id,
            beneficiaryId: step.beneficiary!.id,
            kind,
            fieldName: kind === 'classification' ? 'cost_center' : null,
            documentId: step.document.id,
            since: new Date(Date.now() - 365 * 86_400_000),
            limit: 100,
          });
          const [row] = await tx.execute<{ 'QUERY PLAN': unknown }[]>(`explain (format json) ${sql}`, params);
          return JSON.stringify(row!['QUERY PLAN']);
        }),
      );
    });
    for (const plan of plans) {
      expect(plan).toContain('"Index Name":"workflow_steps_decision_history_index"');
      expect(plan).toContain('"Scan Direction":"Backward"');
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    }
  });

  it("never lets another company's decisions count: the same supplier elsewhere is another history", async () => {
    await setAgent(b, 'approval');
    // A has seven decisions on this supplier; B none.
    const [fresh] = await importInvoices(b, 1);
    expect((await stepWith(b, fresh!, 'document.approval')).recommendations).toEqual([]);
    await decide(b, await stepWith(b, fresh!, 'document.approval'), 'reject');
    for (const documentId of await importInvoices(b, 4))
      await decide(b, await stepWith(b, documentId, 'document.approval'), 'reject');

    const [inB] = await importInvoices(b, 1);
    expect((await stepWith(b, inB!, 'document.approval')).recommendations).toEqual([
      {
        value: 'reject',
        confidence_level: 'medium',
        rationale: `reject: 0 approved and 5 rejected for ${SUPPLIER} at amounts within 10% of this one`,
      },
    ]);
    const [inA] = await importInvoices(a, 1);
    expect((await stepWith(a, inA!, 'document.approval')).recommendations).toEqual([
      expect.objectContaining({
        value: 'approve',
        rationale: `approve: 7 approved and 0 rejected for ${SUPPLIER} at amounts within 10% of this one`,
      }),
    ]);
  });

  it('decides by itself above the threshold: the approval approves the document as a person would', async () => {
    // Seven approvals in seven score 0.65: above 0.6.
    await setAgent(a, 'approval', '--auto-decide-above', '0.6');
    const [auto] = await importInvoices(a, 1);
    // The approval opened completed: the flow went straight on.
    const classification = await stepWith(a, auto!, 'document.classification');
    expect(classification.recommendations).toHaveLength(1);
    const document = await documentOf(a, auto!);
    expect(document.approval_status).toBe('approved');
    expect(document.payables).toEqual([expect.objectContaining({ type: 'supplier', status: 'pending' })]);
    const agent = { type: 'agent', name: 'Recommendation agent' };
    expect(document.logs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          event: 'document.updated',
          actor: agent,
          metadata: expect.objectContaining({
            change: 'step_completed',
            action: 'document.approval',
            values: ['approve'],
            rationale: `approve: 7 approved and 0 rejected for ${SUPPLIER} at amounts within 10% of this one`,
          }),
        }),
        expect.objectContaining({ event: 'document.approved', actor: agent }),
      ]),
    );
    const [step] = await companyEm(api.orm, a.company.id).find(WorkflowStepEntity, {
      document: auto!,
      kind: 'approval',
    });
    expect(step).toMatchObject({
      status: 'completed',
      actionable: false,
      decidedByAgent: true,
      result: { values: ['approve'], labels: ['Approve'] },
      actedBy: { email: '', name: 'Recommendation agent' },
    });
    await expect
      .poll(async () => (await api.client.workflow.getHandle(`document/${auto}`).describe()).searchAttributes)
      .toMatchObject({ ApprovalStatus: ['approved'] });

    // Its own decisions are not evidence: the next document still counts the people's seven.
    const [next] = await importInvoices(a, 1);
    await stepWith(a, next!, 'document.classification');
    const logs = (await documentOf(a, next!)).logs;
    expect(logs.find((log) => log.metadata.change === 'step_completed')?.metadata.rationale).toBe(
      `approve: 7 approved and 0 rejected for ${SUPPLIER} at amounts within 10% of this one`,
    );
  });

  it('rejects by itself when that is what the evidence says, which ends the flow', async () => {
    // Five rejections in five score 0.57.
    await setAgent(b, 'approval', '--auto-decide-above', '0.5');
    const [auto] = await importInvoices(b, 1);
    const handle = api.client.workflow.getHandle(`document/${auto}`);
    await handle.result();
    const document = await documentOf(b, auto!);
    expect(document.approval_status).toBe('rejected');
    expect(document.payables).toEqual([]);
    expect((await api.sdk(b.apiKey).getCurrentWorkflowStep({ query: { entity_reference: auto! } })).status).toBe(204);
    expect((await handle.describe()).searchAttributes).toMatchObject({ ApprovalStatus: ['rejected'] });
  });
});
