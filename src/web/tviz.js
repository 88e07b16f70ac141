// tviz.js — the page around tviz's WebAssembly program: loads CanvasKit,
// the fonts, the program and the model the address names; turns the
// browser's events into the program's web_* calls (src/web/web.c), which
// make the same app_state_* calls as the desktop window; keeps the address
// holding the view (model, sentences, stage, view, language…) so a copied
// link opens it again; offers window.tviz to tests and pages that embed tviz.
'use strict';
(function () {
  const canvas = document.getElementById('view');
  const input = document.getElementById('typing');
  const bar = { model: document.getElementById('model'), open: document.getElementById('open'), file: document.getElementById('file'),
                lang: document.getElementById('lang'), fullscreen: document.getElementById('fullscreen') };
  const NEED = 16, DRAW = 1, HANDLED = 2, EXPORT = 4, FULLSCREEN = 8, LINK = 32, COPY = 64;
  let M = null, api = null, manifest = null, drawn = false, firstFrameMs = -1, lastLink = '';
  // what a benchmark reads (window.tviz.timing()): the last key's press to its frame drawn, and that frame's parts
  const timing = { frames: 0, key_to_frame_ms: -1, frame_ms: -1, text_ms: 0, paragraphs: 0 };
  let keyAt = -1, linkLater = false;
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  // ------------------------------------------------------------ loading
  const FONT_FAMILIES = {
    'NotoSans-Regular.ttf': 'Noto Sans', 'NotoSans-Bold.ttf': 'Noto Sans', 'NotoSans-Italic.ttf': 'Noto Sans',
    'NotoSans-BoldItalic.ttf': 'Noto Sans', 'NotoSansArabic-Regular.ttf': 'Noto Sans Arabic', 'NotoSansArabic-Bold.ttf': 'Noto Sans Arabic',
    'DejaVuSans.ttf': 'DejaVu Sans', 'DejaVuSans-Bold.ttf': 'DejaVu Sans', 'DejaVuSansMono.ttf': 'DejaVu Sans Mono',
    'DejaVuSansMono-Bold.ttf': 'DejaVu Sans Mono',
  };

  async function fetchBytes(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(url + ': ' + r.status + ' ' + r.statusText);
    return new Uint8Array(await r.arrayBuffer());
  }

  function mkdirs(path) {
    let at = '';
    for (const part of path.split('/').filter(Boolean)) {
      at += '/' + part;
      try { M.FS.mkdir(at); } catch (e) { /* there already */ }
    }
  }

  // A file the program asked for (web_needs): a model, or a model's snapshots folder.
  async function fetchNeeded(path) {
    const rel = path.replace(/^\/data\//, '');
    if (path.endsWith('.snapshots')) {
      const model = rel.replace(/^models\//, '').replace(/\.snapshots$/, '');
      const files = (manifest.snapshots && manifest.snapshots[model]) || [];
      mkdirs(path);
      const all = await Promise.all(files.map((f) => fetchBytes(rel + '/' + f)));
      files.forEach((f, i) => M.FS.writeFile(path + '/' + f, all[i]));
      return;
    }
    const bytes = await fetchBytes(rel);
    mkdirs(path.substring(0, path.lastIndexOf('/')));
    M.FS.writeFile(path, bytes);
  }

  // Calls fn (a web_* call returning bits) again once what it needs is fetched.
  async function withFiles(fn) {
    for (let tries = 0; tries < 4; tries++) {
      const r = fn();
      if (!(r & NEED)) return r;
      const path = api.needs();
      try {
        api.status(1, path);
        schedule();
        await fetchNeeded(path);
        api.status(0, '');
      } catch (e) {
        console.warn('tviz:', e.message);
        api.status(2, path);
        schedule();
        return HANDLED | DRAW;
      }
    }
    return 0;
  }

  // ------------------------------------------------------------ the address
  // The address's fragment; none: the default view, in the browser's language when tviz has lessons in it.
  function params() {
    const h = location.hash.replace(/^#/, '');
    if (h) return h;
    const lang = (navigator.languages || [navigator.language || 'en']).map((l) => l.slice(0, 2)).find((l) => ['en', 'fa', 'ar'].includes(l));
    return 'lang=' + (lang || 'en');
  }

  function syncLink() {
    const link = api.link();
    if (link && link !== lastLink) {
      lastLink = link;
      history.replaceState(null, '', '#' + link); // (replace: stepping through tviz does not fill the history)
    }
  }

  // ------------------------------------------------------------ drawing
  let scheduled = false;
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(frame);
  }

  function frame() {
    scheduled = false;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    const a = performance.now(), stats = M.textStats;
    stats.ms = 0;
    stats.made = 0;
    const drew = api.frame(w, h, dpr);
    if (drew & 2) schedule();
    if (drew) {
      const b = performance.now();
      timing.frames++;
      timing.frame_ms = b - a;
      timing.text_ms = stats.ms;
      timing.paragraphs = stats.made;
      timing.key_to_frame_ms = keyAt >= 0 ? b - keyAt : -1;
      keyAt = -1;
      if (!drawn) {
        drawn = true;
        firstFrameMs = b; // (performance.now() counts from the navigation)
        resolveReady(window.tviz);
      }
      placeTyping();
      updateBar();
    }
    if (linkLater) {
      linkLater = false;
      setTimeout(syncLink, 0);
    }
  }

  let screenSurface = null;
  function makeScreen(CK, w, h) {
    if (screenSurface) { screenSurface.delete(); screenSurface = null; }
    canvas.width = w;
    canvas.height = h;
    screenSurface = CK.MakeWebGLCanvasSurface(canvas) || CK.MakeSWCanvasSurface(canvas);
    return screenSurface;
  }

  // ------------------------------------------------------------ events
  function act(bits) {
    if (bits & EXPORT) download();
    if (bits & FULLSCREEN) {
      const want = JSON.parse(api.state()).fullscreen;
      if (want && !document.fullscreenElement) document.documentElement.requestFullscreen().catch(() => {});
      if (!want && document.fullscreenElement) document.exitFullscreen().catch(() => {});
    }
    if (bits & LINK) linkLater = true; // (after the frame: the address bar's update is no part of the step)
    if (bits & COPY) { // Ctrl+C: the whole address of the view, for a course page
      syncLink();
      navigator.clipboard.writeText(location.href).then(() => api.status(4, ''), () => api.status(5, '')).then(schedule);
    }
    if (bits & (DRAW | LINK | EXPORT)) schedule();
    typingFocus();
  }

  function download() {
    if (api.png() !== 0) return;
    const n = api.pngSize(), p = api.pngData();
    const bytes = M.HEAPU8.slice(p, p + n);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: 'image/png' }));
    a.download = api.pngName();
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  // While a sentence is typed, the page's own text box takes the keys (any
  // layout, an input method, paste), over the sentence's place in the picture.
  let typing = 0;
  function typingFocus() {
    const e = api.editing();
    if (e && !typing) {
      typing = e;
      input.value = api.editText();
      placeTyping();
      input.focus();
      const end = input.value.length;
      input.setSelectionRange(end, end);
    } else if (!e && typing) {
      typing = 0;
      input.blur();
      canvas.focus();
    } else if (e && e !== typing) {
      typing = e;
      input.value = api.editText();
    }
  }

  function placeTyping() {
    if (!api.editing()) return;
    const b = JSON.parse(api.editBox());
    input.style.left = b[0] + 'px';
    input.style.top = b[1] + 'px';
    input.style.width = b[2] + 'px';
    input.style.height = b[3] + 'px';
  }

  function sendEdit() {
    act(api.edit(input.value, input.selectionStart || 0));
  }

  async function onKeyAsync(e) {
    if (e.target === bar.model || e.target === bar.lang || e.isComposing) return;
    const code = e.code || '', key = e.key || '', ctrl = e.ctrlKey || e.metaKey ? 1 : 0, shift = e.shiftKey ? 1 : 0;
    keyAt = performance.now();
    const first = api.key(code, key, ctrl, shift);
    if (first & HANDLED) e.preventDefault();
    if (!(first & NEED)) { if (first) act(first); return; }
    act(await withFiles(() => api.key(code, key, ctrl, shift)) | DRAW);
  }

  function pointerXY(e) {
    const r = canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  // ------------------------------------------------------------ the bar above the picture
  let barWas = '';
  function updateBar() {
    const bar0 = api.bar();
    if (bar0 === barWas) return;
    barWas = bar0;
    const [model, lang, rtl] = bar0.split('\t');
    if (bar.model.value !== model && [...bar.model.options].some((o) => o.value === model)) bar.model.value = model;
    if (bar.lang.value !== lang) bar.lang.value = lang;
    document.documentElement.lang = lang;
    document.documentElement.dir = rtl === '1' ? 'rtl' : 'ltr';
    const ui = JSON.parse(api.ui());
    bar.open.textContent = ui.open;
    bar.model.title = ui.model;
    bar.lang.title = ui.language;
    bar.fullscreen.title = ui.fullscreen;
    document.title = ui.title;
  }

  // Another model, the view staying (the model menu; a file the learner opens): a link naming only the model.
  async function openModel(name) {
    await withFiles(() => api.start('model=' + encodeURIComponent(name)));
    act(DRAW | LINK);
  }

  async function openFile(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const safe = file.name.replace(/[^A-Za-z0-9._-]/g, '_');
    mkdirs('/data/user');
    M.FS.writeFile('/data/user/' + safe, bytes);
    await openModel('/data/user/' + safe);
  }

  // ------------------------------------------------------------ start
  // The model the address names (or the default), fetched beside everything else at the start.
  function firstModel() {
    const m = /(?:^|&)model=([^&]*)/.exec(params());
    let name = 'en-fa';
    try { if (m) name = decodeURIComponent(m[1].replace(/\+/g, ' ')); } catch (e) { /* the program says what is wrong with the link */ }
    return /^[A-Za-z0-9._-]+$/.test(name) ? name : null;
  }

  async function start() {
    const model = firstModel();
    const modelBytes = model ? fetchBytes('models/' + model + '.safetensors').catch(() => null) : Promise.resolve(null);
    const [CK, module, man, fonts] = await Promise.all([
      CanvasKitInit({ locateFile: (f) => 'canvaskit/' + f }),
      createTviz({ locateFile: (f) => f, print: (s) => console.log(s), printErr: (s) => console.warn(s) }),
      fetch('manifest.json').then((r) => r.json()),
      Promise.all(Object.keys(FONT_FAMILIES).map((f) => fetchBytes('fonts/' + f).then((b) => [f, b]))),
    ]);
    M = module;
    manifest = man;
    const provider = CK.TypefaceFontProvider.Make();
    for (const [f, bytes] of fonts) provider.registerFont(bytes, FONT_FAMILIES[f]);
    M.canvasKit = CK;
    M.fonts = provider;
    M.screen = (w, h) => makeScreen(CK, w, h);
    M.textStats = { ms: 0, made: 0 };
    M.manifestHas = (name) => manifest.models.some((m) => m.name === name);
    M.manifestNames = () => manifest.models.map((m) => m.name).join(', ');
    const c = (name, ret, args) => M.cwrap(name, ret, args);
    api = {
      init: c('web_init', null, []),
      start: c('web_start', 'number', ['string']),
      frame: c('web_frame', 'number', ['number', 'number', 'number']),
      key: c('web_key', 'number', ['string', 'string', 'number', 'number']),
      edit: c('web_edit', 'number', ['string', 'number']),
      pointer: c('web_pointer', 'number', ['number', 'number', 'number', 'number']),
      language: c('web_language', 'number', ['string']),
      editing: c('web_editing', 'number', []),
      editBox: c('web_edit_box', 'string', []),
      editText: c('web_edit_text', 'string', []),
      state: c('web_state', 'string', []),
      trace: c('web_trace', 'string', []),
      link: c('web_link', 'string', []),
      needs: c('web_needs', 'string', []),
      message: c('web_message', 'string', []),
      status: c('web_status', null, ['number', 'string']),
      ui: c('web_ui', 'string', []),
      bar: c('web_bar', 'string', []),
      png: c('web_png', 'number', []),
      pngData: c('web_png_data', 'number', []),
      pngSize: c('web_png_size', 'number', []),
      pngName: c('web_png_name', 'string', []),
    };
    api.init();
    const bytes = await modelBytes;
    if (bytes) {
      mkdirs('/data/models');
      M.FS.writeFile('/data/models/' + model + '.safetensors', bytes);
    }
    for (const m of manifest.models) {
      const o = document.createElement('option');
      o.value = o.textContent = m.name;
      bar.model.appendChild(o);
    }
    // the view the address names (or the default one); a bad link keeps what can be kept and says why
    const r = await withFiles(() => api.start(params()));
    if (r < 0) throw new Error(api.message());
    syncLink();

    window.addEventListener('keydown', onKeyAsync);
    input.addEventListener('input', sendEdit);
    input.addEventListener('keyup', () => { if (api.editing()) sendEdit(); });
    input.addEventListener('blur', () => { if (api.editing()) setTimeout(() => { if (api.editing()) input.focus(); }, 0); });
    canvas.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      canvas.setPointerCapture(e.pointerId);
      const [x, y] = pointerXY(e);
      api.pointer(0, x, y, 0);
      act(DRAW | LINK);
      e.preventDefault();
    });
    canvas.addEventListener('pointerup', (e) => {
      if (e.button !== 0) return;
      const [x, y] = pointerXY(e);
      act(api.pointer(1, x, y, 0) | DRAW);
    });
    canvas.addEventListener('pointermove', (e) => {
      const [x, y] = pointerXY(e);
      const bits = api.pointer(2, x, y, 0);
      if (bits) act(bits);
    });
    canvas.addEventListener('wheel', (e) => {
      const [x, y] = pointerXY(e);
      const steps = Math.max(-5, Math.min(5, -e.deltaY / (e.deltaMode === 1 ? 3 : 100)));
      act(api.pointer(3, x, y, steps || -Math.sign(e.deltaY)));
      e.preventDefault();
    }, { passive: false });
    window.addEventListener('resize', schedule);
    window.addEventListener('hashchange', async (e) => {
      // (the address the event is about: the page may have written the view's own link since)
      const frag = new URL(e.newURL).hash.replace(/^#/, '') || params();
      if (frag === lastLink) return;
      const r2 = await withFiles(() => api.start(frag));
      if (r2 >= 0) { lastLink = ''; syncLink(); }
      schedule();
    });
    document.addEventListener('fullscreenchange', () => schedule());
    bar.model.addEventListener('change', () => openModel(bar.model.value));
    bar.lang.addEventListener('change', () => act(api.language(bar.lang.value)));
    bar.open.addEventListener('click', () => bar.file.click());
    bar.file.addEventListener('change', () => { if (bar.file.files[0]) openFile(bar.file.files[0]); bar.file.value = ''; });
    bar.fullscreen.addEventListener('click', () => {
      if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen();
    });
    canvas.focus();
    schedule();
  }

  window.tviz = {
    ready: ready,
    state() {
      const s = api ? JSON.parse(api.state()) : {};
      s.first_frame_ms = firstFrameMs;
      return s;
    },
    trace() { return api ? JSON.parse(api.trace()) : null; },
    timing() { return Object.assign({}, timing); },
    // the model's forward pass on the default sentence and its translation, reps times: the median in ms (make bench)
    forwardMs(reps) { return api ? M.ccall('web_time_forward', 'number', ['number'], [reps]) : -1; },
  };
  start().catch((e) => {
    console.error('tviz:', e);
    document.getElementById('failed').hidden = false;
    document.getElementById('failed').textContent = 'tviz: ' + e.message;
    rejectReady(e);
  });
}());
