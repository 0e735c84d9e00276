import { z } from 'zod';

/**
 * A browser's answer to a passkey ceremony (ADR 075), as `@simplewebauthn/browser` gives it: the back office
 * bounds its shape and size and hands it on; the API verifies every part of it.
 */
const b64url = z
  .string()
  .min(1)
  .max(16384)
  .regex(/^[A-Za-z0-9_-]+$/);
export const passkeyCredential = z.object({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.record(z.string().max(64), z.union([b64url, z.array(z.string().max(32)).max(10), z.number()])),
  clientExtensionResults: z.record(z.string().max(64), z.unknown()).optional(),
  authenticatorAttachment: z.string().max(32).optional(),
});
export type PasskeyCredential = z.infer<typeof passkeyCredential>;
export const passkeyAnswer = z.object({ response: passkeyCredential });
export const passkeyRegistration = z.object({ name: z.string().trim().min(1).max(64), response: passkeyCredential });
/** Removing a passkey (ADR 075): which one, and the fresh proof that it is the user — the password or a passkey's answer. */
export const passkeyRemoval = z.object({
  id: z.number().int().positive(),
  password: z.string().min(1).max(1024).optional(),
  passkey: passkeyCredential.optional(),
});
