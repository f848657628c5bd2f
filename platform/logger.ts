import { pino, type DestinationStream, type Logger } from 'pino';

/** Structured JSON logs. Credentials are never passed to the logger; the redaction is a second fence. */
export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          'apiKey',
          'api_key',
          'secret',
          '*.apiKey',
          '*.api_key',
          '*.secret',
          'headers.authorization',
          'headers["api-key"]',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
