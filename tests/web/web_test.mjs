// web_test.mjs — the browser build in a real browser: Debian's chromium,
// driven headless by playwright-core, against build/web/ served on
// 127.0.0.1 (src/web/serve.mjs). What a student or a teacher does: open the
// page, step with keys, type a sentence (English, and Persian as an input
// method or paste gives it), follow a link, save a PNG, open a file that is
// not a model; and what the numbers must be: the trace the desktop's
// `tviz trace` writes, to 1e-5 at every stage.
//
//   node tests/web/web_test.mjs TVIZ WEB_DIR OUT_DIR     (make test-web)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [tviz, webDir, outDir] = process.argv.slice(2);
const require = createRequire(path.resolve('build/npm/package.json'));
const { chromium } = require('playwright-core');
fs.mkdirSync(outDir, { recursive: true });

let passed = 0, failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else { failed++; console.log('FAIL:', what, detail === undefined ? '' : '— ' + detail); }
}

// ------------------------------------------------------------ the server and the browser
const server = spawn(process.execPath, ['src/web/serve.mjs', webDir, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => server.kill());
const base = (await new Promise((res) => server.stdout.once('data', res))).toString().match(/http:[^ \n]+/)[0];
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
                              '--disable-component-update', '--disable-sync'];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

const problems = []; // errors the console shows, and uncaught exceptions
async function open(fragment, viewport = { width: 1440, height: 900 }) {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(base + (fragment ? '#' + fragment : ''));
  await page.evaluate(() => window.tviz.ready);
  return page;
}
const state = (page) => page.evaluate(() => window.tviz.state());
async function press(page, keys) {
  for (const k of keys.split(' ')) {
    await page.keyboard.press(k);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  await page.waitForTimeout(50);
  return state(page);
}
async function waitFor(page, fn, what) {
  try { await page.waitForFunction(fn, null, { timeout: 20000 }); return true; } catch (e) { check(false, what, 'timed out'); return false; }
}
// the page's link followed in place (hashchange), as a teacher's link in the same tab
async function follow(page, fragment) {
  await page.evaluate((f) => { location.hash = f; }, fragment);
  await page.waitForTimeout(300);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  return state(page);
}

// what the desktop build says
const desktop = (args) => execFileSync(tviz, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

// Every stage of two traces, value by value (−∞ as null in both).
function compareTraces(web, native, what) {
  let worst = 0, where = '', same = web.stages.length === native.stages.length;
  check(JSON.stringify(web.src_tokens) === JSON.stringify(native.src_tokens), what + ': source tokens',
        JSON.stringify(web.src_tokens) + ' vs ' + JSON.stringify(native.src_tokens));
  check(JSON.stringify(web.tgt_tokens) === JSON.stringify(native.tgt_tokens), what + ': target tokens',
        JSON.stringify(web.tgt_tokens) + ' vs ' + JSON.stringify(native.tgt_tokens));
  for (let i = 0; same && i < web.stages.length; i++) {
    const a = web.stages[i], b = native.stages[i];
    if (a.id !== b.id || a.rows !== b.rows || a.cols !== b.cols) { same = false; where = a.id + ' / ' + b.id; break; }
    for (let r = 0; r < a.rows; r++)
      for (let c = 0; c < a.cols; c++) {
        const x = a.data[r][c], y = b.data[r][c];
        if ((x === null) !== (y === null)) { worst = Infinity; where = `${a.id}[${r}][${c}] ${x} vs ${y}`; continue; }
        if (x === null) continue;
        const d = Math.abs(x - y);
        if (d > worst) { worst = d; where = `${a.id}[${r}][${c}] ${x} vs ${y}`; }
      }
  }
  check(same, what + ': the same stages', where);
  check(worst <= 1e-5, what + ': every value within 1e-5 of tviz trace', `largest difference ${worst} at ${where}`);
  return worst;
}

// ------------------------------------------------------------ 1. it opens, and draws
let page = await open('');
let s = await state(page);
check(s.first_frame_ms > 0, 'the first frame is drawn', s.first_frame_ms);
check(s.model === 'en-fa' && s.stage === 'src.embed', 'the default model and its first stage', `${s.model} ${s.stage}`);
check(s.translation === desktop(['translate', 'I really enjoy learning transformers']).trim(), 'the default sentence is translated as the desktop does', s.translation);
const shot = path.join(outDir, 'web-en.png');
await page.screenshot({ path: shot });
const colours = Number(execFileSync('convert', [shot, '-format', '%k', 'info:'], { encoding: 'utf8' }));
check(colours > 500, 'the first frame is a picture, not a blank page', `${colours} colours`);

// ------------------------------------------------------------ 2. keys
s = await press(page, 'ArrowRight ArrowRight');
check(s.stage === 'src.input', '→ twice: the encoder input', s.stage);
s = await press(page, 'ArrowLeft');
check(s.stage === 'src.pe', '←: back to the positional encoding', s.stage);
s = await press(page, 'KeyC');
check(s.stage === 'dec.0.cross_attn.head.0.weights', 'C: cross-attention', s.stage);
s = await press(page, 'Digit3');
check(s.head === 2 && s.stage === 'dec.0.cross_attn.head.2.weights', '3: head 3', s.stage);
s = await press(page, 'ArrowUp');
check(s.layer === 1 && s.stage === 'dec.1.cross_attn.head.2.weights', '↑: the same head one layer up', s.stage);
s = await press(page, 'KeyV');
check(s.view === 'lines', 'V: attention as lines', s.view);
check(/view=lines/.test(page.url()) && /stage=dec\.1\.cross_attn\.head\.2\.weights/.test(page.url()), 'the address follows the view', page.url());
const history = await page.evaluate(() => history.length);
check(history <= 2, 'stepping does not fill the history', history);

// ------------------------------------------------------------ 2b. what the window's other keys and the pointer do
await follow(page, 'stage=dec.1.cross_attn.head.2.weights');
let v = (await state(page)).view_rect;
await page.mouse.move(v[0] + v[2] / 2, v[1] + v[3] / 2);
await page.waitForTimeout(100);
s = await state(page);
check(s.hover[0] >= 0 && s.hover[1] >= 0, 'hovering a cell of the heatmap', JSON.stringify(s.hover));
await page.mouse.click(v[0] + v[2] / 2, v[1] + v[3] / 2);
await page.waitForTimeout(100);
s = await state(page);
check(s.pinned[0] === s.hover[0] && s.pinned[1] === s.hover[1], 'a click pins its arithmetic card', JSON.stringify(s.pinned));
// a glossary word of the lesson panel, found by moving over the panel
const pr = s.panel_rect;
let term = '';
for (let y = pr[1] + 20; y < pr[1] + pr[3] - 10 && !term; y += 11)
  for (let x = pr[0] + 10; x < pr[0] + pr[2] - 10 && !term; x += 24) {
    await page.mouse.move(x, y);
    term = (await state(page)).term;
  }
check(term !== '', 'hovering a glossary word of the lesson', term);
for (const [key, test, what] of [
  ['KeyG', (x) => x.view === 'grid', 'G: every layer and head'],
  ['KeyG', (x) => x.view !== 'grid', 'G again: back'],
  ['Digit0', (x) => x.view === 'heads', '0: every head side by side'],
  ['Digit1', (x) => x.view === 'heatmap', '1: head 1 alone'],
  ['KeyK', (x) => x.view === 'top-k', 'K: the most likely next tokens'],
  ['KeyK', (x) => x.view !== 'top-k', 'K again: back'],
  ['KeyQ', (x) => x.check === 1, 'Q: the self-check questions'],
  ['KeyQ', (x) => x.check === 2, 'Q again: their answers'],
  ['KeyP', (x) => x.presentation, 'P: presentation type'],
  ['KeyH', (x) => x.high_contrast, 'H: high contrast'],
  ['F1', (x) => x.help, 'F1: every key'],
  ['Escape', (x) => !x.help, 'Esc: the help goes'],
  ['KeyW', (x) => x.whatif, 'W: the what-if panel'],
  ['Digit1', (x) => x.without === 'pe', 'W, then 1: positional encoding switched off'],
  ['KeyX', (x) => x.view === 'compare', 'X: the stage with and without it'],
]) {
  s = await press(page, key);
  check(test(s), what, `view ${s.view} check ${s.check} without ${s.without} message ${s.message}`);
}
await press(page, 'KeyX Digit1 KeyW KeyP KeyH');
// greedy decoding one token at a time
const whole = (await state(page)).tgt_tokens.length;
s = await press(page, 'BracketLeft BracketLeft');
check(s.tgt_tokens.length === whole - 2, '[ [: two tokens less of the greedy decoding', `${s.tgt_tokens.length} of ${whole}`);
s = await press(page, 'BracketRight');
check(s.tgt_tokens.length === whole - 1, ']: one more', `${s.tgt_tokens.length} of ${whole}`);
await follow(page, 'stage=dec.1.cross_attn.head.2.weights&src=' + encodeURIComponent('I really enjoy learning transformers'));
await follow(page, 'stage=enc.0.ffn.hidden');
v = (await state(page)).view_rect;
await page.mouse.move(v[0] + v[2] / 2, v[1] + v[3] / 2);
await page.mouse.wheel(0, -300);
await page.waitForTimeout(150);
s = await state(page);
check(s.zoom > 1, 'the wheel zooms the 10 × 512 matrix', s.zoom);
await page.mouse.down();
await page.mouse.move(v[0] + v[2] / 2 - 150, v[1] + v[3] / 2, { steps: 5 });
await page.mouse.up();
check(/pan=/.test(page.url()), 'a drag pans it, and the link holds the pan', page.url());
s = await press(page, 'KeyF');
check(s.zoom === 1, 'F: fit again', s.zoom);
s = await press(page, 'F11');
check(s.fullscreen === true, 'F11: fullscreen', s.fullscreen);
s = await press(page, 'F11');
await follow(page, 'stage=src.embed');

// ------------------------------------------------------------ 3. typing a sentence (keys, then an input method's text)
s = await press(page, 'Tab');
check(s.editing === 1, 'Tab: typing the source sentence', s.editing);
await page.keyboard.press('Control+A');
await page.keyboard.type('She reads the book');
s = await press(page, 'Enter');
check(s.src === 'She reads the book' && s.editing === 0, 'a typed sentence is run', s.src);
// a paste into the sentence
await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
s = await press(page, 'Control+KeyC');
await page.waitForTimeout(100);
const copied = await page.evaluate(() => navigator.clipboard.readText());
check(copied === page.url(), 'Ctrl+C copies the address of the view', copied);
await page.evaluate(() => navigator.clipboard.writeText('my sister reads a book'));
await press(page, 'Tab');
await page.keyboard.press('Control+A');
await page.keyboard.press('Control+V');
s = await press(page, 'Enter');
check(s.src === 'my sister reads a book', 'a pasted sentence is run', s.src);
await press(page, 'Tab');
await page.keyboard.press('Control+A');
await page.keyboard.type('She reads the book');
s = await press(page, 'Enter');
check(s.translation === desktop(['translate', 'She reads the book']).trim(), 'its translation is the desktop\'s', s.translation);
const nativeTrace = JSON.parse(desktop(['trace', '--src', 'She reads the book']));
check(JSON.stringify(s.src_tokens) === JSON.stringify(nativeTrace.src_tokens), 'its tokens are the desktop\'s', JSON.stringify(s.src_tokens));
// the target as an input method (or a paste) gives it: whole words at once
s = await press(page, 'Shift+Tab');
check(s.editing === 2, 'Shift+Tab: typing the target sentence', s.editing);
await page.keyboard.insertText('او کتاب را می‌خواند');
s = await press(page, 'Enter');
check(s.tgt === 'او کتاب را می‌خواند', 'Persian from an input method becomes the target', s.tgt);
compareTraces(await page.evaluate(() => window.tviz.trace()),
              JSON.parse(desktop(['trace', '--src', 'She reads the book', '--tgt', 'او کتاب را می‌خواند'])), 'a typed target');

// ------------------------------------------------------------ 4. the numbers are the desktop's
for (const [src, tgt] of [['I really enjoy learning transformers', ''], ['my sister reads a book in the garden', ''],
                          ['Ali sees Sara', 'علی سارا را می‌بیند']]) {
  const frag = 'src=' + encodeURIComponent(src) + (tgt ? '&tgt=' + encodeURIComponent(tgt) : '');
  await follow(page, frag);
  compareTraces(await page.evaluate(() => window.tviz.trace()), JSON.parse(desktop(['trace', '--src', src].concat(tgt ? ['--tgt', tgt] : []))),
                `"${src}"`);
}
await follow(page, 'src=' + encodeURIComponent('Ali sees Sara') + '&without=pe,mask');
compareTraces(await page.evaluate(() => window.tviz.trace()), JSON.parse(desktop(['trace', '--src', 'Ali sees Sara', '--without', 'pe,mask'])),
              'what if? without pe and mask');

// ------------------------------------------------------------ 5. saving the view as PNG
await follow(page, 'stage=dec.1.cross_attn.head.3.weights&src=' + encodeURIComponent('I really enjoy learning transformers'));
const [dl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+KeyS')]);
const png = path.join(outDir, dl.suggestedFilename());
await dl.saveAs(png);
const head = fs.readFileSync(png).subarray(0, 8).toString('hex');
check(head === '89504e470d0a1a0a', 'Ctrl+S downloads a PNG', head);
const size = execFileSync('identify', ['-format', '%w %h %k', png], { encoding: 'utf8' }).split(' ').map(Number);
check(size[0] > 100 && size[1] > 100 && size[2] > 50, 'the PNG decodes to a picture', size.join(' '));
check(dl.suggestedFilename() === 'tviz-dec.1.cross_attn.head.3.weights.png', 'named after its stage', dl.suggestedFilename());
await page.close();

// ------------------------------------------------------------ 6. a link in Persian, mirrored; Arabic
page = await open('model=en-fa&src=' + encodeURIComponent('I really enjoy learning transformers') +
                  '&stage=dec.1.cross_attn.head.3.weights&view=lines&lang=fa');
s = await state(page);
check(s.stage === 'dec.1.cross_attn.head.3.weights' && s.view === 'lines' && s.lang === 'fa', 'a deep link in fa opens its stage and view',
      `${s.stage} ${s.view} ${s.lang}`);
check(s.rtl && s.panel_x < s.nav_x, 'the lesson panel is mirrored (on the left) in Persian', `rtl ${s.rtl} panel ${s.panel_x} nav ${s.nav_x}`);
check(/[\u0600-\u06FF]/.test(s.panel), 'the lesson beside it is Persian', s.panel.slice(0, 80));
check(await page.evaluate(() => document.documentElement.dir) === 'rtl', 'the page around it is right to left too');
await page.screenshot({ path: path.join(outDir, 'web-fa.png') });
s = await press(page, 'KeyL');
check(s.lang === 'ar', 'L: the next language (after fa, back to ar)', s.lang);
s = await press(page, 'KeyL');
check(s.lang === 'en', 'L again: English', s.lang);
await page.selectOption('#lang', 'ar');
await page.waitForTimeout(200);
s = await state(page);
check(s.lang === 'ar' && s.rtl, 'the language menu: Arabic, right to left', `${s.lang} ${s.rtl}`);
check(/[\u0600-\u06FF]/.test(s.message) && /ar/.test(s.message), 'the status line says so in Arabic', s.message);
await page.screenshot({ path: path.join(outDir, 'web-ar.png') });

// ------------------------------------------------------------ 7. models fetched when first needed
s = await press(page, 'KeyR');
if (!s.side_by_side) await waitFor(page, () => window.tviz.state().side_by_side, 'R: the recurrent model is fetched and set beside');
s = await state(page);
check(s.side_by_side, 'R: side by side with a recurrent model', s.message);
s = await press(page, 'KeyR KeyT');
if (!s.snapshots) await waitFor(page, () => window.tviz.state().snapshots > 0, 'T: the training snapshots are fetched');
s = await state(page);
check(s.snapshots >= 2, 'T: the timeline over the training snapshots', s.snapshots);
s = await press(page, 'Comma');
check(/step/.test(page.url()) || s.snapshots >= 2, ', steps back through training', s.message);
// the model menu: another shipped model, named as the menu names it, in the same language
const langBefore = (await state(page)).lang;
await page.selectOption('#model', 'worked-example');
await waitFor(page, () => window.tviz.state().model === 'worked-example', 'the model menu opens worked-example');
s = await state(page);
check(s.lang === langBefore && await page.evaluate(() => document.querySelector('#model').value) === 'worked-example',
      'the model menu: the model named as in the menu, the language kept', `${s.model} ${s.lang}`);
check(/[#&]model=worked-example(&|$)/.test(page.url()), 'its address names it', page.url());
await page.close();

// ------------------------------------------------------------ 8. bad input: one line, in the learner's language, and the view stays
page = await open('stage=src.pe&lang=fa');
for (const [frag, what] of [['stage=enc.9.nothing', 'an unknown stage'], ['model=no-such-model', 'an unknown model'],
                            ['view=spiral', 'an unknown view'], ['src=%E0%A4%', 'broken percent-encoding'],
                            ['src=' + encodeURIComponent('word '.repeat(300)), 'a sentence longer than a link may hold'],
                            ['src=' + encodeURIComponent('a '.repeat(90)), 'a sentence over the model\'s length']]) {
  s = await follow(page, frag);
  check(s.message_is_error && s.message.length > 0 && !/\n/.test(s.message), `${what}: one line says so`, s.message);
  check(/[\u0600-\u06FF]/.test(s.message), `${what}: in Persian`, s.message);
  check(s.stage === 'src.pe', `${what}: the view stays`, s.stage);
}
const notModel = path.join(outDir, 'not-a-model.safetensors');
fs.writeFileSync(notModel, 'this is not a model\n');
await page.setInputFiles('#file', notModel);
await page.waitForTimeout(300);
s = await state(page);
check(s.message_is_error && s.stage === 'src.pe', 'a file that is not a model: said, and the view stays', s.message);
check(/[\u0600-\u06FF]/.test(s.message) && /not-a-model/.test(s.message), 'in Persian, naming the file', s.message);
await page.screenshot({ path: path.join(outDir, 'web-bad-link-fa.png') });
// a model file of the learner's own: it opens, and the view stays in the learner's language
await page.setInputFiles('#file', path.join(webDir, 'models', 'worked-example.safetensors'));
await waitFor(page, () => window.tviz.state().model === 'worked-example.safetensors', 'a model file of ones own opens');
s = await state(page);
check(s.lang === 'fa' && /[\u0600-\u06FF]/.test(s.panel), 'a model file opened: the lesson stays Persian', `${s.lang} ${s.panel.slice(0, 40)}`);
check(/[#&]lang=fa(&|$)/.test(page.url()) && /model=%2Fdata%2Fuser%2Fworked-example\.safetensors/.test(page.url()),
      'its address names the file and keeps the language', page.url());
await page.close();

// (the not-a-model file's reason goes to the console, on purpose: the only error there may be that one)
check(problems.every((p) => /not-a-model\.safetensors/.test(p)), 'no other error in the console', problems.join(' | '));
await browser.close();
server.kill();
console.log(`web: ${passed} passed, ${failed} failed (pictures in ${outDir})`);
process.exit(failed ? 1 : 0);
