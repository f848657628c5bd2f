import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

/** Why a request body was not taken whole: the client went away, the server's deadline passed, or a limit. */
export type UploadEnd = 'aborted' | 'timed_out' | 'cap';

declare module 'koa' {
  interface DefaultState {
    /** The request's body as it arrives, when it carries one. */
    upload?: Upload;
  }
}

/**
 * A request body as it arrives: the bytes read, and how it ended when it did not end whole. The readers of bodies
 * (JSON, multipart) count through it and ask it whether the body was cut; `watchUploads` logs the end once.
 */
export class Upload {
  received = 0;
  /** Set once: a cut (aborted, timed out) wins over a cap reached before it, since that is how the body ended. */
  end: UploadEnd | null = null;
  readonly #request: IncomingMessage;
  #timedOut = false;
  #counting = false;
  readonly #cutListeners = new Set<(reason: 'aborted' | 'timed_out') => void>();

  constructor(request: IncomingMessage) {
    this.#request = request;
    // The server's request deadline destroys the socket with this error before the request closes.
    request.socket.on('error', this.#onSocketError);
    request.on('close', this.#onClose);
  }

  /**
   * Counts the body's bytes from now on: called as a reader that pipes the body starts, in the same tick (no byte flows
   * before it).
   */
  reading(): void {
    if (this.#counting) return;
    this.#counting = true;
    this.#request.on('data', this.#onData);
  }

  /** The bytes a reader that counts them itself read. */
  took(bytes: number): void {
    this.received = Math.max(this.received, bytes);
  }

  /** The body passed a limit of its reader. */
  capped(): void {
    this.end ??= 'cap';
  }

  /** Whether the body was cut (client gone, deadline passed): a reader that starts now would wait forever. */
  get cut(): 'aborted' | 'timed_out' | null {
    return this.end === 'aborted' || this.end === 'timed_out' ? this.end : null;
  }

  /** Calls `listener` when the body is cut; at once when it already was. Answers a function that stops listening. */
  onCut(listener: (reason: 'aborted' | 'timed_out') => void): () => void {
    const cut = this.cut;
    if (cut) {
      listener(cut);
      return () => {};
    }
    this.#cutListeners.add(listener);
    return () => this.#cutListeners.delete(listener);
  }

  /** The error a reader fails with when the body was cut (the client will not read it, but the access log will). */
  static error(reason: 'aborted' | 'timed_out'): ApiError {
    return reason === 'timed_out'
      ? new ApiError(408, 'request_timeout', 'The request body did not arrive within the server deadline')
      : new ApiError(400, 'upload_aborted', 'The client closed the connection before sending the whole body');
  }

  /** Stops following the request (it is over). */
  stop(): void {
    this.#request.socket?.off('error', this.#onSocketError);
    this.#request.off('close', this.#onClose);
    this.#request.off('data', this.#onData);
    this.#cutListeners.clear();
  }

  #onData = (chunk: Buffer): void => {
    this.received += chunk.length;
  };

  #onSocketError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') this.#timedOut = true;
  };

  #onClose = (): void => {
    if (this.#request.complete) return;
    // What arrived but no reader took yet still arrived.
    if (!this.#counting) this.received += this.#request.readableLength;
    const reason = this.#timedOut ? 'timed_out' : 'aborted';
    if (this.end !== 'aborted' && this.end !== 'timed_out') this.end = reason;
    for (const listener of this.#cutListeners) listener(reason);
    this.#cutListeners.clear();
  };
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Follows every request body (JSON and multipart alike) and logs, once, one that did not end whole: its route, the bytes
 * received and declared, and why (`aborted` by the client, `timed_out` by the server's deadline, `cap` of its reader).
 */
export function watchUploads(): Middleware {
  return async (ctx, next) => {
    const declared = ctx.req.headers['content-length'];
    const carriesBody =
      WITH_BODY.has(ctx.method) &&
      ((declared !== undefined && declared !== '0') || ctx.req.headers['transfer-encoding']);
    if (!carriesBody) return next();
    const upload = new Upload(ctx.req);
    ctx.state.upload = upload;
    try {
      await next();
    } finally {
      upload.stop();
      if (upload.end) {
        ctx.state.log.warn(
          {
            method: ctx.method,
            route: ctx.state.routePath ?? null,
            path: ctx.path,
            reason: upload.end,
            bytesReceived: upload.received,
            bytesDeclared: declared === undefined ? null : Number(declared),
          },
          'upload ended before its body was taken',
        );
      }
    }
  };
}
