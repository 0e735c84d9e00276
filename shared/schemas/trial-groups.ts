import { z } from 'zod';
import type { TrialInviteStatus } from '../entities/trial-groups.ts';
import { MSG } from './messages.ts';
import { splitAddresses, type BulkInviteResult } from './users.ts';

export const MAX_TRIAL_INVITES = 100;

/** §5: one address or a comma-separated list; each is checked on its own (ADR 014). */
export const trialInviteEmails = z
  .string({ error: MSG.required })
  .max(20_000, { error: MSG.tooLong })
  .refine((t) => splitAddresses(t).length > 0, { error: MSG.required })
  .refine((t) => splitAddresses(t).length <= MAX_TRIAL_INVITES, { error: `validation.max:${MAX_TRIAL_INVITES}` });

export const trialInviteInput = z.object({ emails: trialInviteEmails });

export interface TrialGroupMember {
  user_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  invitation_status: string;
  added_at: string;
}

export interface TrialGroupInvite {
  id: number;
  user_id: number;
  email: string;
  status: TrialInviteStatus;
  invited_at: string;
  registered_at: string | null;
  sent_count: number;
}

export interface TrialGroupStatistics {
  invited: number;
  registered: number;
  pending: number;
  members: number;
}

/** One address of an invitation: `status` says where that person stands afterwards. */
export type TrialInviteResult = BulkInviteResult & { status?: TrialInviteStatus };
