// The Python worker's start (appended to wasm-bindgen's glue by scripts/python_worker_loader.py,
// which fills in MODULE: the engine's module, named by its hash).
//
// The module comes straight from Cache Storage when the service worker has kept it there: a
// fetch would pass through the service worker's thread, which made reading this 14 MB file about
// twice as slow as reading the cache here (docs/performance.md). The name carries the module's
// hash and the service worker keeps a file only after checking its hash, so a kept copy under
// this name is this build's. Otherwise (a first visit, no service worker, no Cache Storage) it is
// fetched.
(function () {
  var url = new URL(MODULE, self.location).href;
  var kept = Promise.resolve(undefined);
  try {
    if (typeof caches !== "undefined") kept = caches.match(url).catch(function () { return undefined; });
  } catch (e) {}
  wasm_bindgen({ module_or_path: kept.then(function (response) { return response || fetch(url); }) });
})();
