export type UpstreamBody = { success: boolean; data: any; error: any };

/** A JSON call straight to the reference API (`baseUrl` is its `/api/` address), with a bearer token when given. */
export async function upstreamCall<B = UpstreamBody>(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<{ status: number; body: B }> {
  const res = await fetch(baseUrl + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as B };
}
