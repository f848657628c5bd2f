import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';

const SDK_LEVEL: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' };
const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The SDK's own lines (worker state, workflow and activity tasks, retries) in the worker's JSON log, at its level. */
export function sdkLogger(logger: Logger): DefaultLogger {
  return new DefaultLogger(SDK_LEVEL[logger.level] ?? 'ERROR', ({ level, message, meta }) =>
    logger[PINO_LEVEL[level]]({ ...meta }, message),
  );
}
