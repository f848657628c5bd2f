import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, readJson, readTextUpTo } from '../../../platform/outside-http.ts';

/** A response whose body is made chunk by chunk as it is read, counting how many chunks were asked for. */
function streamed(chunks: number, chunk: (index: number) => Uint8Array) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      controller.enqueue(chunk(pulled++));
    },
  });
  return { response: new Response(body), pulled: () => pulled };
}

describe('reading an outside answer', () => {
  it('keeps the first bytes of a huge answer and stops reading it there', async () => {
    const size = 64 * 1024;
    // 1 GB if it were read to the end.
    const { response, pulled } = streamed(16_384, () => new Uint8Array(size).fill(0x61));
    const { text, complete } = await readTextUpTo(response, 100 * 1024);
    expect(complete).toBe(false);
    expect(text).toHaveLength(100 * 1024);
    expect(pulled()).toBeLessThan(5);
  });

  it('reads a whole answer under the cap, a character split between chunks included', async () => {
    const bytes = new TextEncoder().encode('{"name":"Compañía"}');
    const cut = bytes.indexOf(0xc3) + 1;
    const { response } = streamed(2, (index) => (index === 0 ? bytes.subarray(0, cut) : bytes.subarray(cut)));
    expect(await readTextUpTo(response, 1024)).toEqual({ text: '{"name":"Compañía"}', complete: true });
  });

  it('reads JSON within the cap, and no JSON past it', async () => {
    expect(await readJson(new Response('{"ok":true}'))).toEqual({ ok: true });
    const padding = ' '.repeat(MAX_ANSWER_BYTES);
    expect(await readJson(new Response(`{"ok":true}${padding}`))).toBeNull();
  });
});
