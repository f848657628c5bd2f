import { expectStatus, type Client, type CompleteWorkflowStep, type WorkflowStep } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { ErpCostCenter } from '../../db/erp/cost-center.entity.ts';
import { ErpPaymentTerm } from '../../db/erp/payment-term.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { approveDocument, completeStep, openStep } from '../../services/documents/lifecycle.ts';
import { seedDocument, setFlow, startLifecycle } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { eventSummaries, flowInWords } from '../helpers/temporal-ui.ts';
import { ops } from '../helpers/ops.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
let sdk: Client;
const members = [
  { email: 'ana@example.co', name: 'Ana Gómez' },
  { email: 'luis@example.co', name: 'Luis Pérez' },
  { email: 'maria@example.co', name: 'María Ruiz' },
  { email: 'outsider@example.co', name: 'Not Assigned' },
];

const FULL_FLOW = {
  steps: [
    {
      action: 'document.approval',
      kind: 'approval',
      assignees: ['ana@example.co', 'luis@example.co'],
      require_all: false,
    },
    {
      action: 'document.classification',
      kind: 'classification',
      field_name: 'cost_center',
      options: [
        { value: 'cc-ops', label: 'Operations' },
        { value: 'cc-adm', label: 'Administration' },
      ],
      assignees: ['ana@example.co'],
    },
    { action: 'document.tagging', kind: 'tagging', tags: null, assignees: ['ana@example.co'] },
    { action: 'document.accounting', actionable: false },
  ],
};

beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members }));
  sdk = api.sdk(apiKey);
  await setFlow(api.orm, company, FULL_FLOW);
});
afterAll(() => api.close());

const temporal = () => ({ client: api.client, taskQueue: inject('taskQueue') });
const current = (documentId: string, key = apiKey) =>
  api.sdk(key).getCurrentWorkflowStep({ query: { entity_reference: documentId } });
const complete = (stepId: string, body: CompleteWorkflowStep['request']['body'], key = apiKey) =>
  api.sdk(key).completeWorkflowStep({ params: { reference: stepId }, body });
const documentOf = async (documentId: string, key = apiKey) =>
  expectStatus(await api.sdk(key).getDocument({ params: { reference: documentId } }), 200);

/** Waits until the document's pending step is the one with this action, and returns it. */
async function stepWith(documentId: string, action: string, key = apiKey): Promise<WorkflowStep> {
  let step: WorkflowStep | undefined;
  await expect
    .poll(
      async () => {
        const response = await current(documentId, key);
        step = response.status === 200 ? response.body.step : undefined;
        return step?.action;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(action);
  return step!;
}

async function flowingDocument(seed: Parameters<typeof seedDocument>[2] = {}, owner = company): Promise<Document> {
  const document = await seedDocument(api.orm, owner, seed);
  await startLifecycle(temporal(), document);
  return document;
}

describe('a full flow: approval, classification, tagging, accounting', () => {
  it('walks every kind of step through the API, writing each to the read state', async () => {
    await ensureTags(companyEm(api.orm, company.id), company, ['Proyecto Norte', 'Caja menor']);
    const document = await flowingDocument({ amountCents: 1_190_000_00n });
    const approval = await stepWith(document.id, 'document.approval');
    expect(approval).toMatchObject({
      status: 'pending',
      actionable: true,
      entity: {
        type: 'document',
        reference: document.id,
        document_number: document.documentNumber,
        amount_cents: '119000000',
        amount_currency: 'COP',
        third_party: [expect.objectContaining({ type: 'beneficiary' })],
      },
      decision: {
        kind: 'approval',
        multiple: false,
        field_name: null,
        options: [
          { value: 'approve', label: 'Approve' },
          { value: 'reject', label: 'Reject' },
        ],
        options_complete: true,
      },
      assignees: [
        { email: 'ana@example.co', name: 'Ana Gómez', acted: false },
        { email: 'luis@example.co', name: 'Luis Pérez', acted: false },
      ],
      recommendations: [],
    });
    expect((await documentOf(document.id)).approval_status).toBe('in_review');
    // The Temporal UI lists the flow as the document, and says what it waits for.
    const supplier = (await documentOf(document.id)).beneficiary?.name;
    await expect
      .poll(() => flowInWords(api.client, `document/${document.id}`))
      .toEqual({
        summary: `Invoice ${document.documentNumber} · ${supplier} · 1,190,000.00 COP`,
        details: expect.stringMatching(
          /^Waiting for Ana Gómez or Luis Pérez to approve \(step 1 of 4\) since \d{4}-\d\d-\d\d$/,
        ),
      });
    expect(await eventSummaries(api.client, `document/${document.id}`)).toContain('Open step 1: document.approval');
    // `ops flows stuck` finds it by how long it has waited, and says why, as the UI does.
    const stuck = async (olderThan: string) => {
      const listed = await ops('flows', 'stuck', '--older-than', olderThan, '--company', company.id);
      expect(listed.code, JSON.stringify(listed.stderr)).toBe(0);
      return (listed.stdout.flows as { workflowId: string }[]).filter(
        (flow) => flow.workflowId === `document/${document.id}`,
      );
    };
    await expect
      .poll(() => stuck('0m'))
      .toEqual([
        {
          workflowId: `document/${document.id}`,
          workflowType: 'documentLifecycle',
          summary: `Invoice ${document.documentNumber} · ${supplier} · 1,190,000.00 COP`,
          waitingFor: expect.stringMatching(/^Waiting for Ana Gómez or Luis Pérez to approve/),
          waitingSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ]);
    expect(await stuck('1d')).toEqual([]);

    const approved = await complete(approval.reference, {
      decision: 'approve',
      acting_user_email: 'luis@example.co',
      comment: 'OK',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      step: {
        reference: approval.reference,
        action: 'document.approval',
        status: 'completed',
        completed_at: expect.any(String),
        decision: { kind: 'approval', values: ['approve'], labels: ['Approve'] },
        acted_by: { email: 'luis@example.co', name: 'Luis Pérez' },
      },
    });
    const afterApproval = await documentOf(document.id);
    expect(afterApproval.approval_status).toBe('approved');
    expect(afterApproval.payables).toEqual([
      expect.objectContaining({
        amount: 1_190_000,
        balance: 1_190_000,
        type: 'supplier',
        status: 'pending',
        installment_number: 1,
      }),
    ]);
    expect(afterApproval.logs.map((log) => log.event)).toEqual(expect.arrayContaining(['document.approved']));
    expect(afterApproval.logs.find((log) => log.metadata.change === 'step_completed')?.actor).toEqual({
      type: 'user',
      name: 'Luis Pérez',
      email: 'luis@example.co',
      source: 'integration',
    });

    const classification = await stepWith(document.id, 'document.classification');
    expect(classification.decision).toEqual({
      kind: 'classification',
      multiple: false,
      field_name: 'cost_center',
      options: [
        { value: 'cc-ops', label: 'Operations' },
        { value: 'cc-adm', label: 'Administration' },
      ],
      options_complete: true,
    });
    const wrong = await complete(classification.reference, {
      decision: 'cc-nope',
      acting_user_email: 'ana@example.co',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ status: 422, code: 'invalid_decision', message: expect.any(String) });
    const classified = expectStatus(
      await complete(classification.reference, { decision: 'cc-adm', acting_user_email: 'ana@example.co' }),
      200,
    );
    expect(classified.step.decision).toEqual({
      kind: 'classification',
      values: ['cc-adm'],
      labels: ['Administration'],
    });

    const tagging = await stepWith(document.id, 'document.tagging');
    expect(tagging.decision).toMatchObject({ kind: 'tagging', multiple: true, options_complete: false });
    expect(tagging.decision?.options.map((option) => option.value)).toEqual(
      expect.arrayContaining(['Proyecto Norte', 'Caja menor']),
    );
    const unknownTag = await complete(tagging.reference, {
      decision: ['proyecto norte', 'Inventado'],
      acting_user_email: 'ana@example.co',
    });
    expect(unknownTag).toMatchObject({ status: 422, body: { code: 'invalid_decision' } });
    const tagged = expectStatus(
      await complete(tagging.reference, { decision: ['proyecto norte'], acting_user_email: 'ana@example.co' }),
      200,
    );
    expect(tagged.step.decision).toEqual({ kind: 'tagging', values: ['Proyecto Norte'], labels: ['Proyecto Norte'] });
    expect((await documentOf(document.id)).tags).toContain('Proyecto Norte');

    const accounting = await stepWith(document.id, 'document.accounting');
    expect(accounting).toMatchObject({ actionable: false, decision: null, assignees: [] });
    await expect
      .poll(async () => (await flowInWords(api.client, `document/${document.id}`)).details)
      .toMatch(/^Waiting for the ERP to register the voucher \(step 4 of 4\) since /);
    const unsupported = await complete(accounting.reference, {
      decision: 'approve',
      acting_user_email: 'ana@example.co',
    });
    expect(unsupported.status).toBe(422);
    expect(unsupported.body).toEqual({ status: 422, code: 'unsupported_step', message: expect.any(String) });

    const description = await api.client.workflow.getHandle(`document/${document.id}`).describe();
    expect(description.searchAttributes.ApprovalStatus).toEqual(['approved']);
  });

  it('answers 204 without a body when nothing is pending', async () => {
    const document = await seedDocument(api.orm, company);
    const response = await current(document.id);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
  });
});

describe('classification on an ERP catalog', () => {
  it('offers the active records, a sample of 500 when there are more, and then takes any active record named by its catalog', async () => {
    const { company: owner, apiKey: key } = await makeCompany(api.orm, {
      country: 'COL',
      features: ['workflow_api'],
      members,
    });
    await setFlow(api.orm, owner, {
      steps: [
        {
          action: 'document.classification',
          kind: 'classification',
          field_name: 'cost_center',
          assignees: ['ana@example.co'],
        },
      ],
    });
    const em = companyEm(api.orm, owner.id);
    const centers = Array.from({ length: 501 }, (_, n) => ({
      externalId: `cc-${String(n).padStart(3, '0')}`,
      name: `Centro ${String(n).padStart(3, '0')}`,
      isActive: true,
    }));
    for (const center of [...centers, { externalId: 'cc-old', name: 'Centro cerrado', isActive: false }])
      em.create(ErpCostCenter, { company: owner, ...center, raw: {} });
    await em.flush();

    const document = await flowingDocument({}, owner);
    const step = await stepWith(document.id, 'document.classification', key);
    expect(step.decision).toMatchObject({ kind: 'classification', field_name: 'cost_center', options_complete: false });
    expect(step.decision!.options).toHaveLength(500);
    expect(step.decision!.options[0]).toEqual({ value: 'cc-000', label: 'Centro 000' });
    expect(step.decision!.options.map((option) => option.value)).not.toContain('cc-500');

    for (const decision of ['cc-old', 'cc-nope']) {
      expect(
        (await complete(step.reference, { decision, acting_user_email: 'ana@example.co' }, key)).body,
      ).toMatchObject({ status: 422, code: 'invalid_decision' });
    }
    const decided = expectStatus(
      await complete(step.reference, { decision: 'cc-500', acting_user_email: 'ana@example.co' }, key),
      200,
    );
    expect(decided.step.decision).toEqual({ kind: 'classification', values: ['cc-500'], labels: ['Centro 500'] });
  });
});

describe('assignees', () => {
  it('with require_all, answers the step still pending (caller acted) until the last assignee decides', async () => {
    const other = await makeCompany(api.orm, { features: ['workflow_api'], members });
    await setFlow(api.orm, other.company, {
      steps: [
        {
          action: 'document.approval',
          kind: 'approval',
          assignees: ['ana@example.co', 'luis@example.co'],
          require_all: true,
        },
      ],
    });
    const document = await flowingDocument({}, other.company);
    const pendingStep = await stepWith(document.id, 'document.approval', other.apiKey);
    const first = expectStatus(
      await complete(pendingStep.reference, { decision: 'approve', acting_user_email: 'ana@example.co' }, other.apiKey),
      200,
    );
    expect(first.step).toMatchObject({
      status: 'pending',
      assignees: [
        { email: 'ana@example.co', acted: true },
        { email: 'luis@example.co', acted: false },
      ],
    });
    const again = await complete(
      pendingStep.reference,
      { decision: 'approve', acting_user_email: 'ana@example.co' },
      other.apiKey,
    );
    expect(again.status).toBe(409);
    const last = await complete(
      pendingStep.reference,
      { decision: 'reject', acting_user_email: 'luis@example.co' },
      other.apiKey,
    );
    expect(last).toMatchObject({
      status: 200,
      body: { step: { status: 'completed', decision: { values: ['reject'] } } },
    });
    expect(await documentOf(document.id, other.apiKey)).toMatchObject({ approval_status: 'rejected', payables: [] });
    expect((await current(document.id, other.apiKey)).status).toBe(204);
  });

  it('with any-one assignee, two racing decisions give one completion and one 409', async () => {
    const document = await flowingDocument();
    const step = await stepWith(document.id, 'document.approval');
    const [ana, luis] = await Promise.all([
      complete(step.reference, { decision: 'approve', acting_user_email: 'ana@example.co' }),
      complete(step.reference, { decision: 'reject', acting_user_email: 'luis@example.co' }),
    ]);
    expect([ana.status, luis.status].sort((a, b) => a - b)).toEqual([200, 409]);
    const loser = ana.status === 409 ? ana : luis;
    expect(loser.body).toEqual({ status: 409, code: 'step_not_pending', message: expect.any(String) });
    const document_ = await documentOf(document.id);
    expect(document_.logs.filter((log) => log.metadata.change === 'step_completed')).toHaveLength(1);
  });

  it('records a decision once when a retried write races the attempt that timed out', async () => {
    // Both attempts of one activity run at once: the first outlived its timeout (a database that came back, say).
    const document = await seedDocument(api.orm, company);
    const ids = { companyId: company.id, documentId: document.id };
    const { step } = await openStep(api.orm, {
      ...ids,
      position: 0,
      definition: { action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'] },
    });
    const decision = {
      ...ids,
      stepId: step.id,
      actor: members[0]!,
      values: ['approve'],
      labels: ['Approve'],
      comment: null,
      close: true,
    };
    const approval = { ...ids, erpReference: 'ERP-RACE', by: 'ERP', resolvesStepId: null };
    await Promise.all([completeStep(api.orm, decision), completeStep(api.orm, decision)]);
    await Promise.all([approveDocument(api.orm, approval), approveDocument(api.orm, approval)]);

    const logs = (await documentOf(document.id)).logs;
    expect(logs.filter((log) => log.metadata.change === 'step_completed')).toHaveLength(1);
    // Once for the step's approval, once for the ERP reference it then received: never per attempt.
    expect(logs.filter((log) => log.event === 'document.approved')).toHaveLength(2);
  });
  it('records a decision that leaves its step pending once, however often its write runs', async () => {
    const document = await seedDocument(api.orm, company);
    const ids = { companyId: company.id, documentId: document.id };
    const { step } = await openStep(api.orm, {
      ...ids,
      position: 0,
      definition: {
        action: 'document.approval',
        kind: 'approval',
        assignees: ['ana@example.co', 'luis@example.co'],
        requireAll: true,
      },
    });
    const decision = {
      ...ids,
      stepId: step.id,
      actor: members[0]!,
      values: ['approve'],
      labels: ['Approve'],
      comment: null,
      close: false,
    };
    // Two attempts at once (one outlived its timeout), then a retry of one whose answer was lost.
    await Promise.all([completeStep(api.orm, decision), completeStep(api.orm, decision)]);
    const retried = await completeStep(api.orm, decision);

    expect(retried.step).toMatchObject({ status: 'pending' });
    expect(retried.step.assignees).toEqual([
      { email: 'ana@example.co', name: 'Ana Gómez', acted: true, values: ['approve'] },
      { email: 'luis@example.co', name: 'Luis Pérez', acted: false },
    ]);
    const logs = (await documentOf(document.id)).logs;
    expect(logs.filter((log) => log.metadata.change === 'step_decision')).toHaveLength(1);
  });
});

describe('errors', () => {
  it('answers each refusal with its code, in the step error shape', async () => {
    const document = await flowingDocument();
    const step = await stepWith(document.id, 'document.approval');
    const notMember = await complete(step.reference, { decision: 'approve', acting_user_email: 'stranger@example.co' });
    expect(notMember.status).toBe(400);
    expect(notMember.body).toEqual({
      status: 400,
      code: 'acting_user_not_found_in_company',
      message: expect.any(String),
    });
    const notAssigned = await complete(step.reference, {
      decision: 'approve',
      acting_user_email: 'outsider@example.co',
    });
    expect(notAssigned.status).toBe(403);
    expect(notAssigned.body).toEqual({ status: 403, code: 'not_assigned', message: expect.any(String) });
    const notOffered = await complete(step.reference, { decision: 'maybe', acting_user_email: 'ana@example.co' });
    expect(notOffered).toMatchObject({ status: 422, body: { code: 'invalid_decision' } });
    const twoValues = await complete(step.reference, {
      decision: ['approve', 'reject'],
      acting_user_email: 'ana@example.co',
    });
    expect(twoValues).toMatchObject({ status: 422, body: { code: 'invalid_decision' } });
    const longComment = await complete(step.reference, {
      decision: 'approve',
      acting_user_email: 'ana@example.co',
      comment: 'x'.repeat(2001),
    });
    expect(longComment).toMatchObject({ status: 400, body: { error: { details: { comment: expect.any(Array) } } } });
    expect((await complete(step.reference, { decision: 'approve', acting_user_email: 'ana@example.co' })).status).toBe(
      200,
    );
    const done = await complete(step.reference, { decision: 'approve', acting_user_email: 'luis@example.co' });
    expect(done).toMatchObject({ status: 409, body: { code: 'step_not_pending' } });
    const unknown = await complete('01a1fd1b-78d3-7a06-918e-b55b593118bf', {
      decision: 'approve',
      acting_user_email: 'ana@example.co',
    });
    expect(unknown.status).toBe(404);
  });

  it('answers 403 feature_not_enabled when the company has not enabled the workflow API', async () => {
    const plain = await makeCompany(api.orm);
    const document = await seedDocument(api.orm, plain.company);
    const response = await current(document.id, plain.apiKey);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ status: 403, code: 'feature_not_enabled', message: expect.any(String) });
    expect(
      await complete(
        '01a1fd1b-78d3-7a06-918e-b55b593118bf',
        { decision: 'approve', acting_user_email: 'a@b.co' },
        plain.apiKey,
      ),
    ).toMatchObject({ status: 403, body: { code: 'feature_not_enabled' } });
  });

  it("answers 404 for another company's step and document", async () => {
    const document = await flowingDocument();
    const step = await stepWith(document.id, 'document.approval');
    const other = await makeCompany(api.orm, { features: ['workflow_api'], members });
    expect((await current(document.id, other.apiKey)).status).toBe(404);
    expect(
      (await complete(step.reference, { decision: 'approve', acting_user_email: 'ana@example.co' }, other.apiKey))
        .status,
    ).toBe(404);
    expect((await api.sdk(other.apiKey).approveDocument({ params: { reference: document.id } })).status).toBe(404);
    expect(await current(document.id)).toMatchObject({ status: 200, body: { step: { status: 'pending' } } });
  });
});

describe('POST /documents/{reference}/approve', () => {
  it('approves by internal reference, resolving the open approval step, and stores the ERP reference', async () => {
    const document = await flowingDocument();
    const step = await stepWith(document.id, 'document.approval');
    const approved = expectStatus(
      await sdk.approveDocument({ params: { reference: document.id }, body: { erp_document_reference: 'ERP-7781' } }),
      200,
    );
    expect(approved).toMatchObject({
      reference: document.id,
      approval_status: 'approved',
      payables: [expect.objectContaining({ status: 'pending' })],
    });
    expect(approved.logs.find((log) => log.event === 'document.approved')?.metadata).toEqual({
      erp_reference: 'ERP-7781',
    });
    expect((await complete(step.reference, { decision: 'reject', acting_user_email: 'ana@example.co' })).status).toBe(
      409,
    );
    await stepWith(document.id, 'document.classification');
  });

  it('approves by CUFE and by SAT fiscal UUID, with or without a flow, and without a body', async () => {
    const cufe = `${'b'.repeat(90)}${Date.now().toString(16).slice(-6)}`;
    const colombian = await flowingDocument({ fiscalReference: cufe });
    const byCufe = await sdk.approveDocument({ params: { reference: cufe.toUpperCase() } });
    expect(byCufe).toMatchObject({ status: 200, body: { reference: colombian.id, approval_status: 'approved' } });

    const mexico = await makeCompany(api.orm, { country: 'MEX' });
    const satUuid = '6d7434a6-e3f2-47ad-9e4c-08849946afa0';
    const mexican = await seedDocument(api.orm, mexico.company, { fiscalReference: satUuid });
    await startLifecycle(temporal(), mexican);
    const mexicanSdk = api.sdk(mexico.apiKey);
    const bySat = await mexicanSdk.approveDocument({ params: { reference: satUuid.toUpperCase() } });
    expect(bySat).toMatchObject({
      status: 200,
      body: {
        reference: mexican.id,
        approval_status: 'approved',
        payables: [expect.objectContaining({ amount_currency: 'MXN' })],
      },
    });

    const again = expectStatus(await mexicanSdk.approveDocument({ params: { reference: mexican.id } }), 200);
    expect(again.payables).toHaveLength(1);
    expect(again.logs.filter((log) => log.event === 'document.approved')).toHaveLength(1);
  });

  it("generates one payable per installment of the supplier's ERP payment term, the cents split exactly", async () => {
    const { company: erpCompany, apiKey: erpKey } = await makeCompany(api.orm);
    const document = await seedDocument(api.orm, erpCompany, {
      amountCents: 100_000_01n,
      issueDate: new Date('2026-03-10T15:00:00-05:00'),
    });
    const em = companyEm(api.orm, erpCompany.id);
    const beneficiary = await em.findOneOrFail(Beneficiary, { id: document.beneficiary!.id });
    em.create(ErpPaymentTerm, {
      company: erpCompany,
      externalId: 'pt-30-60',
      name: '30/60',
      raw: {},
      installments: [
        { days: 30, percentage: '50' },
        { days: 60, percentage: '50' },
      ],
    });
    em.create(ErpVendor, {
      company: erpCompany,
      externalId: 'v-1',
      name: beneficiary.name,
      identifierType: 'NIT',
      identifierNumber: beneficiary.identifierNumber,
      paymentTermExternalId: 'pt-30-60',
      raw: {},
    });
    await em.flush();
    await startLifecycle(temporal(), document);
    const body = expectStatus(await api.sdk(erpKey).approveDocument({ params: { reference: document.id } }), 200);
    expect(
      body.payables.map((payable) => [
        payable.installment_number,
        payable.amount,
        payable.issue_date,
        payable.expiration_date,
      ]),
    ).toEqual([
      [1, 50_000, '2026-03-10', '2026-04-09'],
      [2, 50_000.01, '2026-03-10', '2026-05-09'],
    ]);
  });

  it('completes the workflow when the flow ends; an approval after that runs a new, short run that opens no step', async () => {
    const { company: owner, apiKey: key } = await makeCompany(api.orm, {
      country: 'COL',
      features: ['workflow_api'],
      members,
    });
    await setFlow(api.orm, owner, {
      steps: [{ action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'] }],
    });
    const document = await flowingDocument({}, owner);
    const step = await stepWith(document.id, 'document.approval', key);
    expectStatus(await complete(step.reference, { decision: 'reject', acting_user_email: 'ana@example.co' }, key), 200);
    const handle = api.client.workflow.getHandle(`document/${document.id}`);
    await expect.poll(async () => (await handle.describe()).status.name).toBe('COMPLETED');
    const ended = await handle.describe();

    const approved = expectStatus(
      await api
        .sdk(key)
        .approveDocument({ params: { reference: document.id }, body: { erp_document_reference: 'ERP-9' } }),
      200,
    );
    expect(approved).toMatchObject({
      approval_status: 'approved',
      payables: [expect.objectContaining({ installment_number: 1 })],
    });
    const again = await handle.describe();
    expect(again.runId).not.toBe(ended.runId);
    await expect.poll(async () => (await handle.describe()).status.name).toBe('COMPLETED');
    // The flow stopped at the rejection: the approval opened no further step.
    expect((await current(document.id, key)).status).toBe(204);
  });

  it('approves a rejected document, and an approved one again with a new ERP reference, generating its payables once', async () => {
    const document = await flowingDocument();
    const step = await stepWith(document.id, 'document.approval');
    expectStatus(await complete(step.reference, { decision: 'reject', acting_user_email: 'ana@example.co' }), 200);
    expect(await documentOf(document.id)).toMatchObject({ approval_status: 'rejected', payables: [] });

    const params = { reference: document.id };
    const approved = expectStatus(
      await sdk.approveDocument({ params, body: { erp_document_reference: 'ERP-1' } }),
      200,
    );
    expect(approved).toMatchObject({
      approval_status: 'approved',
      payables: [expect.objectContaining({ installment_number: 1 })],
    });
    const again = expectStatus(await sdk.approveDocument({ params, body: { erp_document_reference: 'ERP-2' } }), 200);
    expect(again).toMatchObject({
      approval_status: 'approved',
      payables: [expect.objectContaining({ reference: approved.payables[0]!.reference })],
    });
    expect(again.payables).toHaveLength(1);
    expect(again.logs.filter((log) => log.event === 'document.approved').map((log) => log.metadata)).toEqual([
      { erp_reference: 'ERP-1' },
      { erp_reference: 'ERP-2' },
    ]);
  });

  it('refuses a malformed reference and answers 404 for an unknown one', async () => {
    expect((await sdk.approveDocument({ params: { reference: 'abc' } })).status).toBe(400);
    expect(await sdk.approveDocument({ params: { reference: 'c'.repeat(96) } })).toMatchObject({
      status: 404,
      body: { code: 'document_not_found' },
    });
  });
});
