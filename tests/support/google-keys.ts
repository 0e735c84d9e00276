import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';

/**
 * A stand-in for Google's certificates: a fresh RS256 key (`kid` k1) whose public half a local server
 * publishes at `certsUrl`, so ID tokens signed with `privateKey` verify as Google's.
 */
export async function startGoogleKeys(): Promise<{ server: Server; privateKey: CryptoKey; certsUrl: string }> {
  const pair = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, privateKey: pair.privateKey as CryptoKey, certsUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/certs` };
}
