import { describe, expect, it } from 'vitest';
import { renderClientTypes, typeExpression, type JsonSchema } from '../../../clients/typescript/scripts/render.ts';

describe('JSON Schema as TypeScript', () => {
  it('renders the constructs zod emits', () => {
    expect(typeExpression({ type: ['string', 'null'] }, 0)).toBe('string | null');
    expect(typeExpression({ type: 'boolean', const: false }, 0)).toBe('false');
    expect(typeExpression({ type: 'string', enum: ['a', "it's"] }, 0)).toBe(`'a' | 'it\\'s'`);
    expect(typeExpression({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, 0)).toBe(
      '(string | number)[]',
    );
    expect(
      typeExpression(
        {
          type: 'object',
          propertyNames: { type: 'string' },
          additionalProperties: { type: 'array', items: { type: 'string' } },
        } as never,
        0,
      ),
    ).toBe('Record<string, string[]>');
    expect(typeExpression({ type: 'object', properties: {}, additionalProperties: false }, 0)).toBe(
      'Record<string, never>',
    );
    expect(typeExpression({ $ref: '#/components/schemas/Bank' }, 0)).toBe('Bank');
    expect(typeExpression({}, 0)).toBe('unknown');
    const either: JsonSchema = {
      anyOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { const: 'x|y' } }, required: ['b'] },
      ],
    };
    expect(typeExpression({ type: 'array', items: either }, 0)).toBe("({\n  a: string;\n} | {\n  b: 'x|y';\n})[]");
    expect(
      typeExpression({ type: 'array', items: { type: 'object', properties: { c: { enum: ['p', 'q'] } } } }, 0),
    ).toBe("{\n  c?: 'p' | 'q';\n}[]");
  });

  it('renders objects with optional members, descriptions and open extras', () => {
    const type = typeExpression(
      {
        type: 'object',
        properties: { code: { type: 'string', description: 'Stable' }, 'x-y': { type: 'number' } },
        required: ['code'],
        additionalProperties: {},
      },
      0,
    );
    expect(type).toBe("{\n  /** Stable */\n  code: string;\n  'x-y'?: number;\n  [key: string]: unknown;\n}");
  });

  it('renders an operation with its request, its responses and its row in the table', () => {
    const source = renderClientTypes({
      components: {
        schemas: {
          Thing: {
            type: 'object',
            properties: { id: { type: 'string' } },
            required: ['id'],
            additionalProperties: false,
          },
        },
      },
      paths: {
        '/things/{id}': {
          post: {
            operationId: 'touchThing',
            summary: 'Touch a thing',
            security: [{ ErpApiKey: [] }],
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } },
            ],
            responses: {
              '200': {
                description: 'Touched',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
              },
              '204': { description: 'Nothing' },
            },
          },
        },
      },
    });
    expect(source).toContain('export interface Thing {\n  id: string;\n}');
    expect(source).toContain('export interface TouchThing {\n  request: {\n    params: {\n      id: string;\n    };');
    expect(source).toContain('    idempotencyKey?: string;');
    expect(source).toContain('    /** Touched */\n    200: Thing;\n    /** Nothing */\n    204: undefined;');
    expect(source).toContain(
      "  touchThing: { method: 'POST', path: '/things/{id}', auth: 'erp-key', statuses: [200, 204] },",
    );
  });
});
