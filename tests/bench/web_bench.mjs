// web_bench.mjs — make bench: the browser build measured in the same headless
// chromium the tests use, against build/web/ served on 127.0.0.1, each
// figure beside its goal (medians):
//   what a first visit downloads, gzip-compressed as a static host sends it (goal <= 15 MB)
//   navigation to the first frame drawn (goal <= 3 s)
//   a key press to the next frame drawn: en-fa's heatmaps, and the densest views of the base preset (goal <= 50 ms)
//   en-fa's forward pass in WebAssembly against the native build (goal <= 4x slower)
//
//   node tests/bench/web_bench.mjs WEB_DIR BASE_MODEL FORWARD_BIN
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const [webDir, baseModel, forwardBin] = process.argv.slice(2);
const require = createRequire(path.resolve('build/npm/package.json'));
const { chromium } = require('playwright-core');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
              '--disable-component-update', '--disable-sync'];
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const SEED = 'I really enjoy learning transformers';

const server = spawn(process.execPath, ['src/web/serve.mjs', webDir, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => server.kill());
const base = (await new Promise((res) => server.stdout.once('data', res))).toString().match(/http:[^ \n]+/)[0];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });

async function fresh(fragment, viewport, urls) {
  const context = await browser.newContext({ viewport }); // (a new context: an empty cache, a first visit)
  const page = await context.newPage();
  if (urls) page.on('response', (r) => urls.push(r.url()));
  await page.goto(base + (fragment ? '#' + fragment : ''));
  await page.evaluate(() => window.tviz.ready);
  return page;
}

console.log('the browser build (build/web/), in headless chromium ' + (await browser.version()) + ':');

// ------------------------------------------------------------ what a first visit downloads
const urls = [];
let page = await fresh('', { width: 1440, height: 900 }, urls);
let raw = 0, gz = 0;
const files = [];
for (const u of new Set(urls)) {
  const rel = decodeURIComponent(new URL(u).pathname).replace(/^\//, '') || 'index.html';
  const f = path.join(webDir, rel);
  if (!fs.existsSync(f)) continue;
  const body = fs.readFileSync(f), z = zlib.gzipSync(body, { level: 9 }).length;
  raw += body.length;
  gz += z;
  files.push([rel, body.length, z]);
}
files.sort((a, b) => b[2] - a[2]);
console.log(`  a first visit downloads ${files.length} files: ${(gz / 1e6).toFixed(1)} MB gzip-compressed (${(raw / 1e6).toFixed(1)} MB as files); goal <= 15 MB`);
console.log('    the largest: ' + files.slice(0, 5).map((f) => `${f[0]} ${(f[2] / 1e6).toFixed(2)} MB`).join(', '));
await page.context().close();

// ------------------------------------------------------------ navigation to the first frame
const firsts = [];
for (let i = 0; i < 5; i++) {
  page = await fresh('', { width: 1440, height: 900 });
  firsts.push((await page.evaluate(() => window.tviz.state())).first_frame_ms);
  await page.context().close();
}
console.log(`  navigation to the first frame drawn: ${median(firsts).toFixed(0)} ms (median of 5: ${firsts.map((v) => v.toFixed(0)).join(', ')}); goal <= 3000 ms`);

// ------------------------------------------------------------ a key press to the next frame
async function keys(page, list, rounds) {
  const t = [], text = [], frame = [];
  let view = '';
  for (let r = 0; r < rounds; r++)
    for (const k of list) {
      const before = (await page.evaluate(() => window.tviz.timing())).frames;
      await page.keyboard.press(k);
      await page.waitForFunction((n) => window.tviz.timing().frames > n, before, { timeout: 10000 });
      const tm = await page.evaluate(() => window.tviz.timing());
      view = (await page.evaluate(() => window.tviz.state())).view;
      if (r > 0) { t.push(tm.key_to_frame_ms); text.push(tm.text_ms); frame.push(tm.frame_ms); } // (round 0 warms the text cache)
      await page.evaluate(() => new Promise((res) => setTimeout(res, 20)));
    }
  return { ms: median(t), frame: median(frame), text: median(text), view, n: t.length };
}
function say(what, k) {
  console.log(`  ${what} (${k.view}): ${k.ms.toFixed(1)} ms key to frame (median of ${k.n}); drawing ${k.frame.toFixed(1)} ms, ` +
              `of which laying out new text ${k.text.toFixed(1)} ms; goal <= 50 ms`);
}
page = await fresh('model=en-fa&stage=dec.1.cross_attn.head.0.weights', { width: 1440, height: 900 });
say("en-fa's cross-attention heatmaps, heads 1-4", await keys(page, ['Digit2', 'Digit3', 'Digit4', 'Digit1'], 4));
say("en-fa's self-attention heatmaps, N D C", await keys(page, ['KeyN', 'KeyD', 'KeyC'], 4));
await page.context().close();

// the base preset (d_model 512, 8 heads, 6 + 6 layers, d_ff 2048), opened from the disk, at 1920 × 1080
page = await fresh('', { width: 1920, height: 1080 });
await page.setInputFiles('#file', baseModel);
await page.waitForFunction(() => window.tviz.state().model === 'base.safetensors', null, { timeout: 180000 }).catch(async (e) => { console.log('base model:', JSON.stringify(await page.evaluate(() => window.tviz.state())).slice(0, 300)); throw e; });
for (const [what, frag, list] of [
  ['the base preset, all 8 heads', 'stage=enc.0.self_attn.head.0.weights&view=heads', ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown']],
  ['the base preset, lines of all 8 heads', 'stage=enc.0.self_attn.head.0.weights&view=lines-heads', ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown']],
  ['the base preset, every layer and head (grid)', 'stage=enc.0.self_attn.head.0.weights&view=grid', ['KeyD', 'KeyN', 'KeyC']],
  ['the base preset, the FFN hidden layer (6 × 2048)', 'stage=enc.0.ffn.hidden', ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown']],
]) {
  await page.evaluate((f) => { location.hash = f; }, frag);
  const stage = /stage=([^&]*)/.exec(frag)[1]; // (the link opened: its stage shown, decoded greedily first)
  await page.waitForFunction((st) => window.tviz.state().stage === st, stage, { timeout: 180000 });
  await page.waitForTimeout(200);
  say(what, await keys(page, list, 3));
}
await page.context().close();

// ------------------------------------------------------------ the forward pass, WebAssembly against native
page = await fresh('', { width: 1440, height: 900 });
const wasm = await page.evaluate(() => window.tviz.forwardMs(31));
await page.context().close();
const model = path.join(webDir, 'models', 'en-fa.safetensors');
const native1 = Number(execFileSync(forwardBin, [model, SEED, '31'], { env: { ...process.env, OMP_NUM_THREADS: '1' }, encoding: 'utf8' }));
const native = Number(execFileSync(forwardBin, [model, SEED, '31'], { encoding: 'utf8' }));
console.log(`  en-fa's forward pass on "${SEED}" (every stage recorded): WebAssembly ${wasm.toFixed(2)} ms, native ${native.toFixed(2)} ms ` +
            `on two cores, ${native1.toFixed(2)} ms on one (median of 31): ${(wasm / native).toFixed(1)}x and ${(wasm / native1).toFixed(1)}x; goal <= 4x`);

await browser.close();
server.kill();
