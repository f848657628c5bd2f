import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import { ops, opsWith } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('operator CLI', () => {
  it('creates a company whose key works against the API', async () => {
    const created = await ops(
      'companies',
      'create',
      '--name',
      'Ferretería El Tornillo S.A.S.',
      '--country',
      'COL',
      '--tax-id',
      '900111222',
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toEqual({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Ferretería El Tornillo S.A.S.',
      country: 'COL',
      api_key: expect.stringMatching(/^apk_/),
    });
    expect((await api.sdk(created.stdout.api_key).listBanks()).status).toBe(200);
  });

  it('issues scoped keys that the API enforces', async () => {
    const { stdout: company } = await ops('companies', 'create', '--name', 'Abarrotes SA de CV', '--country', 'MEX');
    const key = await ops(
      'api-keys',
      'create',
      '--company',
      company.reference,
      '--scopes',
      'payments:read,beneficiaries:read',
    );
    expect(key.stdout).toMatchObject({
      api_key: expect.stringMatching(/^apk_/),
      scopes: ['payments:read', 'beneficiaries:read'],
    });
    const narrow = await ops('api-keys', 'create', '--company', company.reference, '--scopes', 'payments:write');
    expect((await api.sdk(key.stdout.api_key).listBanks()).status).toBe(200);
    expect((await api.sdk(narrow.stdout.api_key).listBanks()).status).toBe(403);
    const revoked = await ops('api-keys', 'revoke', '--prefix', key.stdout.prefix);
    expect(revoked.stdout).toEqual({ prefix: key.stdout.prefix, revoked_at: expect.any(String) });
    expect((await api.sdk(key.stdout.api_key).listBanks()).status).toBe(401);
  });

  it('adds members (idempotent per e-mail) and enables features', async () => {
    const { stdout: company } = await ops('companies', 'create', '--name', 'Members Co', '--country', 'COL');
    const first = await ops(
      'members',
      'add',
      '--company',
      company.reference,
      '--email',
      'Ana@Example.co',
      '--name',
      'Ana',
    );
    const again = await ops(
      'members',
      'add',
      '--company',
      company.reference,
      '--email',
      'ana@example.co',
      '--name',
      'Ana Gómez',
    );
    expect(first.stdout).toEqual({ reference: expect.any(String), email: 'ana@example.co', name: 'Ana' });
    expect(again.stdout).toEqual({ reference: first.stdout.reference, email: 'ana@example.co', name: 'Ana Gómez' });
    const enabled = await ops('features', 'enable', '--company', company.reference, '--feature', 'workflow_api');
    expect(enabled.stdout).toEqual({ company: company.reference, features: ['workflow_api'] });
    expect(
      (await ops('features', 'enable', '--company', company.reference, '--feature', 'workflow_api')).stdout.features,
    ).toEqual(['workflow_api']);
  });

  it('reports bad usage and unknown references as JSON on stderr with a non-zero exit', async () => {
    const missing = await ops('companies', 'create', '--country', 'COL');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toEqual({ error: { code: 'usage', message: expect.stringContaining('--name') } });
    const badCountry = await ops('companies', 'create', '--name', 'X', '--country', 'PER');
    expect(badCountry.stderr.error.message).toContain('COL, MEX');
    const unknown = await ops(
      'members',
      'add',
      '--company',
      '00000000-0000-4000-8000-000000000000',
      '--email',
      'a@b.co',
      '--name',
      'A',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.error.code).toBe('company_not_found');
    const command = await ops('companies', 'explode');
    expect(command.code).toBe(2);
  });
});

describe('ops flows stuck', () => {
  it('refuses a duration it cannot read, or a limit out of range, before asking Temporal anything', async () => {
    // Temporal at an address nobody answers: a command that asked it would fail otherwise.
    const unreachable = { TEMPORAL_ADDRESS: '127.0.0.1:9' };
    for (const olderThan of ['yesterday', '1w', '0.5d', '1.5h']) {
      const refused = await opsWith(unreachable, 'flows', 'stuck', '--older-than', olderThan);
      expect([olderThan, refused.code, refused.stderr.error.code]).toEqual([olderThan, 1, 'invalid_duration']);
    }
    const limit = await opsWith(unreachable, 'flows', 'stuck', '--limit', '0');
    expect([limit.code, limit.stderr.error.code]).toEqual([1, 'invalid_limit']);
  });
});

describe('ops flows set', () => {
  it('stores a valid flow and refuses bad files and non-members, naming the problem', async () => {
    const dir = tempDir('ap-flows-');
    const write = (name: string, body: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
      return path;
    };
    const { stdout: company } = await ops('companies', 'create', '--name', 'Flows Co', '--country', 'COL');
    await ops('members', 'add', '--company', company.reference, '--email', 'ana@example.co', '--name', 'Ana');
    const flow = {
      steps: [
        { action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'], require_all: false },
        {
          action: 'document.classification',
          kind: 'classification',
          field_name: 'cost_center',
          options: [{ value: 'cc-ops', label: 'Operations' }],
          assignees: ['ana@example.co'],
        },
        { action: 'document.tagging', kind: 'tagging', tags: null, assignees: ['ana@example.co'] },
        { action: 'document.accounting', actionable: false },
      ],
    };
    const set = await ops('flows', 'set', '--company', company.reference, '--file', write('flow.json', flow));
    expect(set.code).toBe(0);
    expect(set.stdout.company).toBe(company.reference);
    expect(set.stdout.steps).toHaveLength(4);
    expect((await ops('flows', 'show', '--company', company.reference)).stdout.steps[3]).toEqual({
      action: 'document.accounting',
      actionable: false,
    });

    const stranger = await ops(
      'flows',
      'set',
      '--company',
      company.reference,
      '--file',
      write('stranger.json', {
        steps: [{ action: 'document.approval', kind: 'approval', assignees: ['who@example.co'] }],
      }),
    );
    expect(stranger.stderr.error).toMatchObject({
      code: 'invalid_flow',
      message: expect.stringContaining('who@example.co'),
    });
    const noField = await ops(
      'flows',
      'set',
      '--company',
      company.reference,
      '--file',
      write('nofield.json', { steps: [{ action: 'x', kind: 'classification', assignees: ['ana@example.co'] }] }),
    );
    expect(noField.stderr.error.message).toContain('field_name');
    const broken = await ops(
      'flows',
      'set',
      '--company',
      company.reference,
      '--file',
      write('broken.json', '{ "steps": ['),
    );
    expect(broken.stderr.error.code).toBe('invalid_flow');
  });
});
