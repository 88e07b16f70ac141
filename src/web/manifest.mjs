// manifest.mjs DIR — prints DIR's manifest.json: the models DIR/models
// ships (name, bytes) and each one's training snapshots, which the page
// fetches only when the learner asks for them.
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(process.argv[2], 'models');
const models = [], snapshots = {};
for (const f of fs.readdirSync(dir).sort()) {
  const p = path.join(dir, f);
  if (f.endsWith('.safetensors')) models.push({ name: f.replace(/\.safetensors$/, ''), bytes: fs.statSync(p).size });
  else if (f.endsWith('.snapshots') && fs.statSync(p).isDirectory())
    snapshots[f.replace(/\.snapshots$/, '')] = fs.readdirSync(p).filter((s) => s.endsWith('.safetensors')).sort();
}
process.stdout.write(JSON.stringify({ format: 'tviz-web/1', models, snapshots }, null, 1) + '\n');
