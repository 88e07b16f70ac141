#!/usr/bin/python3
"""Independent reference for tviz's recurrent models, and their test fixtures.

Run from the repository root with Debian's PyTorch (python3-torch, python3-numpy):

    make lstm-fixtures          # = /usr/bin/python3 tests/ref/make_lstm_fixtures.py

Writes tests/fixtures/lstm/<model>.safetensors (random models of 1 to 3 layers,
with and without reversed source and dot attention), <case>.trace.json for every
case (teacher-forced and greedy), <case>.json (greedy result) and cases.txt.

The model is the one of DESIGN.md "Recurrent models" (Sutskever et al. 2014 §2;
Luong et al. 2015 global dot attention without input feeding): an encoder
torch.nn.LSTM reads the source embeddings (words reversed when reverse_source
is 1, then <eos> when src_append_eos is 1), a decoder torch.nn.LSTM of the same
depth starts from the encoder's final (h, c) of every layer and reads <bos> y1 …;
with attention, scores = h_t · h̄_s over the top encoder layer, weights =
softmax, context = Σ weights h̄_s, h̃ = tanh(W_c [context ; h_t] + b_c); logits =
h̃ (or h_t) Gᵀ + b.  Every stage (gates i, f, g, o, c and h of every layer and
step) is computed by hand in float64 from the file's weights; the hand-written
layers are checked against torch.nn.LSTM itself (float64 and float32: top
layer outputs and the final (h, c) of every layer), so the fixture proves both.
Output is deterministic.
"""
import json, math, os, sys
import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import write_safetensors, read_safetensors, tokenize, lookup, num, softmax_rows, write  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "lstm")

SRC_VOCAB = ["<pad>", "<unk>", "<eos>", "i", "you", "we", "really", "enjoy", "like", "learning",
             "reading", "transformers", "books", "the", "cat", "sleeps", "attention", "is", "all", "need"]
TGT_VOCAB = ["<pad>", "<unk>", "<bos>", "<eos>", "من", "تو", "ما", "واقعاً", "از", "یادگیری", "خواندن",
             "ترنسفورمرها", "کتاب", "گربه", "می‌خوابد", "لذت", "می‌برم", "توجه"]

class Model:
    def __init__(self, path):
        meta, w = read_safetensors(path)
        assert meta["arch"] == "lstm"
        self.path, self.meta, self.w = path, meta, w
        self.E, self.H, self.L = int(meta["embed_dim"]), int(meta["hidden_size"]), int(meta["num_layers"])
        self.attention = meta.get("attention", "none")
        assert self.attention in ("none", "dot")
        self.reverse = meta.get("reverse_source", "0") == "1"
        self.append_eos = meta.get("src_append_eos", "0") == "1"
        self.max_len = int(meta.get("max_len", "64"))
        self.src_vocab = meta["src_vocab"].split("\n")
        self.tgt_vocab = meta["tgt_vocab"].split("\n")

    def config(self):
        return {"arch": "lstm", "embed_dim": self.E, "hidden_size": self.H, "num_layers": self.L,
                "attention": self.attention, "reverse_source": int(self.reverse),
                "src_append_eos": int(self.append_eos), "max_len": self.max_len}

    def layer(self, side, l):
        g = lambda n: self.w[f"{side}.{n}_l{l}"]
        return g("weight_ih"), g("weight_hh"), g("bias_ih"), g("bias_hh")

# ----------------------------------------------------------------- the math, by hand (float64)
def sigmoid(x):
    return 1.0 / (1.0 + torch.exp(-x))

def lstm_layer(x, h0, c0, W_ih, W_hh, b_ih, b_hh):
    """torch.nn.LSTM's formulas, one step at a time: returns i, f, g, o, c, h (X, H) each."""
    H = W_hh.shape[1]
    h, c = h0.clone(), c0.clone()
    out = {k: [] for k in "ifgoch"}
    for t in range(x.shape[0]):
        pre = W_ih @ x[t] + b_ih + W_hh @ h + b_hh
        i, f = sigmoid(pre[:H]), sigmoid(pre[H:2 * H])
        g, o = torch.tanh(pre[2 * H:3 * H]), sigmoid(pre[3 * H:])
        c = f * c + i * g
        h = o * torch.tanh(c)
        for k, v in zip("ifgoch", (i, f, g, o, c, h)):
            out[k].append(v)
    return {k: torch.stack(v) for k, v in out.items()}

class Trace:
    def __init__(self):
        self.stages = []

    def add(self, sid, m):
        self.stages.append((sid, m.clone()))
        return m

def forward(model, src_ids, tgt_ids):
    tr, H, L = Trace(), model.H, model.L
    x = tr.add("src.embed", model.w["src_embed.weight"][src_ids])
    enc_h = []
    finals_h, finals_c = [], []
    zeros = torch.zeros(H, dtype=torch.float64)
    for l in range(L):
        a = lstm_layer(x, zeros, zeros, *model.layer("encoder", l))
        for k in "ifgoch":
            tr.add(f"enc.{l}.{k}", a[k])
        finals_h.append(a["h"][-1])
        finals_c.append(a["c"][-1])
        x = a["h"]
    top_enc = x
    tr.add("enc.final.h", torch.stack(finals_h))
    tr.add("enc.final.c", torch.stack(finals_c))
    y = tr.add("tgt.embed", model.w["tgt_embed.weight"][tgt_ids])
    for l in range(L):
        a = lstm_layer(y, finals_h[l], finals_c[l], *model.layer("decoder", l))
        for k in "ifgoch":
            tr.add(f"dec.{l}.{k}", a[k])
        y = a["h"]
    top_dec = y
    if model.attention == "dot":
        scores = tr.add("dec.attn.scores", top_dec @ top_enc.T)
        weights = tr.add("dec.attn.weights", softmax_rows(scores))
        context = tr.add("dec.attn.context", weights @ top_enc)
        cat = torch.cat([context, top_dec], dim=1)
        y = tr.add("dec.attn.out", torch.tanh(cat @ model.w["attn.combine.weight"].T + model.w["attn.combine.bias"]))
    logits = tr.add("out.logits", y @ model.w["generator.weight"].T + model.w["generator.bias"])
    probs = tr.add("out.probs", softmax_rows(logits))
    check_against_torch(model, src_ids, tgt_ids, top_enc, finals_h, finals_c, top_dec)
    return tr, probs

# ----------------------------------------------------------------- proof against torch.nn.LSTM
def torch_lstm(model, side, dtype):
    lstm = nn.LSTM(model.E, model.H, model.L)
    keys = lstm.state_dict().keys()
    lstm.load_state_dict({k: model.w[f"{side}.{k}"] for k in keys}, strict=True)
    return lstm.to(dtype).eval()

def check_against_torch(model, src_ids, tgt_ids, top_enc, finals_h, finals_c, top_dec):
    fh, fc = torch.stack(finals_h), torch.stack(finals_c)
    for dtype, tol in ((torch.float64, 1e-10), (torch.float32, 1e-5)):
        enc, dec = torch_lstm(model, "encoder", dtype), torch_lstm(model, "decoder", dtype)
        with torch.no_grad():
            xs = model.w["src_embed.weight"][src_ids].to(dtype)[:, None]
            out, (hn, cn) = enc(xs)
            xt = model.w["tgt_embed.weight"][tgt_ids].to(dtype)[:, None]
            dout, _ = dec(xt, (hn, cn))
        errs = [(out[:, 0].double() - top_enc).abs().max().item(), (hn[:, 0].double() - fh).abs().max().item(),
                (cn[:, 0].double() - fc).abs().max().item(), (dout[:, 0].double() - top_dec).abs().max().item()]
        assert max(errs) < tol, f"{model.path}: torch.nn.LSTM {dtype} disagrees with the formulas: {errs}"

# ----------------------------------------------------------------- trace JSON (tviz trace's format)
def trace_json(model, src_tok, tgt_tok, tr):
    js = lambda o: json.dumps(o, ensure_ascii=False)
    lines = ['{"format":"tviz-trace/1",', '"config":' + js(model.config()) + ",",
             '"src_tokens":' + js(src_tok) + ",", '"tgt_tokens":' + js(tgt_tok) + ",", '"stages":[']
    for i, (sid, m) in enumerate(tr.stages):
        s = '{"id":%s,"rows":%d,"cols":%d' % (js(sid), m.shape[0], m.shape[1])
        s += ',"data":[' + ",".join("[" + ",".join(num(v) for v in r) + "]" for r in m.tolist()) + "]}"
        lines.append(s + ("," if i + 1 < len(tr.stages) else ""))
    return "\n".join(lines + ["]}"]) + "\n"

def source(model, src):
    """The source as the encoder reads it: words (reversed when reverse_source), then <eos>."""
    tok, ids = lookup(model.src_vocab, tokenize(src))
    if model.reverse:
        tok, ids = tok[::-1], ids[::-1]
    if model.append_eos:
        tok, ids = tok + ["<eos>"], ids + [model.src_vocab.index("<eos>")]
    return tok, ids

def run(model, src, tgt=None):
    src_tok, src_ids = source(model, src)
    if tgt is not None:
        tgt_tok, tgt_ids = lookup(model.tgt_vocab, tokenize(tgt))
        dec_tok, dec_ids = ["<bos>"] + tgt_tok, [model.tgt_vocab.index("<bos>")] + tgt_ids
        return src_tok, dec_tok, forward(model, src_ids, dec_ids)[0], None
    dec_tok, margin = ["<bos>"], math.inf
    while True:
        tr, probs = forward(model, src_ids, [model.tgt_vocab.index(t) for t in dec_tok])
        if len(dec_tok) >= model.max_len:
            stopped = False
            break
        top2 = torch.topk(probs[-1], 2)
        margin = min(margin, (top2.values[0] - top2.values[1]).item())
        nxt = model.tgt_vocab[int(np.argmax(probs[-1].numpy()))]
        if nxt == "<eos>":
            stopped = True
            break
        dec_tok.append(nxt)
    return src_tok, dec_tok, tr, {"src_tokens": src_tok, "tgt_tokens": dec_tok,
                                  "stopped_on_eos": stopped, "min_top2_margin": margin}

# ----------------------------------------------------------------- the random models
MODELS = {  # name: (seed, embed_dim, hidden_size, num_layers, attention, reverse_source, src_append_eos, max_len)
    "lstm1": (11, 6, 8, 1, "none", 0, 1, 12),
    "lstm2_rev": (12, 5, 7, 2, "none", 1, 1, 10),
    "lstm3_attn_rev": (13, 4, 6, 3, "dot", 1, 1, 10),
    "lstm2_attn": (14, 8, 5, 2, "dot", 0, 0, 9),
}

def make_model(path, seed, E, H, L, attention, reverse, eos, max_len):
    torch.manual_seed(seed)
    enc, dec = nn.LSTM(E, H, L), nn.LSTM(E, H, L)
    with torch.no_grad():  # larger than torch's U(-1/√H, 1/√H), so gates saturate and decoding varies
        for p in list(enc.parameters()) + list(dec.parameters()):
            p.uniform_(-1.2, 1.2)
    tensors = {}
    for side, m in (("encoder", enc), ("decoder", dec)):
        for k, v in m.state_dict().items():
            tensors[f"{side}.{k}"] = v
    if attention == "dot":
        tensors["attn.combine.weight"] = torch.empty(H, 2 * H).uniform_(-1.0, 1.0)
        tensors["attn.combine.bias"] = torch.empty(H).uniform_(-0.5, 0.5)
    tensors["src_embed.weight"] = torch.randn(len(SRC_VOCAB), E)
    tensors["tgt_embed.weight"] = torch.randn(len(TGT_VOCAB), E)
    tensors["generator.weight"] = torch.randn(len(TGT_VOCAB), H) * 1.5
    tensors["generator.bias"] = torch.randn(len(TGT_VOCAB)) * 0.3
    meta = {"arch": "lstm", "embed_dim": str(E), "hidden_size": str(H), "num_layers": str(L),
            "attention": attention, "reverse_source": str(reverse), "src_append_eos": str(eos),
            "max_len": str(max_len), "src_vocab": "\n".join(SRC_VOCAB), "tgt_vocab": "\n".join(TGT_VOCAB)}
    write_safetensors(path, tensors, meta)

CASES = [  # case, model, source, target (None = greedy)
    ("lstm1", "lstm1", "I really enjoy learning transformers", "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم"),
    ("lstm1.greedy", "lstm1", "the cat sleeps", None),
    ("lstm2_rev", "lstm2_rev", "I really enjoy learning transformers", "من از خواندن کتاب لذت می‌برم"),
    ("lstm2_rev.greedy", "lstm2_rev", "we like reading books", None),
    ("lstm3_attn_rev", "lstm3_attn_rev", "I really enjoy learning transformers", "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم"),
    ("lstm3_attn_rev_unk", "lstm3_attn_rev", "The purple cat sleeps", "گربه می‌خوابد"),
    ("lstm3_attn_rev.greedy", "lstm3_attn_rev", "attention is all you need", None),
    ("lstm2_attn", "lstm2_attn", "you like reading the books", "تو از خواندن کتاب لذت"),
    ("lstm2_attn.greedy", "lstm2_attn", "I really enjoy learning transformers", None),
]

def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(OUT, exist_ok=True)
    for name, spec in MODELS.items():
        make_model(os.path.join(OUT, name + ".safetensors"), *spec)
    models = {m: Model(os.path.join(OUT, m + ".safetensors")) for m in MODELS}
    listing = []
    for case, m, src, tgt in CASES:
        src_tok, dec_tok, tr, greedy = run(models[m], src, tgt)
        write(os.path.join(OUT, case + ".trace.json"), trace_json(models[m], src_tok, dec_tok, tr))
        if greedy:
            assert greedy.pop("min_top2_margin") > 1e-3, "greedy argmax too close to a tie for float32"
            write(os.path.join(OUT, case + ".json"), json.dumps(greedy, ensure_ascii=False) + "\n")
        listing.append("\t".join([case, f"tests/fixtures/lstm/{m}.safetensors", src, tgt or ""]))
        print(f"{case}: src {src_tok} -> decoder input {dec_tok}" + (f", stopped_on_eos {greedy['stopped_on_eos']}" if greedy else ""))
    write(os.path.join(OUT, "cases.txt"), "\n".join(listing) + "\n")

if __name__ == "__main__":
    main()
