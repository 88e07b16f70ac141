// canvaskit.js — the drawing that src/web/cairo.c and src/web/text.c ask
// for, done with CanvasKit (Skia in WebAssembly, npm's canvaskit-wasm).
// Linked into the program with emcc --js-library; the page's script
// (tviz.js) sets Module.canvasKit, Module.fonts (a TypefaceFontProvider with
// the families below) and Module.screen(w, h) (the <canvas>'s surface) before
// the first frame. Objects are kept by id (0: none) in TK.
mergeInto(LibraryManager.library, {
  $TK: {
    objs: [null, null],   // id 1: the screen
    free: [],
    path: null,           // the current path (ck_path)
    paint: null,
    SANS: ['Noto Sans', 'Noto Sans Arabic', 'DejaVu Sans'],
    MONO: ['DejaVu Sans Mono', 'Noto Sans Mono', 'Noto Sans Arabic'],
    ck: function () { return Module.canvasKit; },
    put: function (o) {
      const id = this.free.length ? this.free.pop() : this.objs.length;
      this.objs[id] = o;
      return id;
    },
    drop: function (id) {
      const o = this.objs[id];
      if (id > 1 && o) { this.objs[id] = null; this.free.push(id); }
      return o;
    },
    canvas: function (id) { const o = this.objs[id]; return o ? o.canvas : null; },
    floats: function (ptr, n) { return HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n); },
    color: function (ptr) { const f = HEAPF32.subarray(ptr >> 2, (ptr >> 2) + 4); return this.ck().Color4f(f[0], f[1], f[2], f[3]); },
    matrix: function (m) { return [m[0], m[2], m[4], m[1], m[3], m[5], 0, 0, 1]; }, // cairo's (xx, yx, xy, yy, x0, y0) as Skia's 3 × 3
    // The one paint every call draws with; a setter is called only when its value changes (each is a call into CanvasKit).
    now: { r: -1, g: -1, b: -1, a: -1, shader: -1, aa: -1, style: -1 },
    getPaint: function (rgbaPtr, shader, aa, style) {
      const CK = this.ck(), n = this.now;
      if (!this.paint) this.paint = new CK.Paint();
      const p = this.paint, i = rgbaPtr >> 2, r = HEAPF32[i], g = HEAPF32[i + 1], b = HEAPF32[i + 2], a = HEAPF32[i + 3];
      if (r !== n.r || g !== n.g || b !== n.b || a !== n.a) { p.setColorComponents(r, g, b, a); n.r = r; n.g = g; n.b = b; n.a = a; }
      if (shader !== n.shader) { p.setShader(shader ? this.objs[shader] : null); n.shader = shader; }
      if (!!aa !== n.aa) { p.setAntiAlias(!!aa); n.aa = !!aa; }
      if (style !== n.style) { p.setStyle(style ? CK.PaintStyle.Stroke : CK.PaintStyle.Fill); n.style = style; }
      return p;
    },
  },

  ck_canvas_screen__deps: ['$TK'],
  ck_canvas_screen: function (w, h) {
    const surface = Module.screen(w, h);
    if (!surface) return 0;
    TK.objs[1] = { surface: surface, canvas: surface.getCanvas(), screen: true };
    return 1;
  },
  ck_canvas_new__deps: ['$TK'],
  ck_canvas_new: function (w, h) {
    const surface = TK.ck().MakeSurface(Math.max(w, 1), Math.max(h, 1));
    if (!surface) return 0;
    return TK.put({ surface: surface, canvas: surface.getCanvas() });
  },
  ck_canvas_free__deps: ['$TK'],
  ck_canvas_free: function (id) {
    const o = TK.drop(id);
    if (o && !o.screen) o.surface.delete();
  },
  ck_canvas_read__deps: ['$TK'],
  ck_canvas_read: function (id, ptr, stride, w, h) {
    const CK = TK.ck(), o = TK.objs[id];
    if (!o) return;
    o.surface.flush();
    // (CanvasKit reads RGBA only; cairo keeps native-endian 0xAARRGGBB words, that is B, G, R, A bytes)
    const px = o.canvas.readPixels(0, 0, {
      width: w, height: h, colorType: CK.ColorType.RGBA_8888, alphaType: CK.AlphaType.Premul, colorSpace: CK.ColorSpace.SRGB,
    });
    if (!px) return;
    for (let y = 0; y < h; y++) {
      let i = y * w * 4, k = ptr + y * stride;
      for (let x = 0; x < w; x++, i += 4, k += 4) {
        HEAPU8[k] = px[i + 2]; HEAPU8[k + 1] = px[i + 1]; HEAPU8[k + 2] = px[i]; HEAPU8[k + 3] = px[i + 3];
      }
    }
  },
  ck_present__deps: ['$TK'],
  ck_present: function (id) { const o = TK.objs[id]; if (o) o.surface.flush(); },
  ck_save__deps: ['$TK'],
  ck_save: function (id) { const c = TK.canvas(id); if (c) c.save(); },
  ck_restore__deps: ['$TK'],
  ck_restore: function (id) { const c = TK.canvas(id); if (c) c.restore(); },

  ck_path__deps: ['$TK'],
  ck_path: function (verbs, n, pts) {
    const CK = TK.ck();
    const cmds = [];
    let k = pts >> 2;
    for (let i = 0; i < n; i++) {
      switch (HEAPU8[verbs + i]) {
      case 0: cmds.push(CK.MOVE_VERB, HEAPF32[k], HEAPF32[k + 1]); k += 2; break;
      case 1: cmds.push(CK.LINE_VERB, HEAPF32[k], HEAPF32[k + 1]); k += 2; break;
      case 2: cmds.push(CK.CUBIC_VERB, HEAPF32[k], HEAPF32[k + 1], HEAPF32[k + 2], HEAPF32[k + 3], HEAPF32[k + 4], HEAPF32[k + 5]); k += 6; break;
      default: cmds.push(CK.CLOSE_VERB); break;
      }
    }
    if (TK.path) TK.path.delete();
    TK.path = CK.Path.MakeFromCmds(cmds);
  },
  ck_fill__deps: ['$TK'],
  ck_fill: function (id, rgba, shader, aa) {
    const c = TK.canvas(id);
    if (!c || !TK.path) return;
    c.drawPath(TK.path, TK.getPaint(rgba, shader, aa, 0)); // (MakeFromCmds paths wind: cairo's default rule)
  },
  ck_stroke__deps: ['$TK'],
  ck_stroke: function (id, rgba, shader, aa, width, cap, join, dash, nDash, dashOffset) {
    const CK = TK.ck(), c = TK.canvas(id);
    if (!c || !TK.path) return;
    const p = TK.getPaint(rgba, shader, aa, 1);
    p.setStrokeWidth(width);
    p.setStrokeCap([CK.StrokeCap.Butt, CK.StrokeCap.Round, CK.StrokeCap.Square][cap] || CK.StrokeCap.Butt);
    p.setStrokeJoin([CK.StrokeJoin.Miter, CK.StrokeJoin.Round, CK.StrokeJoin.Bevel][join] || CK.StrokeJoin.Miter);
    p.setStrokeMiter(10); // cairo's default
    let effect = null;
    if (nDash > 0) {
      let d = Array.from(TK.floats(dash, nDash));
      if (d.length % 2) d = d.concat(d); // cairo repeats an odd list
      effect = CK.PathEffect.MakeDash(d, dashOffset);
      p.setPathEffect(effect);
    }
    c.drawPath(TK.path, p);
    if (effect) { p.setPathEffect(null); effect.delete(); }
  },
  ck_clip__deps: ['$TK'],
  ck_clip: function (id, aa) {
    const c = TK.canvas(id);
    if (c && TK.path) c.clipPath(TK.path, TK.ck().ClipOp.Intersect, !!aa);
  },
  ck_fill_rect__deps: ['$TK'],
  ck_fill_rect: function (id, x0, y0, x1, y1, rgba, aa) {
    const c = TK.canvas(id);
    if (!c) return;
    c.drawRect4f(x0, y0, x1, y1, TK.getPaint(rgba, 0, aa, 0));
  },
  ck_clip_rect__deps: ['$TK'],
  ck_clip_rect: function (id, x0, y0, x1, y1, aa) {
    const c = TK.canvas(id);
    if (c) c.clipRect(TK.ck().LTRBRect(x0, y0, x1, y1), TK.ck().ClipOp.Intersect, !!aa);
  },
  ck_paint__deps: ['$TK'],
  ck_paint: function (id, rgba, shader) {
    const c = TK.canvas(id);
    if (!c) return;
    c.drawPaint(TK.getPaint(rgba, shader, 1, 0));
  },

  ck_image_new__deps: ['$TK'],
  ck_image_new: function (data, w, h, stride, opaque) {
    const CK = TK.ck(), px = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) { // cairo's B, G, R, A bytes as R, G, B, A (RGB24: the top byte is not alpha)
      let i = y * w * 4, k = data + y * stride;
      for (let x = 0; x < w; x++, i += 4, k += 4) {
        px[i] = HEAPU8[k + 2]; px[i + 1] = HEAPU8[k + 1]; px[i + 2] = HEAPU8[k]; px[i + 3] = opaque ? 255 : HEAPU8[k + 3];
      }
    }
    const img = CK.MakeImage({
      width: w, height: h, colorType: CK.ColorType.RGBA_8888,
      alphaType: opaque ? CK.AlphaType.Opaque : CK.AlphaType.Premul, colorSpace: CK.ColorSpace.SRGB,
    }, px, w * 4);
    return img ? TK.put(img) : 0;
  },
  ck_image_free__deps: ['$TK'],
  ck_image_free: function (id) { const o = TK.drop(id); if (o) o.delete(); },
  ck_shader_image__deps: ['$TK'],
  ck_shader_image: function (image, m6, nearest) {
    const CK = TK.ck(), img = TK.objs[image];
    if (!img) return 0;
    const sh = img.makeShaderOptions(CK.TileMode.Decal, CK.TileMode.Decal, nearest ? CK.FilterMode.Nearest : CK.FilterMode.Linear,
                                     nearest ? CK.MipmapMode.None : CK.MipmapMode.Linear, TK.matrix(TK.floats(m6, 6)));
    return sh ? TK.put(sh) : 0;
  },
  ck_shader_linear__deps: ['$TK'],
  ck_shader_linear: function (x0, y0, x1, y1, stops, n) {
    const CK = TK.ck(), f = TK.floats(stops, 4 * n), colors = [], pos = [];
    for (let i = 0; i < n; i++) { pos.push(f[4 * i]); colors.push(CK.Color4f(f[4 * i + 1], f[4 * i + 2], f[4 * i + 3], 1)); }
    if (n === 1) { pos.push(1); colors.push(colors[0]); }
    const sh = CK.Shader.MakeLinearGradient([x0, y0], [x1, y1], colors, pos, CK.TileMode.Clamp);
    return sh ? TK.put(sh) : 0;
  },
  ck_shader_free__deps: ['$TK'],
  ck_shader_free: function (id) {
    const o = TK.drop(id);
    if (o) o.delete();
    if (TK.now.shader === id) { TK.paint.setShader(null); TK.now.shader = 0; } // (its id may come back as another shader)
  },

  // ---------------------------------------------------------------- paragraphs
  ck_par_clear__deps: ['$TK'],
  ck_par_clear: function () { // (text.c's table of paragraphs is full: it starts again)
    for (let id = 2; id < TK.objs.length; id++) {
      const o = TK.objs[id];
      if (o && o.isParagraph) { o.p.delete(); o.subs.forEach((x) => x.p.delete()); TK.drop(id); }
    }
  },
  ck_par_new__deps: ['$TK'],
  ck_par_new: function (textPtr, runsPtr, nRuns, stylePtr) {
    const started = performance.now();
    const CK = TK.ck(), text = UTF8ToString(textPtr);
    const st = TK.floats(stylePtr, 8), runs = TK.floats(runsPtr, 12 * nRuns);
    const width = st[0], maxWidth = st[1], align = st[2], rtl = st[3] > 0, lineHeight = st[4], size = st[5];
    const textStyle = (r) => {
      const flags = r[2];
      const s = {
        color: CK.Color4f(r[5], r[6], r[7], 1),
        fontFamilies: flags & 4 ? TK.MONO : TK.SANS,
        fontSize: r[3],
        fontStyle: { weight: flags & 1 ? CK.FontWeight.Bold : CK.FontWeight.Normal, slant: flags & 2 ? CK.FontSlant.Italic : CK.FontSlant.Upright },
      };
      if (flags & 8) {
        s.decoration = CK.UnderlineDecoration;
        s.decorationColor = CK.Color4f(r[8], r[9], r[10], 1);
        s.decorationThickness = 1;
      }
      return s;
    };
    const ps = {
      textStyle: { fontFamilies: TK.SANS, fontSize: size, color: CK.Color4f(0, 0, 0, 1) },
      textDirection: rtl ? CK.TextDirection.RTL : CK.TextDirection.LTR,
      textAlign: align < 0 ? CK.TextAlign.Left : [CK.TextAlign.Start, CK.TextAlign.Center, CK.TextAlign.End][align],
      applyRoundingHack: false,
    };
    if (lineHeight > 0) {
      ps.strutStyle = { strutEnabled: true, forceStrutHeight: true, fontFamilies: TK.SANS, fontSize: size,
                        heightMultiplier: lineHeight / size, halfLeading: true };
    }
    if (maxWidth > 0) { ps.maxLines = 1; ps.ellipsis = '\u2026'; }
    const b = CK.ParagraphBuilder.MakeFromFontProvider(new CK.ParagraphStyle(ps), Module.fonts);
    const subs = []; // runs raised or lowered (<span rise>): drawn apart, in a placeholder's place
    for (let i = 0; i < nRuns; i++) {
      const r = runs.subarray(12 * i, 12 * i + 12);
      let s = text.substring(r[0], r[1]);
      if (r[2] & 16) s = s.replace(/ /g, '\u00a0'); // a piece that never breaks
      if (r[4] !== 0) {
        const sb = CK.ParagraphBuilder.MakeFromFontProvider(new CK.ParagraphStyle({ textStyle: textStyle(r), applyRoundingHack: false }), Module.fonts);
        sb.pushStyle(new CK.TextStyle(textStyle(r)));
        sb.addText(s);
        const sp = sb.build();
        sb.delete();
        sp.layout(1e6);
        const w = sp.getMaxIntrinsicWidth(), base = sp.getAlphabeticBaseline();
        b.addPlaceholder(w, sp.getHeight(), CK.PlaceholderAlignment.Baseline, CK.TextBaseline.Alphabetic, base);
        subs.push({ p: sp, rise: r[4], base: base });
        continue;
      }
      b.pushStyle(new CK.TextStyle(textStyle(r)));
      b.addText(s);
      b.pop();
    }
    const p = b.build();
    b.delete();
    if (width > 0) p.layout(width);
    else if (maxWidth > 0) p.layout(maxWidth);
    else p.layout(1e6);
    if (subs.length) {
      const rects = p.getRectsForPlaceholders();
      subs.forEach((s, i) => {
        const r = rects[i] ? rects[i].rect || rects[i] : [0, 0, 0, 0];
        s.x = r[0];
        s.y = r[1] - s.rise;
      });
    }
    // its measures, read once (each is a call into CanvasKit, and text.c asks for them every frame)
    const lines = p.getLineMetrics(), lf = new Float32Array(3 * lines.length);
    lines.forEach((l, i) => { lf[3 * i] = l.startIndex; lf[3 * i + 1] = l.left; lf[3 * i + 2] = l.width; });
    const id = TK.put({ p: p, subs: subs, isParagraph: true, lines: lf, end: lines.reduce((a, l) => Math.max(a, l.endIndex), 0),
                        m: [p.getMaxWidth(), p.getHeight(), p.getLongestLine(), lines.length, p.getMaxIntrinsicWidth()] });
    if (Module.textStats) { Module.textStats.ms += performance.now() - started; Module.textStats.made++; }
    return id;
  },
  ck_par_draw__deps: ['$TK'],
  ck_par_draw: function (canvas, id, m6) {
    const c = TK.canvas(canvas), o = TK.objs[id];
    if (!c || !o) return;
    const m = TK.floats(m6, 6);
    if (m[0] === 1 && m[1] === 0 && m[2] === 0 && m[3] === 1) { // moved only: no transformation to set
      c.drawParagraph(o.p, m[4], m[5]);
      for (const s of o.subs) c.drawParagraph(s.p, m[4] + s.x, m[5] + s.y);
      return;
    }
    c.save();
    c.concat(TK.matrix(m));
    c.drawParagraph(o.p, 0, 0);
    for (const s of o.subs) c.drawParagraph(s.p, s.x, s.y);
    c.restore();
  },
  ck_par_metrics__deps: ['$TK'],
  ck_par_metrics: function (id, out) {
    const o = TK.objs[id];
    if (o) HEAPF32.set(o.m, out >> 2);
  },
  ck_par_lines__deps: ['$TK'],
  ck_par_lines: function (id, out, max) {
    const o = TK.objs[id];
    if (!o) return 0;
    const n = o.lines.length / 3;
    HEAPF32.set(o.lines.subarray(0, 3 * Math.min(n, max)), out >> 2);
    return n;
  },
  ck_par_index__deps: ['$TK'],
  ck_par_index: function (id, x, y) {
    const o = TK.objs[id];
    return o ? o.p.getGlyphPositionAtCoordinate(x, y).pos : 0;
  },
  ck_par_caret__deps: ['$TK'],
  ck_par_caret: function (id, i, rtl) {
    const CK = TK.ck(), o = TK.objs[id];
    if (!o) return 0;
    const n = o.end;
    if (i < n) {
      const r = o.p.getRectsForRange(i, i + 1, CK.RectHeightStyle.Tight, CK.RectWidthStyle.Tight);
      if (r.length) {
        const rect = r[0].rect || r[0];
        return r[0].dir === CK.TextDirection.RTL || (r[0].dir === undefined && rtl) ? rect[2] : rect[0];
      }
    }
    if (n === 0) return 0;
    const r = o.p.getRectsForRange(n - 1, n, CK.RectHeightStyle.Tight, CK.RectWidthStyle.Tight); // past the end: after the last letter
    if (!r.length) return 0;
    const rect = r[0].rect || r[0];
    return r[0].dir === CK.TextDirection.RTL || (r[0].dir === undefined && rtl) ? rect[0] : rect[2];
  },
});
