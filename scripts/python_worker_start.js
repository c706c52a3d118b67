// The Python worker's start (appended to wasm-bindgen's glue by scripts/python_worker_loader.py,
// which fills in MODULE: the engine's module, named by its hash, and MODULE_SHA256: its bytes'
// SHA-256).
//
// The module comes straight from Cache Storage when the service worker has kept it there: a
// fetch would pass through the service worker's thread, which made reading this 14 MB file about
// twice as slow as reading the cache here (docs/performance.md). The name carries the module's
// hash and the service worker keeps a file only after checking its hash, so a kept copy under
// this name is this build's; its bytes are checked against the build's hash all the same before
// it is used (`kept`). Otherwise (a first visit, no service worker, no Cache Storage) it is
// fetched.
//
// A saved start: starting the interpreter is most of a worker's start (its types, its modules, the
// sandbox), and it does the same work every time. So the first worker saves its memory as it is
// right after `boot` (the pages `boot` changed, and the JavaScript objects the module holds, each
// by name), and later workers of the same module put that copy back instead of booting. Between
// `boot` and `serve` no Rust code is running, so the copy is a consistent state. The copy is kept
// under the module's hashed name, so it only ever meets the module that wrote it; a copy that does
// not read back whole, or names an object the loader does not know, is not used, and the worker
// boots as it would without one. The copy is taken before the worker has seen any message: it
// holds nothing of the page's.
(function () {
  var url = new URL(MODULE, self.location).href;
  // Not named "execbench-…": the service worker empties those when a new build takes over, which
  // on a first visit happens after this worker has saved. Saving drops other modules' copies.
  var SAVED_CACHE = "python-start";
  var SAVED_KEY = url + "?saved-start=1";
  var MAGIC = 0x31535845; // "EXS1", little-endian
  var PAGE = 65536;
  // wasm-bindgen's reference table: slots below this are its call stack and its four constants
  // (python_worker_loader.py checks the glue still says so); slots from here on are what Rust
  // code holds.
  var FIRST_HELD = 1028;

  // On a host where every account's sites share one origin (OWNER.github.io/REPO/, as
  // `shared_origin_warning` in crates/providers/src/address.rs names them), another site could
  // write a saved start with a digest of its own: none is read or written there.
  var SHARED_ORIGIN = /\.(github|gitlab)\.io\.?$/i.test(self.location.hostname);

  function hasCaches() {
    try {
      return typeof caches !== "undefined";
    } catch (e) {
      return false;
    }
  }

  // The JavaScript objects a saved start may name (the worker's global scope and what hangs off it).
  function knownObjects(wasm) {
    return { global: self, memory: wasm.memory, crypto: self.crypto, performance: self.performance };
  }

  // A kept copy is used only when its bytes are this build's (MODULE_SHA256, written at build
  // time): on an origin other sites share, any of them can put a file under this name in any
  // cache. The check runs beside the compile (compiling runs none of the module's code; only a
  // module whose bytes passed is instantiated), so it costs next to nothing in time. Without
  // WebCrypto (a page not served securely) nothing kept is used. Resolves to a compiled
  // WebAssembly.Module, or undefined.
  function kept() {
    if (!hasCaches() || !(self.crypto && self.crypto.subtle)) return Promise.resolve(undefined);
    return caches.match(url)
      .then(function (response) {
        if (!response) return undefined;
        var checked = response.clone().arrayBuffer()
          .then(function (bytes) { return self.crypto.subtle.digest("SHA-256", bytes); })
          .then(function (digest) { return hex(digest) === MODULE_SHA256; });
        var compiled = WebAssembly.compileStreaming(response).catch(function () { return undefined; });
        return Promise.all([checked, compiled]).then(function (both) { return both[0] ? both[1] : undefined; });
      })
      .catch(function () { return undefined; });
  }

  function hex(digest) {
    return Array.from(new Uint8Array(digest), function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  // The saved start, read and checked against its digest: { bytes, head } or undefined.
  function savedStart() {
    if (SHARED_ORIGIN) return Promise.resolve(undefined);
    return savedCache
      .then(function (cache) { return cache ? cache.match(SAVED_KEY) : undefined; })
      .then(function (response) { return response ? response.arrayBuffer() : undefined; })
      .then(function (bytes) {
        var head = bytes && readHeader(bytes);
        if (!head) return undefined;
        return crypto.subtle.digest("SHA-256", new Uint8Array(bytes, head.at)).then(function (digest) {
          return hex(digest) === head.sha256 ? { bytes: bytes, head: head } : undefined;
        });
      })
      .catch(function () { return undefined; });
  }

  // The cache, opened once at the start, so that forgetting the copy when a worker dies is one
  // call made at once, before the page terminates the worker.
  var savedCache = hasCaches() ? caches.open(SAVED_CACHE).catch(function () { return null; }) : Promise.resolve(null);
  var openedCache = null;
  savedCache.then(function (cache) { openedCache = cache; });

  function forgetSavedStart() {
    var gone = openedCache ? openedCache.delete(SAVED_KEY) : savedCache.then(function (cache) { return cache && cache.delete(SAVED_KEY); });
    return Promise.resolve(gone).catch(function () {});
  }

  // The saved copy's layout: MAGIC, the header's length, the header (JSON: memory_bytes,
  // table_length, refs as [slot, name], pages, sha256 of what follows), then each listed page's
  // 64 KiB in order.
  function readHeader(bytes) {
    if (!(bytes instanceof ArrayBuffer) || bytes.byteLength < 8) return null;
    var view = new DataView(bytes);
    if (view.getUint32(0, true) !== MAGIC) return null;
    var length = view.getUint32(4, true);
    if (8 + length > bytes.byteLength) return null;
    var head = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 8, length)));
    head.at = 8 + length;
    if (bytes.byteLength !== head.at + head.pages.length * PAGE) return null;
    return head;
  }

  // Puts a saved start back into a fresh instance; false, having changed nothing, if it cannot.
  function restore(wasm, saved) {
    var bytes = saved.bytes;
    var head = saved.head;
    var memory = wasm.memory;
    var table = wasm.__wbindgen_externrefs;
    var known = knownObjects(wasm);
    var have = memory.buffer.byteLength;
    if (head.memory_bytes < have || head.memory_bytes % PAGE !== 0 || head.table_length < table.length) return false;
    for (var r = 0; r < head.refs.length; r++) if (!(head.refs[r][1] in known)) return false;
    for (var p = 0; p < head.pages.length; p++) if (!(head.pages[p] >= 0 && head.pages[p] < head.memory_bytes / PAGE)) return false;
    if (head.memory_bytes > have) memory.grow((head.memory_bytes - have) / PAGE);
    if (head.table_length > table.length) table.grow(head.table_length - table.length);
    var into = new Uint8Array(memory.buffer);
    for (p = 0; p < head.pages.length; p++) into.set(new Uint8Array(bytes, head.at + p * PAGE, PAGE), head.pages[p] * PAGE);
    for (r = 0; r < head.refs.length; r++) table.set(head.refs[r][0], known[head.refs[r][1]]);
    return true;
  }

  // What `boot` left: its memory and the objects its code holds, or null (with the reason on the
  // console) when one of them is not an object a later worker can hand back.
  function capture(wasm) {
    var table = wasm.__wbindgen_externrefs;
    var known = knownObjects(wasm);
    var refs = [];
    for (var slot = FIRST_HELD; slot < table.length; slot++) {
      var held = table.get(slot);
      if (held === null || held === undefined) continue;
      var name = Object.keys(known).find(function (k) { return known[k] === held; });
      if (!name) {
        console.warn("execbench: the Python worker's start is not saved: slot " + slot + " holds an object the loader cannot hand back");
        return null;
      }
      refs.push([slot, name]);
    }
    return { memory: new Uint8Array(wasm.memory.buffer).slice(), table_length: table.length, refs: refs };
  }

  // The 64 KiB pages of `after` that differ from `before` (from zero past its end).
  function changedPages(before, after) {
    var a = new Uint32Array(after.buffer, after.byteOffset, after.length / 4);
    var b = new Uint32Array(before.buffer, before.byteOffset, before.length / 4);
    var words = PAGE / 4;
    var pages = [];
    for (var p = 0; p < a.length / words; p++) {
      var from = p * words;
      var known = from < b.length;
      for (var i = from; i < from + words; i++) {
        if (a[i] !== (known ? b[i] : 0)) {
          pages.push(p);
          break;
        }
      }
    }
    return pages;
  }

  function save(before, after) {
    var pages = changedPages(before, after.memory);
    var body = new Uint8Array(pages.length * PAGE);
    for (var p = 0; p < pages.length; p++) body.set(after.memory.subarray(pages[p] * PAGE, (pages[p] + 1) * PAGE), p * PAGE);
    return crypto.subtle.digest("SHA-256", body).then(function (digest) {
      var head = new TextEncoder().encode(
        JSON.stringify({ memory_bytes: after.memory.length, table_length: after.table_length, refs: after.refs, pages: pages, sha256: hex(digest) })
      );
      var lead = new DataView(new ArrayBuffer(8));
      lead.setUint32(0, MAGIC, true);
      lead.setUint32(4, head.length, true);
      return caches.open(SAVED_CACHE).then(function (cache) {
        return cache
          .put(SAVED_KEY, new Response(new Blob([lead.buffer, head, body])))
          .then(function () { return cache.keys(); })
          .then(function (keys) {
            return Promise.all(keys.filter(function (k) { return k.url !== SAVED_KEY; }).map(function (k) { return cache.delete(k); }));
          });
      });
    });
  }

  var saved = savedStart();
  wasm_bindgen({ module_or_path: kept().then(function (module) { return module || fetch(url); }) })
    .then(function (wasm) { return saved.then(function (copy) { start(wasm, copy); }); });

  function start(wasm, copy) {
    var began = performance.now();
    var restored = false;
    try {
      restored = copy !== undefined && restore(wasm, copy);
    } catch (e) {
      restored = false;
    }
    if (restored) {
      // A restored worker that dies (a trap) forgets the copy, so its replacement boots: a copy
      // at fault cannot fail twice, and one that was not costs a single slower start.
      self.addEventListener("error", forgetSavedStart);
      try {
        wasm_bindgen.serve(performance.now() - began);
      } catch (e) {
        // The page starts one more worker on this message (src/browser/python/mod.rs:
        // SAVED_START_FAILED), once the copy is gone, so that one boots.
        forgetSavedStart().then(function () {
          setTimeout(function () { throw new Error("Python's saved start failed and is dropped (" + e + ")"); }, 0);
        });
      }
      return;
    }
    var before = hasCaches() && !SHARED_ORIGIN ? new Uint8Array(wasm.memory.buffer).slice() : null;
    wasm_bindgen.boot();
    var after = before && capture(wasm);
    wasm_bindgen.serve(undefined);
    if (after) {
      setTimeout(function () {
        save(before, after).catch(function (e) { console.warn("execbench: the Python worker's start is not saved: " + e); });
      }, 0);
    }
  }
})();
