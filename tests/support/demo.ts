/** The demo accounts' password in every test stack, and the scrypt cost tests hash it with (cheap, not a security setting). */
export const DEMO_PASSWORD = 'demo-password-1';
export const TEST_SCRYPT_COST = 1024;
