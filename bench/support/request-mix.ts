/**
 * The traffic of one signed-in admin session, in the proportions of a busy back office: list queries,
 * profile reads, an SSR page and a profile write (PUT upstream). Shared by both load generators.
 */
export function requestMix(cookie: string) {
  const json = { cookie, 'content-type': 'application/json', 'x-backoffice-csrf': '1' };
  const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  return [
    { method: 'GET' as const, path: `/trpc/companies.list?input=${input({ page: 1, page_size: 25 })}`, headers: { cookie } },
    { method: 'GET' as const, path: `/trpc/serviceSlots.list?input=${input({ ordering: '-start_time' })}`, headers: { cookie } },
    { method: 'GET' as const, path: '/trpc/session.me', headers: { cookie } },
    { method: 'GET' as const, path: '/companies', headers: { cookie } },
    { method: 'POST' as const, path: '/trpc/account.update', headers: json, body: JSON.stringify({ first_name: 'Ada', last_name: 'Admin' }) },
  ];
}
