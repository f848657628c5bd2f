import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { unavailableDependency } from '../../../api/middleware/errors.ts';

/** An error as @grpc/grpc-js gives it: a numeric status code and its name in the message. */
const grpcError = (code: number, message: string) => Object.assign(new Error(`${code} ${message}`), { code });

describe('which dependency is down, answered 503 rather than 500', () => {
  it('Temporal: unavailable, past its deadline, or refusing past its rate limits', () => {
    for (const [code, name] of [
      [14, 'UNAVAILABLE: No connection established'],
      [4, 'DEADLINE_EXCEEDED: Deadline exceeded'],
      [8, 'RESOURCE_EXHAUSTED: namespace rate limit exceeded'],
    ] as const) {
      expect(unavailableDependency(grpcError(code, name))).toBe('temporal');
      expect(unavailableDependency(new Error('start failed', { cause: grpcError(code, name) }))).toBe('temporal');
    }
    expect(unavailableDependency(new ServiceError('Failed to start workflow'))).toBe('temporal');
  });

  it('PostgreSQL: unreachable, shutting down, or with every connection slot taken', () => {
    for (const code of ['ECONNREFUSED', '57P01', '57P03', '53300'])
      expect(unavailableDependency(Object.assign(new Error('database'), { code }))).toBe('database');
    // What the driver says of a pooled connection whose server died under it: no code, only this message.
    const dead = Object.assign(new Error('Client has encountered a connection error and is not queryable'), {
      name: 'DriverException',
    });
    expect(unavailableDependency(dead)).toBe('database');
  });

  it('an error that means the request or the code is wrong is neither', () => {
    expect(unavailableDependency(grpcError(3, 'INVALID_ARGUMENT: bad input'))).toBeNull();
    expect(unavailableDependency(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeNull();
    expect(unavailableDependency(new TypeError('x is undefined'))).toBeNull();
  });
});
