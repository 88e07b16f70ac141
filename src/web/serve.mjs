// serve.mjs DIR PORT — serves the static folder DIR on 127.0.0.1:PORT, as
// any static web host would (gzip when the browser takes it), for a try of
// the browser build (make serve) and for its tests. Nothing runs on the
// server: tviz runs in the page.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(process.argv[2] || '.');
const port = Number(process.argv[3] || 8321); // (0: any free port; the line printed names it)
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
                '.json': 'application/json', '.ttf': 'font/ttf', '.data': 'application/octet-stream', '.png': 'image/png' };

const gzipped = new Map(); // file -> [mtime, bytes], so a file is compressed once, as a host would store it

const server = http.createServer((req, res) => {
  let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.join(root, rel);
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found\n');
    return;
  }
  const headers = { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache' };
  const body = fs.readFileSync(file);
  if (/\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
    const mtime = fs.statSync(file).mtimeMs;
    let z = gzipped.get(file);
    if (!z || z[0] !== mtime) gzipped.set(file, z = [mtime, zlib.gzipSync(body, { level: 6 })]);
    headers['Content-Encoding'] = 'gzip';
    res.writeHead(200, headers);
    res.end(z[1]);
  } else {
    res.writeHead(200, headers);
    res.end(body);
  }
});
server.listen(port, '127.0.0.1', () => console.log(`tviz: serving ${root} on http://127.0.0.1:${server.address().port}/`));
