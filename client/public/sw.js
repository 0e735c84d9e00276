/* global self, caches */
/*
 * The back office's service worker (ADR 042), at the fixed URL /sw.js with the scope /. It keeps the buddy's
 * Today page working through a dead spot: the app's hashed assets from a cache (they never change), the
 * Today page and its day's stops from the network, else the last good copy. Everything else goes to the
 * network untouched. Plain JavaScript served as it is: it is not part of any page's bundle.
 */
const SHELL = 'bb-shell-v1';
/** The user's own data (the Today page and its stops): deleted on sign-out and when another user signs in. */
const DAY = 'bb-today-v1';
/** A dead spot often answers nothing rather than failing: after this long the last good copy is shown. */
const NETWORK_WAIT_MS = 4000;

/**
 * The build's hashed files (ASSET_DIR, shared/static-assets.ts), never changed, and the shell's own images
 * (client/public): kept until the worker's next version.
 */
const SHELL_FILES = ['/default-avatar.svg', '/favicon.svg'];
const isAsset = (url) => url.pathname.startsWith('/static/') || SHELL_FILES.includes(url.pathname);
const isDayPage = (url) => url.pathname === '/today';
const isDayData = (url) => url.pathname.startsWith('/trpc/') && url.pathname.slice('/trpc/'.length).split(',').includes('services.calendar');

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== SHELL && name !== DAY) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** A good answer to keep: ours, complete, not a redirect (to /login, when the session ended). */
const keepable = (response) => response.ok && response.type === 'basic' && !response.redirected && response.status === 200;

async function cacheFirst(request) {
  const cache = await caches.open(SHELL);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (keepable(response)) await cache.put(request, response.clone());
  return response;
}

/** The network's answer when it comes in time; otherwise (or when it fails) the last good copy, if any. */
/**
 * The session ended (ADR 067): the day's page now redirects (to /login), or its data answers 401. The copy kept
 * of the day (customers' addresses and phone numbers) is deleted at once, whatever ended the session.
 */
const sessionEnded = (response) => response.status === 401 || response.type === 'opaqueredirect' || (response.redirected && new URL(response.url).pathname === '/login');

async function networkFirst(request) {
  const cache = await caches.open(DAY);
  const network = fetch(request).then(async (response) => {
    if (keepable(response)) await cache.put(request, response.clone());
    else if (sessionEnded(response)) await caches.delete(DAY);
    return response;
  });
  const late = new Promise((resolve) => setTimeout(resolve, NETWORK_WAIT_MS, null));
  try {
    const first = await Promise.race([network, late]);
    if (first) return first;
  } catch {
    // Offline: the copy below.
  }
  // Vary (Accept-Encoding, Accept) differs between a navigation and the worker's own fetch of the same page.
  const cached = await cache.match(request, { ignoreVary: true });
  return cached ?? network;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (isAsset(url)) event.respondWith(cacheFirst(request));
  else if ((request.mode === 'navigate' && isDayPage(url)) || isDayData(url)) event.respondWith(networkFirst(request));
});

self.addEventListener('message', (event) => {
  const message = event.data ?? {};
  // The page that registered the worker loaded its assets before the worker ran: it names them to keep.
  if (message.type === 'keep') {
    const assets = (message.urls ?? []).filter((u) => isAsset(new URL(u, self.location.origin)));
    event.waitUntil(
      (async () => {
        const cache = await caches.open(SHELL);
        await Promise.all(assets.map((u) => cache.match(u).then((hit) => hit ?? cache.add(u).catch(() => undefined))));
        if (message.page && isDayPage(new URL(message.page, self.location.origin))) {
          const response = await fetch(message.page, { credentials: 'same-origin' }).catch(() => null);
          if (response && keepable(response)) await (await caches.open(DAY)).put(message.page, response);
        }
        event.source?.postMessage({ type: 'kept' });
      })(),
    );
  }
  if (message.type === 'forget') event.waitUntil(caches.delete(DAY).then(() => event.source?.postMessage({ type: 'forgotten' })));
});
