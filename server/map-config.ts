/** The origin of a tile URL template for the CSP: `https://{s}.tile.example.org/{z}/…` → `https://*.tile.example.org`. */
export function tileOrigin(template: string): string | null {
  const host = /^(https?:\/\/[^/]+)/.exec(template)?.[1];
  return host ? host.replace(/\{s\}/g, '*') : null;
}
