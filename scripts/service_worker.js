// execbench's service worker: after one visit the app opens and works with the network off.
//
// scripts/offline_build.py writes the built copy (dist/sw.js): this file with `BUILD` in front,
// naming every file of the build with its SHA-256 and a version made from them all. A new build is
// a new sw.js, so the browser installs it beside the running one; it takes over only when the
// page asks (the user clicked "Reload to update"), so code never changes under a running job.
//
// Only the build's own files are answered from the cache. Everything else (model APIs, datasets
// from other sites, the IndexedDB the page keeps) goes to the network untouched.
//
// Where the browser has static routes (InstallEvent.addRoutes, Chromium 123+), the app's address
// and the files kept on install are answered from this build's cache by the browser itself, so a
// visit need not wait for this worker to start (after about 30 s idle it is stopped) nor for its
// script to run once per file. A file the cache lost goes to the network, as below. Elsewhere the
// fetch handler does the same work.

const CACHE_PREFIX = "execbench-";
const CACHE = CACHE_PREFIX + BUILD.version;
const SCOPE = new URL(self.registration.scope);

// Build files by their URL (resolved against this script, so a sub-path deploy works).
const BUILD_URLS = new Map(BUILD.files.map((f) => [new URL(f.path, self.location).href, f]));
const INDEX = new URL("index.html", self.location).href;

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// A file of this build, checked against its hash: the HTTP cache may hold an older copy of a file
// whose name does not change between builds (the workers' modules), so a mismatch fetches again.
async function fetchChecked(file) {
  const url = new URL(file.path, self.location).href;
  for (const mode of ["default", "reload"]) {
    const response = await fetch(url, { cache: mode });
    if (!response.ok) throw new Error(`${file.path}: HTTP ${response.status}`);
    const bytes = await response.clone().arrayBuffer();
    if (hex(await crypto.subtle.digest("SHA-256", bytes)) === file.sha256) return response;
  }
  throw new Error(`${file.path}: the server's copy is not this build's`);
}

// An older build's cached copy of `file` when its bytes are this build's (an unchanged file that
// is cached on first use stays usable offline across updates), else null.
async function keptBefore(file) {
  const url = new URL(file.path, self.location).href;
  for (const name of await caches.keys()) {
    if (!name.startsWith(CACHE_PREFIX) || name === CACHE) continue;
    const response = await (await caches.open(name)).match(url);
    if (!response) continue;
    const bytes = await response.clone().arrayBuffer();
    if (hex(await crypto.subtle.digest("SHA-256", bytes)) === file.sha256) return response;
  }
  return null;
}

// A URLPattern component that matches `text` only: its syntax characters escaped.
function literal(text) {
  return text.replace(/[\\:*?+(){}]/g, "\\$&");
}

// The route for one address: the same origin and path, no query.
function exactly(href) {
  const url = new URL(href);
  return new URLPattern({
    protocol: literal(url.protocol.slice(0, -1)),
    hostname: literal(url.hostname),
    port: literal(url.port),
    pathname: literal(url.pathname),
    search: "",
  });
}

function staticRoutes() {
  const fromCache = { cacheName: CACHE };
  const routes = BUILD.files
    .filter((f) => f.precache !== false)
    .map((f) => ({ condition: { urlPattern: exactly(new URL(f.path, self.location).href), requestMethod: "GET" }, source: fromCache }));
  routes.push({ condition: { urlPattern: exactly(SCOPE.href), requestMode: "navigate" }, source: fromCache });
  return routes;
}

self.addEventListener("install", (event) => {
  // Routes are an optimisation: where they are refused (too many, an older browser), the fetch
  // handler answers the same requests, so a refusal never fails the install.
  if (typeof event.addRoutes === "function" && typeof URLPattern === "function") {
    try {
      event.waitUntil(event.addRoutes(staticRoutes()).catch((e) => console.warn(`execbench: no static routes: ${e}`)));
    } catch (e) {
      console.warn(`execbench: no static routes: ${e}`);
    }
  }
  // All or nothing: a build half in the cache would break offline; a failed install leaves the
  // page on the network, as without a service worker. Files marked `precache: false` (what the
  // offline promise does not need, scripts/offline_build.py) are cached on first use instead,
  // or carried over from the previous build when unchanged.
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const now = BUILD.files.filter((f) => f.precache !== false);
      const fetched = await Promise.all(now.map(async (f) => [f, await fetchChecked(f)]));
      await Promise.all(fetched.map(([f, response]) => cache.put(new URL(f.path, self.location).href, response)));
      // The page under the app's own address too, which is what a static route looks up.
      await cache.put(SCOPE.href, await cache.match(INDEX));
      for (const f of BUILD.files.filter((f) => f.precache === false)) {
        const kept = await keptBefore(f).catch(() => null);
        if (kept) await cache.put(new URL(f.path, self.location).href, kept);
      }
    })()
  );
});

self.addEventListener("activate", (event) => {
  // Older builds' caches go once this one is in charge; other sites' caches are not ours.
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })()
  );
});

// The files cached on first use that are marked `idle` (the standard library's rest, the Parquet
// loader; not the model worker), fetched now:
// the page asks once it has been ready a while, online, so that after one visit a program's first
// import of the rest, or a Parquet file opened, works offline too (src/browser/offline.rs). Each is
// checked as on install; one that fails is left to its first use.
async function keepTheRest() {
  const cache = await caches.open(CACHE);
  for (const f of BUILD.files.filter((f) => f.precache === false && f.idle)) {
    const url = new URL(f.path, self.location).href;
    if (await cache.match(url)) continue;
    const response = await fetchChecked(f).catch(() => null);
    if (response) await cache.put(url, response);
  }
}

self.addEventListener("message", (event) => {
  if (event.data === "execbench:update") self.skipWaiting();
  if (event.data === "execbench:keep-the-rest") event.waitUntil(keepTheRest().catch(() => {}));
  if (event.data === "execbench:version" && event.source) event.source.postMessage({ version: BUILD.version });
});

function buildFileFor(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  url.search = "";
  url.hash = "";
  // The app's address itself (`/execbench/`, with or without a route after `#`) is its page.
  if (request.mode === "navigate" && url.href === SCOPE.href) return INDEX;
  return BUILD_URLS.has(url.href) ? url.href : null;
}

self.addEventListener("fetch", (event) => {
  const key = buildFileFor(event.request);
  if (!key) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const cached = await cache.match(key);
      if (cached) return cached;
      // A file cached on first use: fetched, checked and kept for the next time (offline too).
      const file = BUILD_URLS.get(key);
      if (file && file.precache === false) {
        const response = await fetchChecked(file).catch(() => null);
        if (response) {
          await cache.put(key, response.clone());
          return response;
        }
      }
      // A cache the browser emptied (storage pressure) falls back to the network.
      return fetch(event.request);
    })()
  );
});
