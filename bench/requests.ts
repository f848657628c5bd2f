/** POSTs a JSON body with an API key, as an integrator does; throws unless the answer has the expected status. */
export async function postJson(url: string, apiKey: string, body: unknown, expected = 200): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(
      `POST ${new URL(url).pathname} answered ${response.status}, not ${expected}: ${text.slice(0, 300)}`,
    );
}
