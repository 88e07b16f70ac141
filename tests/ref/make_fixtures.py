#!/usr/bin/python3
"""Independent reference implementation of tviz's math, and its test fixtures.

Run from the repository root with Debian's PyTorch (python3-torch, python3-numpy):

    /usr/bin/python3 tests/ref/make_fixtures.py
        trains/builds tests/fixtures/{multihead,plain}.safetensors and writes
        tests/fixtures/<case>.trace.json, <case>.json (greedy result) and cases.txt

    /usr/bin/python3 tests/ref/make_fixtures.py --model PATH --src "..." [--tgt "..."] [--without PARTS] --out FILE
        writes the trace of any model file; without --tgt it decodes greedily and
        traces the forward pass on the final decoder input.

Variants (DESIGN.md "Transformer variants"): a model whose __metadata__ has
norm_first = 1 is pre-LN, checked against torch's own norm_first=True modules;
"without" (in the metadata, or --without, a fourth column of cases.txt) switches
parts off: pe (no positional encoding), scale (scores not divided by sqrt(d_k)),
mask (no causal mask in the decoder), residual (a sublayer's output replaces its
input).  Runs with only pe and mask switched off are checked against torch too
(no PE added to the inputs, no tgt_mask); scale and residual have no torch switch
and rest on the hand computation alone.

The model file and trace format are those of /work/shared/DESIGN.md ("Model file",
"Trace JSON", "Conventions of the math").  Every stage is computed by hand in
float64 from the weights read back from the file, and the result is checked
against torch.nn.Transformer itself (float64 and float32).  Output is
deterministic: same bytes on every run on the same machine.
"""
import argparse, json, math, os, struct, sys, unicodedata
import numpy as np
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

# ----------------------------------------------------------------- safetensors
def write_safetensors(path, tensors, metadata):
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        a = np.ascontiguousarray(t.detach().cpu().numpy().astype("<f4"))
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    h = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", name
        b, e = info["data_offsets"]
        a = np.frombuffer(raw[8 + n + b:8 + n + e], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(a.astype(np.float64))
    return meta, tensors

# ----------------------------------------------------------------- model + tokens
class Model:
    def __init__(self, path):
        meta, w = read_safetensors(path)
        self.path, self.meta, self.w = path, meta, w
        self.C, self.H = int(meta["d_model"]), int(meta["nhead"])
        self.n_enc, self.n_dec = int(meta["num_encoder_layers"]), int(meta["num_decoder_layers"])
        self.F = int(meta["dim_feedforward"])
        self.eps = float(meta.get("layer_norm_eps", "1e-5"))
        es = meta.get("embed_scale", "sqrt")
        self.scale = math.sqrt(self.C) if es == "sqrt" else float(es)
        self.append_eos = meta.get("src_append_eos", "0") == "1"
        self.max_len = int(meta.get("max_len", "64"))
        self.norm_first = meta.get("norm_first", "0") == "1"
        self.without = parse_without(meta.get("without", ""))
        self.src_vocab = meta["src_vocab"].split("\n")
        self.tgt_vocab = meta["tgt_vocab"].split("\n") if "tgt_vocab" in meta else self.src_vocab
        assert "<unk>" in self.src_vocab
        for t in ("<unk>", "<bos>", "<eos>"):
            assert t in self.tgt_vocab, t
        self.E_src = w["src_embed.weight"]
        if "tgt_embed.weight" in w:
            self.E_tgt = w["tgt_embed.weight"]
        else:
            assert self.tgt_vocab == self.src_vocab, "tgt_embed absent needs a shared vocabulary"
            self.E_tgt = self.E_src
        self.G = w.get("generator.weight", self.E_tgt)
        self.G_bias = w.get("generator.bias")
        assert self.E_src.shape == (len(self.src_vocab), self.C)
        assert self.E_tgt.shape == self.G.shape == (len(self.tgt_vocab), self.C)

    def config(self):
        return {"d_model": self.C, "nhead": self.H, "num_encoder_layers": self.n_enc,
                "num_decoder_layers": self.n_dec, "dim_feedforward": self.F,
                "layer_norm_eps": self.eps, "embed_scale": self.scale,
                "src_append_eos": int(self.append_eos), "max_len": self.max_len,
                "norm_first": int(self.norm_first)}

    def p(self, prefix):  # parameters under a prefix, prefix stripped
        return {k[len(prefix):]: v for k, v in self.w.items() if k.startswith(prefix)}

PARTS = ("pe", "scale", "mask", "residual")

def parse_without(text):
    parts = {p.strip() for p in text.replace(",", " ").split() if p.strip() and p.strip() != "none"}
    assert parts <= set(PARTS), f"unknown parts {parts - set(PARTS)}"
    return parts

def tokenize(sentence):
    """White space splits; each punctuation character (Unicode category P*) is its own token."""
    out = []
    for chunk in sentence.split():
        word = ""
        for ch in chunk:
            if unicodedata.category(ch).startswith("P"):
                if word:
                    out.append(word)
                out.append(ch)
                word = ""
            else:
                word += ch
        if word:
            out.append(word)
    return out

def lookup(vocab, tokens):
    """Token as written, then lower-cased, else <unk>.  Returns (shown tokens, ids)."""
    shown = [t if t in vocab else t.lower() if t.lower() in vocab else "<unk>" for t in tokens]
    return shown, [vocab.index(t) for t in shown]

# ----------------------------------------------------------------- the math
def positional_encoding(T, C, dtype=torch.float64):
    pe = torch.zeros(T, C, dtype=torch.float64)
    pos = torch.arange(T, dtype=torch.float64)
    for i in range(0, C, 2):
        ang = pos / (10000.0 ** (i / C))
        pe[:, i] = torch.sin(ang)
        if i + 1 < C:
            pe[:, i + 1] = torch.cos(ang)
    return pe.to(dtype)

def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b

def softmax_rows(x):
    """Row softmax; -inf cells give 0 and a fully masked row gives zeros."""
    out = torch.zeros_like(x)
    for r in range(x.shape[0]):
        m = x[r].max()
        if m == -math.inf:
            continue
        e = torch.exp(x[r] - m)
        out[r] = e / e.sum()
    return out

class Trace:
    def __init__(self):
        self.stages = []

    def add(self, sid, m, rows=None, cols=None):
        self.stages.append((sid, m.clone(), rows, cols))
        return m

def attention(tr, pfx, xq, xkv, p, H, causal, qlab, klab, scaled=True):
    C = xq.shape[1]
    D = C // H
    W, b = p["in_proj_weight"], p["in_proj_bias"]
    q = tr.add(pfx + ".q", xq @ W[:C].T + b[:C], qlab)
    k = tr.add(pfx + ".k", xkv @ W[C:2 * C].T + b[C:2 * C], klab)
    v = tr.add(pfx + ".v", xkv @ W[2 * C:].T + b[2 * C:], klab)
    heads = []
    for h in range(H):
        s = slice(h * D, (h + 1) * D)
        hp = f"{pfx}.head.{h}"
        scores = tr.add(hp + ".scores", q[:, s] @ k[:, s].T, qlab, klab)
        sc = tr.add(hp + ".scaled", scores / math.sqrt(D) if scaled else scores.clone(), qlab, klab)
        masked = sc.clone()
        if causal:
            masked[torch.ones_like(masked, dtype=torch.bool).triu(1)] = -math.inf
        tr.add(hp + ".masked", masked, qlab, klab)
        weights = tr.add(hp + ".weights", softmax_rows(masked), qlab, klab)
        heads.append(tr.add(hp + ".out", weights @ v[:, s], qlab))
    concat = tr.add(pfx + ".concat", torch.cat(heads, dim=1), qlab)
    return tr.add(pfx + ".out", concat @ p["out_proj.weight"].T + p["out_proj.bias"], qlab)

def ffn(tr, pfx, x, p, lab):
    hidden = tr.add(pfx + ".ffn.hidden", torch.relu(x @ p["linear1.weight"].T + p["linear1.bias"]), lab)
    return tr.add(pfx + ".ffn.out", hidden @ p["linear2.weight"].T + p["linear2.bias"], lab)

def embed(tr, side, model, E, ids, lab, with_pe=True):
    e = tr.add(side + ".embed", E[ids] * model.scale, lab)
    pe = positional_encoding(len(ids), model.C)
    pe = tr.add(side + ".pe", pe if with_pe else torch.zeros_like(pe), lab)
    return tr.add(side + ".input", e + pe, lab)

def sublayer(tr, pf, k, x, norm, sub, lab, model, without):
    """One sublayer with its residual connection and LayerNorm k.
    post-LN (the paper):  add_k = x + Sublayer(x);  norm_k = LayerNorm(add_k), what the next reads
    pre-LN (norm_first):  pre_norm_k = LayerNorm(x);  add_k = x + Sublayer(pre_norm_k), what the next reads
    without residual, add_k is Sublayer(...) alone."""
    ln = lambda v: layer_norm(v, norm["weight"], norm["bias"], model.eps)
    res = "residual" not in without
    if model.norm_first:
        n = tr.add(f"{pf}.pre_norm{k}", ln(x), lab)
        return tr.add(f"{pf}.add{k}", x + sub(n) if res else sub(n), lab)
    a = tr.add(f"{pf}.add{k}", x + sub(x) if res else sub(x), lab)
    return tr.add(f"{pf}.norm{k}", ln(a), lab)

def forward(model, src_tok, src_ids, tgt_tok, tgt_ids, without=frozenset()):
    tr, H = Trace(), model.H
    scaled, causal, pe = "scale" not in without, "mask" not in without, "pe" not in without
    norm = lambda p, k: {"weight": p[f"norm{k}.weight"], "bias": p[f"norm{k}.bias"]}
    x = src_in = embed(tr, "src", model, model.E_src, src_ids, src_tok, pe)
    for l in range(model.n_enc):
        p, pf, pa = model.p(f"encoder.layers.{l}."), f"enc.{l}", model.p(f"encoder.layers.{l}.self_attn.")
        x = sublayer(tr, pf, 1, x, norm(p, 1), lambda v: attention(tr, pf + ".self_attn", v, v, pa, H, False, src_tok, src_tok, scaled),
                     src_tok, model, without)
        x = sublayer(tr, pf, 2, x, norm(p, 2), lambda v: ffn(tr, pf, v, p, src_tok), src_tok, model, without)
    if "encoder.norm.weight" in model.w:
        x = tr.add("enc.norm", layer_norm(x, model.w["encoder.norm.weight"], model.w["encoder.norm.bias"], model.eps), src_tok)
    memory = x
    y = tgt_in = embed(tr, "tgt", model, model.E_tgt, tgt_ids, tgt_tok, pe)
    for l in range(model.n_dec):
        p, pf = model.p(f"decoder.layers.{l}."), f"dec.{l}"
        ps, pc = model.p(f"decoder.layers.{l}.self_attn."), model.p(f"decoder.layers.{l}.multihead_attn.")
        y = sublayer(tr, pf, 1, y, norm(p, 1), lambda v: attention(tr, pf + ".self_attn", v, v, ps, H, causal, tgt_tok, tgt_tok, scaled),
                     tgt_tok, model, without)
        y = sublayer(tr, pf, 2, y, norm(p, 2), lambda v: attention(tr, pf + ".cross_attn", v, memory, pc, H, False, tgt_tok, src_tok, scaled),
                     tgt_tok, model, without)
        y = sublayer(tr, pf, 3, y, norm(p, 3), lambda v: ffn(tr, pf, v, p, tgt_tok), tgt_tok, model, without)
    if "decoder.norm.weight" in model.w:
        y = tr.add("dec.norm", layer_norm(y, model.w["decoder.norm.weight"], model.w["decoder.norm.bias"], model.eps), tgt_tok)
    logits = y @ model.G.T + (model.G_bias if model.G_bias is not None else 0)
    tr.add("out.logits", logits, tgt_tok, model.tgt_vocab)
    probs = tr.add("out.probs", softmax_rows(logits), tgt_tok, model.tgt_vocab)
    if not without & {"scale", "residual"}:  # torch has no switch for these two
        check_against_torch(model, src_in, tgt_in, memory, y, causal)
    return tr, probs

# ----------------------------------------------------------------- proof against torch
def torch_transformer(model, dtype):
    def enc_layer():
        return nn.TransformerEncoderLayer(model.C, model.H, model.F, dropout=0.0, layer_norm_eps=model.eps,
                                          batch_first=True, norm_first=model.norm_first)
    def dec_layer():
        return nn.TransformerDecoderLayer(model.C, model.H, model.F, dropout=0.0, layer_norm_eps=model.eps,
                                          batch_first=True, norm_first=model.norm_first)
    enc_norm = nn.LayerNorm(model.C, eps=model.eps) if "encoder.norm.weight" in model.w else None
    dec_norm = nn.LayerNorm(model.C, eps=model.eps) if "decoder.norm.weight" in model.w else None
    tf = nn.Transformer(model.C, model.H, dropout=0.0, batch_first=True,
                        custom_encoder=nn.TransformerEncoder(enc_layer(), model.n_enc, norm=enc_norm),
                        custom_decoder=nn.TransformerDecoder(dec_layer(), model.n_dec, norm=dec_norm))
    keys = tf.state_dict().keys()
    tf.load_state_dict({k: model.w[k] for k in keys}, strict=True)
    return tf.to(dtype).eval()

def check_against_torch(model, src_in, tgt_in, memory, y, causal=True):
    T = tgt_in.shape[0]
    mask = torch.triu(torch.full((T, T), -math.inf, dtype=torch.float64), 1)
    for dtype, tol in ((torch.float64, 1e-10), (torch.float32, 1e-5)):
        tf = torch_transformer(model, dtype)
        with torch.no_grad():
            s, t = src_in.to(dtype)[None], tgt_in.to(dtype)[None]
            mem = tf.encoder(s)[0]
            out = tf(s, t, tgt_mask=mask.to(dtype) if causal else None)[0]
        e1 = (mem.double() - memory).abs().max().item()
        e2 = (out.double() - y).abs().max().item()
        assert e1 < tol and e2 < tol, f"{model.path}: torch {dtype} disagrees: memory {e1:.3g}, decoder {e2:.3g}"

# ----------------------------------------------------------------- trace JSON
def num(x):
    if x == -math.inf:
        return "null"
    assert math.isfinite(x), x
    return "%.9g" % x

def trace_json(model, src_tok, tgt_tok, tr, without=frozenset()):
    js = lambda o: json.dumps(o, ensure_ascii=False)
    lines = ['{"format":"tviz-trace/1",', '"config":' + js(model.config()) + ",",
             '"without":' + js([p for p in PARTS if p in without]) + ",",
             '"src_tokens":' + js(src_tok) + ",", '"tgt_tokens":' + js(tgt_tok) + ",", '"stages":[']
    for i, (sid, m, rows, cols) in enumerate(tr.stages):
        s = '{"id":%s,"rows":%d,"cols":%d' % (js(sid), m.shape[0], m.shape[1])
        if rows is not None:
            s += ',"row_labels":' + js(rows)
        if cols is not None:
            s += ',"col_labels":' + js(cols)
        s += ',"data":[' + ",".join("[" + ",".join(num(v) for v in r) + "]" for r in m.tolist()) + "]}"
        lines.append(s + ("," if i + 1 < len(tr.stages) else ""))
    return "\n".join(lines + ["]}"]) + "\n"

def run(model, src, tgt=None, without=frozenset()):
    """Returns (src tokens, decoder tokens, trace, greedy info or None)."""
    without = frozenset(without) | model.without
    src_tok, src_ids = lookup(model.src_vocab, tokenize(src))
    if model.append_eos:
        src_tok, src_ids = src_tok + ["<eos>"], src_ids + [model.src_vocab.index("<eos>")]
    if tgt is not None:
        tgt_tok, tgt_ids = lookup(model.tgt_vocab, tokenize(tgt))
        dec_tok, dec_ids = ["<bos>"] + tgt_tok, [model.tgt_vocab.index("<bos>")] + tgt_ids
        return src_tok, dec_tok, forward(model, src_tok, src_ids, dec_tok, dec_ids, without)[0], None
    dec_tok, margin = ["<bos>"], math.inf
    while True:
        tr, probs = forward(model, src_tok, src_ids, dec_tok, [model.tgt_vocab.index(t) for t in dec_tok], without)
        if len(dec_tok) >= model.max_len:
            stopped = False
            break
        top2 = torch.topk(probs[-1], 2)
        margin = min(margin, (top2.values[0] - top2.values[1]).item())
        nxt = model.tgt_vocab[int(np.argmax(probs[-1].numpy()))]  # first index on ties
        if nxt == "<eos>":
            stopped = True
            break
        dec_tok.append(nxt)
    return src_tok, dec_tok, tr, {"src_tokens": src_tok, "tgt_tokens": dec_tok,
                                  "stopped_on_eos": stopped, "min_top2_margin": margin}

# ----------------------------------------------------------------- fixture models
DETS = {"the": ("le", "la"), "a": ("un", "une")}
NOUNS = {"cat": ("chat", 0), "dog": ("chien", 0), "horse": ("cheval", 0),
         "house": ("maison", 1), "car": ("voiture", 1), "flower": ("fleur", 1)}
ADJS = {"red": ("rouge", "rouge"), "black": ("noir", "noire"), "green": ("vert", "verte"),
        "white": ("blanc", "blanche"), "blue": ("bleu", "bleue")}
VERBS = {"sleeps": "dort", "eats": "mange", "runs": "court", "sings": "chante", "falls": "tombe"}

def toy_pairs():
    """English 'det [adj] noun verb' -> French 'det noun [adj] verb' with gender agreement."""
    pairs = []
    for d, (dm, df) in DETS.items():
        for n, (fn, fem) in NOUNS.items():
            for a in [None] + list(ADJS):
                for v, fv in VERBS.items():
                    en = [d] + ([a] if a else []) + [n, v]
                    fr = [df if fem else dm, fn] + ([ADJS[a][fem]] if a else []) + [fv]
                    pairs.append((en, fr))
    return pairs

def randomize_norms_and_biases(module, gen_std=0.1):
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.uniform_(0.6, 1.4)
            elif name.endswith("bias"):
                p.normal_(0.0, gen_std)

def export(path, tf, extra, meta):
    tensors = dict(tf.state_dict())
    tensors.update(extra)
    write_safetensors(path, tensors, meta)

def make_multihead(path, norm_first=False, seed=20240601):
    torch.manual_seed(seed)
    pairs = toy_pairs()
    src_vocab = ["<unk>"] + list(DETS) + list(ADJS) + list(NOUNS) + list(VERBS)
    tgt_vocab = ["<unk>", "<bos>", "<eos>"] + sorted({w for _, fr in pairs for w in fr})
    C = 16
    tf = nn.Transformer(C, 4, 2, 2, 32, dropout=0.1, batch_first=True, norm_first=norm_first)
    randomize_norms_and_biases(tf)
    src_embed, tgt_embed = nn.Embedding(len(src_vocab), C), nn.Embedding(len(tgt_vocab), C)
    generator = nn.Linear(C, len(tgt_vocab))
    params = list(tf.parameters()) + list(src_embed.parameters()) + list(tgt_embed.parameters()) + list(generator.parameters())
    groups = {}  # no padding needed: batch sentences of equal length together
    for en, fr in pairs:
        g = groups.setdefault(len(en), ([], [], []))
        g[0].append([src_vocab.index(w) for w in en])
        g[1].append([tgt_vocab.index(w) for w in ["<bos>"] + fr])
        g[2].append([tgt_vocab.index(w) for w in fr + ["<eos>"]])
    groups = [tuple(torch.tensor(x) for x in g) for _, g in sorted(groups.items())]

    def logits(src, tgt_in):
        S, T = src.shape[1], tgt_in.shape[1]
        s = src_embed(src) * math.sqrt(C) + positional_encoding(S, C, torch.float32)
        t = tgt_embed(tgt_in) * math.sqrt(C) + positional_encoding(T, C, torch.float32)
        return generator(tf(s, t, tgt_mask=tf.generate_square_subsequent_mask(T)))

    opt = torch.optim.Adam(params, lr=5e-3)
    tf.train()
    for step in range(600):
        src, tgt_in, tgt_out = groups[step % len(groups)]
        idx = torch.randint(0, src.shape[0], (48,))
        loss = nn.functional.cross_entropy(logits(src[idx], tgt_in[idx]).reshape(-1, len(tgt_vocab)), tgt_out[idx].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    tf.eval()
    with torch.no_grad():
        right = total = 0
        for src, tgt_in, tgt_out in groups:
            right += (logits(src, tgt_in).argmax(-1) == tgt_out).all(-1).sum().item()
            total += src.shape[0]
    print(f"{os.path.basename(path)}: final train loss {loss.item():.4f}, teacher-forced exact sentences {right}/{total}")
    meta = {"d_model": "16", "nhead": "4", "num_encoder_layers": "2", "num_decoder_layers": "2",
            "dim_feedforward": "32", "layer_norm_eps": "1e-05", "embed_scale": "sqrt",
            "src_vocab": "\n".join(src_vocab), "tgt_vocab": "\n".join(tgt_vocab)}
    if norm_first:
        meta["norm_first"] = "1"
    export(path, tf, {"src_embed.weight": src_embed.weight, "tgt_embed.weight": tgt_embed.weight,
                      "generator.weight": generator.weight, "generator.bias": generator.bias}, meta)

PLAIN_VOCAB = ["<unk>", "<bos>", "<eos>", "i", "you", "we", "really", "enjoy", "like", "learning",
               "reading", "transformers", "books", "attention", "is", "all", "need", "the", "cat", "sleeps"]

def make_plain(path):
    torch.manual_seed(37)  # chosen so greedy decoding yields several distinct tokens
    C = 12
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(C, 3, 24, dropout=0.0, batch_first=True), 1, norm=None)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(C, 3, 24, dropout=0.0, batch_first=True), 1, norm=None)
    tf = nn.Transformer(C, 3, batch_first=True, custom_encoder=enc, custom_decoder=dec)
    randomize_norms_and_biases(tf, gen_std=0.2)
    embed = torch.randn(len(PLAIN_VOCAB), C)
    meta = {"d_model": "12", "nhead": "3", "num_encoder_layers": "1", "num_decoder_layers": "1",
            "dim_feedforward": "24", "layer_norm_eps": "1e-05", "embed_scale": "1",
            "src_vocab": "\n".join(PLAIN_VOCAB), "src_append_eos": "1", "max_len": "16"}
    export(path, tf, {"src_embed.weight": embed}, meta)

CASES = [  # case, model, source, target (None = greedy), parts switched off
    ("multihead", "multihead", "the white house falls", "la maison blanche tombe", ""),
    ("multihead_unk", "multihead", "The purple dog eats", "le chien mange", ""),
    ("plain", "plain", "I really enjoy learning transformers", "we like reading books", ""),
    ("multihead.greedy", "multihead", "a black cat sleeps", None, ""),
    ("plain.greedy", "plain", "I really enjoy learning transformers", None, ""),
    # what if? parts switched off (DESIGN.md "Transformer variants")
    ("multihead.without-pe-mask", "multihead", "the white house falls", "la maison blanche tombe", "pe,mask"),
    ("multihead.without-scale-residual", "multihead", "the white house falls", "la maison blanche tombe", "scale,residual"),
    ("plain.greedy.without-scale", "plain", "I really enjoy learning transformers", None, "scale"),
    # pre-LN (norm_first), trained in PyTorch like multihead
    ("prenorm", "prenorm", "a green car runs", "une voiture verte court", ""),
    ("prenorm.greedy", "prenorm", "the blue flower sings", None, ""),
    ("prenorm.without-all", "prenorm", "the blue flower sings", "la fleur bleue chante", "pe,scale,mask,residual"),
]

def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--src")
    ap.add_argument("--tgt")
    ap.add_argument("--out")
    ap.add_argument("--without", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    if args.model:
        assert args.src is not None and args.out, "--model needs --src and --out"
        model = Model(args.model)
        without = parse_without(args.without) | model.without
        src_tok, dec_tok, tr, greedy = run(model, args.src, args.tgt, without)
        write(args.out, trace_json(model, src_tok, dec_tok, tr, without))
        print(f"{args.out}: src {src_tok} tgt {dec_tok}" + (f" greedy {greedy}" if greedy else ""))
        return
    os.makedirs(FIXTURES, exist_ok=True)
    make_multihead(os.path.join(FIXTURES, "multihead.safetensors"))
    make_plain(os.path.join(FIXTURES, "plain.safetensors"))
    make_multihead(os.path.join(FIXTURES, "prenorm.safetensors"), norm_first=True, seed=20250117)
    models = {m: Model(os.path.join(FIXTURES, m + ".safetensors")) for m in ("multihead", "plain", "prenorm")}
    listing = []
    for case, m, src, tgt, without in CASES:
        without = parse_without(without)
        src_tok, dec_tok, tr, greedy = run(models[m], src, tgt, without)
        write(os.path.join(FIXTURES, case + ".trace.json"), trace_json(models[m], src_tok, dec_tok, tr, without))
        if greedy:
            assert greedy.pop("min_top2_margin") > 1e-3, "greedy argmax too close to a tie for float32"
            write(os.path.join(FIXTURES, case + ".json"), json.dumps(greedy, ensure_ascii=False) + "\n")
        listing.append("\t".join([case, f"tests/fixtures/{m}.safetensors", src, tgt or "", ",".join(p for p in PARTS if p in without)]))
        print(f"{case}: src {src_tok} -> decoder input {dec_tok}" + (f", stopped_on_eos {greedy['stopped_on_eos']}" if greedy else ""))
    write(os.path.join(FIXTURES, "cases.txt"), "\n".join(listing) + "\n")

if __name__ == "__main__":
    main()
