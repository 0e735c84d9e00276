import { userListInput, type UserListInput } from '../../shared/schemas/users.ts';

const KEYS = ['page', 'page_size', 'search', 'ordering', 'role', 'user_type', 'account_status', 'invitation_status'];

/** Users list state from the URL (reload, back and shared links keep it); bad values fall back to defaults. */
export function parseUserListParams(search: URLSearchParams): UserListInput {
  const raw = Object.fromEntries([...search.entries()].filter(([k, v]) => KEYS.includes(k) && v !== ''));
  const parsed = userListInput.safeParse(raw);
  return parsed.success ? parsed.data : userListInput.parse({});
}
