import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listen } from '../../simulators/http.ts';

/** One answer, with its bytes exactly as given (so that it can be malformed on purpose). */
export interface ScriptedReply {
  status: number;
  contentType: string;
  body: string;
}

export interface ScriptedReceiver {
  url: string;
  /** Every request, in order of arrival, with what it was answered. */
  received: { headers: IncomingHttpHeaders; body: string; answer: ScriptedReply }[];
  stop(): Promise<void>;
}

export const jsonReply = (status: number, body: unknown): ScriptedReply => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(body),
});
export const textReply = (status: number, body: string): ScriptedReply => ({ status, contentType: 'text/plain', body });

/**
 * A receiver that answers the requests it gets with `script`, one reply each, then repeats the last reply: for the
 * answers the ERP receiver simulator does not give (ids of any length or content, a 422 that is not JSON).
 */
export async function startScriptedReceiver(script: ScriptedReply[]): Promise<ScriptedReceiver> {
  const received: ScriptedReceiver['received'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = script[Math.min(received.length, script.length - 1)]!;
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answer });
      response.writeHead(answer.status, {
        'content-type': answer.contentType,
        'content-length': String(Buffer.byteLength(answer.body)),
      });
      response.end(answer.body);
    });
  });
  const running = await listen(server);
  return { url: running.url, received, stop: running.stop };
}
