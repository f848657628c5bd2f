// Opening a step with the company's recommendation agent on, against a company whose people have decided
// BENCH_DECIDED_STEPS steps (5,000) of a few suppliers, next to the same opening with the agent off. The agent's cost
// is its setting, one bounded read of the supplier's decision history and, for a sample of options, the check that
// the values are still offered. The openings run in the bench's own process (the activity's work, without Temporal).
import { createCompany, upsertMember } from '../../db/companies/company.repository.ts';
import { companyEm, systemEm, type EntityManager } from '../../db/orm.ts';
import { decisionHistoryStatement } from '../../db/recommendations/decision-history.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import type { FlowStepDefinition } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { openStep } from '../../services/documents/lifecycle.ts';
import { setAgent } from '../../services/recommendations/agent-settings.ts';
import { RECOMMENDATION_RULES } from '../../services/recommendations/scoring.ts';
import { row, type BenchContext, type Row } from '../context.ts';
import { latencyOf, timed } from '../stats.ts';

const DECIDED_STEPS = Number(process.env.BENCH_DECIDED_STEPS ?? 5_000);
const OPENINGS_PER_RUN = Number(process.env.BENCH_STEP_OPENINGS ?? 60);
const SUPPLIERS = 10;
const MEMBER = { email: 'ana@example.co', name: 'Ana Gómez' };
const TAGS = ['servicios', 'recurrente', 'urgente', 'proyecto-norte'];
const COST_CENTERS = ['cc-bog', 'cc-med', 'cc-cal', 'cc-baq'];
const DEFINITIONS: FlowStepDefinition[] = [
  { action: 'document.approval', kind: 'approval', assignees: [MEMBER.email] },
  {
    action: 'document.classification',
    kind: 'classification',
    fieldName: 'cost_center',
    options: COST_CENTERS.map((value) => ({ value, label: value })),
    assignees: [MEMBER.email],
  },
  { action: 'document.tagging', kind: 'tagging', tags: null, assignees: [MEMBER.email] },
];
const KINDS = ['approval', 'classification', 'tagging'] as const;

/** Suppliers, their documents and the steps decided on them (mostly one way, some another), in a few statements. */
async function seedHistory(em: EntityManager, companyId: string, openings: number) {
  const documents = Math.ceil(DECIDED_STEPS / KINDS.length);
  await em.execute(
    `insert into "beneficiaries" ("id", "company_id", "name", "identifier_type", "identifier_number", "created_at", "updated_at")
     select gen_random_uuid(), ?, 'Proveedor ' || n || ' S.A.S.', 'NIT', (900000000 + n)::text, now(), now()
     from generate_series(1, ?) n`,
    [companyId, SUPPLIERS],
  );
  const suppliers = (
    await em.execute<{ id: string }[]>(`select "id" from "beneficiaries" where "company_id" = ? order by "name"`, [
      companyId,
    ])
  ).map((supplier) => supplier.id);
  // Decided documents spread over the suppliers, then fresh ones of the first supplier for the openings.
  const insertDocuments = (count: number, prefix: string, suppliersOf: string) =>
    em.execute(
      `insert into "documents" ("id", "company_id", "beneficiary_id", "country", "document_number", "type", "amount_cents",
         "currency", "approval_status", "created_at", "updated_at")
       select gen_random_uuid(), ?, (?::uuid[])[1 + n % ${suppliersOf}], 'COL', ? || n, 'invoice', 100000000 + (n % 20) * 100000,
         'COP', 'pending', now(), now()
       from generate_series(1, ?) n`,
      [companyId, `{${suppliers.join(',')}}`, prefix, count],
    );
  await insertDocuments(documents, 'BR-HIST-', String(SUPPLIERS));
  await insertDocuments(openings, 'BR-OPEN-', '1');
  await em.execute(
    `insert into "workflow_steps" ("id", "company_id", "document_id", "beneficiary_id", "position", "action", "kind", "status",
       "actionable", "require_all", "entity", "decision", "assignees", "recommendations", "result", "acted_by",
       "decided_by_agent", "created_at", "completed_at")
     select gen_random_uuid(), d."company_id", d."id", d."beneficiary_id", k.position, 'document.' || k.kind, k.kind::step_kind,
       'completed', true, false,
       jsonb_build_object('type', 'document', 'reference', d."id", 'documentNumber', d."document_number", 'concept', null,
         'amountCents', d."amount_cents"::text, 'currency', d."currency", 'issueDate', null, 'expirationDate', null,
         'thirdParty', '[]'::jsonb),
       jsonb_build_object('kind', k.kind, 'multiple', k.kind = 'tagging',
         'fieldName', case when k.kind = 'classification' then 'cost_center' end, 'options', '[]'::jsonb,
         'optionsComplete', k.kind <> 'tagging'),
       '[]', '[]',
       jsonb_build_object('values', case k.kind
         when 'approval' then case when random() < 0.9 then '["approve"]' else '["reject"]' end
         when 'classification' then case when random() < 0.8 then '["cc-bog"]' else '["cc-med"]' end
         else case when random() < 0.85 then '["servicios", "recurrente"]' else '["urgente"]' end end::jsonb,
         'labels', '[]'::jsonb),
       '{"email": "ana@example.co", "name": "Ana Gómez"}', false,
       now() - interval '301 days', now() - random() * interval '300 days'
     from "documents" d
     cross join (values (0, 'approval'), (1, 'classification'), (2, 'tagging')) as k(position, kind)
     where d."company_id" = ? and d."document_number" like 'BR-HIST-%'
     limit ?`,
    [companyId, DECIDED_STEPS],
  );
  await em.execute('analyze "workflow_steps"');
  const fresh = await em.execute<{ id: string }[]>(
    `select "id" from "documents" where "company_id" = ? and "document_number" like 'BR-OPEN-%'`,
    [companyId],
  );
  return { supplierId: suppliers[0]!, documentIds: fresh.map((document) => document.id) };
}

/** The decision-history read's plan, at this size: whether its index serves it, newest first, without a sort. */
async function historyPlan(em: EntityManager, companyId: string, supplierId: string) {
  const { sql, params } = decisionHistoryStatement({
    companyId,
    beneficiaryId: supplierId,
    kind: 'classification',
    fieldName: 'cost_center',
    documentId: '00000000-0000-0000-0000-000000000000',
    since: new Date(Date.now() - RECOMMENDATION_RULES.windowDays * 86_400_000),
    limit: RECOMMENDATION_RULES.windowDecisions,
  });
  const [planRow] = await em.execute<{ 'QUERY PLAN': unknown }[]>(`explain (format json) ${sql}`, params);
  const plan = JSON.stringify(planRow!['QUERY PLAN']);
  return {
    name: 'history read by workflow_steps_decision_history_index, newest first, no sort',
    value: plan.includes('"Index Name":"workflow_steps_decision_history_index"') ? 'index scan' : plan.slice(0, 200),
    met:
      plan.includes('"Index Name":"workflow_steps_decision_history_index"') &&
      plan.includes('"Scan Direction":"Backward"') &&
      !plan.includes('"Node Type":"Sort"'),
  };
}

export async function recommendationScenario(context: BenchContext): Promise<Row[]> {
  const orm = context.stack.orm;
  const { company } = await createCompany(systemEm(orm), {
    name: 'Recomendaciones S.A.S.',
    country: 'COL',
    taxId: '900333444',
  });
  await upsertMember(systemEm(orm), company, MEMBER);
  const em = companyEm(orm, company.id);
  await ensureTags(em, company, TAGS);
  context.log(`  seeding ${DECIDED_STEPS.toLocaleString('en')} decided steps of ${SUPPLIERS} suppliers`);
  const { supplierId, documentIds } = await seedHistory(em, company.id, OPENINGS_PER_RUN);
  const check = await historyPlan(em, company.id, supplierId);

  const agents = async (enabled: boolean) => {
    for (const kind of KINDS)
      await setAgent(companyEm(orm, company.id), company, { kind, enabled, autoDecideAbove: null });
  };
  /** Opens a step of each kind in turn on a fresh document, and takes it away again (untimed) for the next phase. */
  const phase = async (enabled: boolean) => {
    await agents(enabled);
    const timings: number[] = [];
    let recommended = 0;
    for (const [index, documentId] of documentIds.entries()) {
      const position = index % DEFINITIONS.length;
      const input = { companyId: company.id, documentId, position, definition: DEFINITIONS[position]! };
      timings.push(await timed(async () => void (await openStep(orm, input))));
      const [step] = await em.execute<{ recommendations: unknown[] }[]>(
        `delete from "workflow_steps" where "document_id" = ? returning "recommendations"`,
        [documentId],
      );
      if (step!.recommendations.length) recommended++;
    }
    if (enabled && recommended === 0) throw new Error('the agent recommended nothing: the history is not its evidence');
    return timings;
  };

  const runs = { on: [] as number[][], off: [] as number[][] };
  await phase(true); // warm-up: prepared plans, caches
  await phase(false);
  for (let run = 0; run < context.runs; run++) {
    // Back to back, in alternating order, so neither phase always follows the other.
    if (run % 2 === 0) {
      runs.off.push(await phase(false));
      runs.on.push(await phase(true));
    } else {
      runs.on.push(await phase(true));
      runs.off.push(await phase(false));
    }
  }
  const p50s = (list: number[][]) => list.map((timings) => latencyOf(timings).p50);
  context.log(
    `  opening a step p50: agent off ${p50s(runs.off)
      .map((value) => value.toFixed(2))
      .join(' / ')} ms; agent on ${p50s(runs.on)
      .map((value) => value.toFixed(2))
      .join(' / ')} ms`,
  );
  return [
    row({
      path: `Opening a step, agent on (${DECIDED_STEPS.toLocaleString('en')} decided steps)`,
      figure: 'p50 latency',
      unit: 'ms',
      baselineName: 'the same opening, agent off',
      product: p50s(runs.on),
      baseline: p50s(runs.off),
      kind: 'max',
      target: 1.5,
      latency: runs.on.map(latencyOf),
      baselineLatency: runs.off.map(latencyOf),
      checks: [check],
      bound: [
        'With the agent on, opening a step adds one read of the decision history (at most 100 index entries of the',
        'supplier, newest first) and, for a tagging sample, one read of the tags it recommends, inside the transaction',
        'that locks the document. See docs/decisions.md, "Step recommendations".',
      ],
    }),
  ];
}
