#!/usr/bin/python3
"""Tiny MarianMT checkpoints and an independent reference forward, for tviz's tests.

Run from the repository root (Debian: python3-torch, python3-numpy, sentencepiece):

    /usr/bin/python3 tests/ref/make_marian_fixtures.py

writes tests/fixtures/marian/:
    tiny/           a MarianMT checkpoint folder as Hugging Face saves one (config.json,
                    model.safetensors, source.spm, target.spm, vocab.json): 2 + 2 layers,
                    d_model 16, 2 heads, d_ff 32, SiLU ("swish"), random LayerNorm weights
                    and final_logits_bias; the SentencePiece models trained by spm_train
                    on the few lines below (English, Persian, Arabic)
    relu/           the same sizes with activation relu and scale_embedding false
    cases.txt       name<TAB>folder<TAB>source[<TAB>target] (tests/fixture_cases.h's form)
    NAME.trace.json every stage of the forward pass, tviz's trace format
    tokens.tsv      side<TAB>sentence<TAB>pieces (spm_encode, space-separated)<TAB>ids (vocab.json)

The forward pass is written from transformers' modeling_marian.py (MarianEncoderLayer,
MarianDecoderLayer, MarianAttention, MarianSinusoidalPositionalEmbedding, MarianMTModel)
and tokenization_marian.py (MarianTokenizer), in float64, without transformers:
  - positions: position_enc[pos, j] = pos / 10000^(2·(j//2)/d); sin of the even j in the
    first d/2 columns, cos of the odd j in the last d/2 (not interleaved), from position 0
  - embeddings · sqrt(d_model) when scale_embedding; no LayerNorm on them
  - attention: q_proj, k_proj, v_proj, out_proj, each with a bias; scores scaled by
    head_dim^-0.5; the decoder's self-attention causal
  - post-LN: LayerNorm(x + Sublayer(x)), nn.LayerNorm's eps 1e-5
  - FFN: fc2(act(fc1(x))), act from config (swish = SiLU)
  - logits = y · model.shared.weightᵀ + final_logits_bias
  - tokens: a leading ">>xx<<" kept whole, the rest SentencePiece pieces looked up in
    vocab.json (<unk> when absent), "</s>" appended; the decoder starts from
    decoder_start_token_id (the pad token); greedy decoding never picks pad and stops at </s>
The output is deterministic (seeded generators, spm_train with one thread).
"""
import json, math, os, struct, subprocess, sys
import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "marian")

LINES = [
    "I really enjoy learning transformers.",
    "The teacher explains attention to the students.",
    "We translate sentences from English into Arabic and Persian.",
    "Every layer reads the output of the layer below it.",
    "The cat sleeps on the warm window.",
    "Learning is a pleasure when the examples are clear.",
    "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم.",
    "معلم توجه را برای دانشجویان توضیح می‌دهد.",
    "ما جمله‌ها را از انگلیسی به فارسی ترجمه می‌کنیم.",
    "گربه روی پنجره گرم می‌خوابد.",
    "أنا أستمتع حقاً بتعلم المحولات.",
    "يشرح المعلم الانتباه للطلاب.",
    "نترجم الجمل من الإنجليزية إلى العربية.",
    "القطة تنام على النافذة الدافئة.",
]
LANG_TOKENS = [">>ara<<", ">>pes<<"]

# ----------------------------------------------------------------- SentencePiece (Debian's command-line tools)
def spm_train(prefix, lines, vocab_size):
    path = prefix + ".txt"  # (a fixed name: the model keeps its input's path, and the fixtures stay the same bytes)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["spm_train", "--input=" + path, "--model_prefix=" + prefix, "--vocab_size=%d" % vocab_size,
                    "--model_type=unigram", "--character_coverage=1.0", "--hard_vocab_limit=false",
                    "--normalization_rule_name=identity", "--num_threads=1", "--random_seed=1",
                    "--minloglevel=2"], check=True, stderr=subprocess.DEVNULL)
    os.remove(path)

def spm_pieces(model, sentences):
    r = subprocess.run(["spm_encode", "--model=" + model, "--output_format=piece"], input="\n".join(sentences) + "\n",
                       capture_output=True, text=True, check=True)
    return [l.split(" ") if l else [] for l in r.stdout.split("\n")[:len(sentences)]]

def spm_vocab(prefix):
    with open(prefix + ".vocab", encoding="utf-8") as f:
        return [l.split("\t")[0] for l in f.read().split("\n") if l]

# ----------------------------------------------------------------- safetensors
def write_safetensors(path, tensors):
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        a = np.ascontiguousarray(t.detach().numpy().astype("<f4"))
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

def read_safetensors(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    return {k: torch.from_numpy(np.frombuffer(raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                                              dtype="<f4").reshape(v["shape"]).astype(np.float64))
            for k, v in header.items()}

# ----------------------------------------------------------------- the checkpoint
def marian_positions(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight, in float64."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :sentinel] = np.sin(enc[:, 0::2])
    out[:, sentinel:] = np.cos(enc[:, 1::2])
    return torch.from_numpy(out)

def make_checkpoint(folder, act, scale, seed):
    os.makedirs(folder, exist_ok=True)
    src_prefix, tgt_prefix = os.path.join(folder, "source"), os.path.join(folder, "target")
    spm_train(src_prefix, LINES, 120)
    spm_train(tgt_prefix, LINES[6:], 90)
    for p in (src_prefix, tgt_prefix):
        os.replace(p + ".model", p + ".spm")
    # vocab.json as Marian's conversion writes it: </s> 0, <unk> 1, the pieces of both sides, the
    # language tokens, <pad> last
    pieces = []
    for p in spm_vocab(src_prefix) + spm_vocab(tgt_prefix):
        if p not in ("<unk>", "<s>", "</s>") and p not in pieces:
            pieces.append(p)
    for p in (src_prefix, tgt_prefix):
        os.remove(p + ".vocab")
    tokens = ["</s>", "<unk>"] + pieces + LANG_TOKENS + ["<pad>"]
    V = len(tokens)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({t: i for i, t in enumerate(tokens)}, f, ensure_ascii=False, indent=2)
        f.write("\n")
    C, H, F, L, max_pos = 16, 2, 32, 2, 16
    config = {
        "_name_or_path": "tiny-marian", "activation_dropout": 0.0, "activation_function": act,
        "add_bias_logits": False, "add_final_layer_norm": False, "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0, "bad_words_ids": [[V - 1]], "bos_token_id": 0, "classif_dropout": 0.0,
        "classifier_dropout": 0.0, "d_model": C, "decoder_attention_heads": H, "decoder_ffn_dim": F,
        "decoder_layerdrop": 0.0, "decoder_layers": L, "decoder_start_token_id": V - 1, "decoder_vocab_size": V,
        "dropout": 0.1, "encoder_attention_heads": H, "encoder_ffn_dim": F, "encoder_layerdrop": 0.0,
        "encoder_layers": L, "eos_token_id": 0, "forced_eos_token_id": 0, "init_std": 0.02,
        "is_encoder_decoder": True, "max_length": 512, "max_position_embeddings": max_pos,
        "model_type": "marian", "normalize_before": False, "normalize_embedding": False, "num_beams": 4,
        "num_hidden_layers": L, "pad_token_id": V - 1, "scale_embedding": scale,
        "share_encoder_decoder_embeddings": True, "static_position_embeddings": True,
        "transformers_version": "4.22.0.dev0", "use_cache": True, "vocab_size": V,
    }
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *shape, std=0.3: torch.randn(*shape, generator=g, dtype=torch.float64) * std
    t = {}
    shared = rnd(V, C, std=0.5)
    t["model.shared.weight"] = shared
    t["final_logits_bias"] = rnd(1, V, std=0.5)
    for side in ("encoder", "decoder"):
        t["model.%s.embed_tokens.weight" % side] = shared
        t["model.%s.embed_positions.weight" % side] = marian_positions(max_pos, C)
        for l in range(L):
            pre = "model.%s.layers.%d." % (side, l)
            attns = ["self_attn"] + (["encoder_attn"] if side == "decoder" else [])
            for a in attns:
                for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
                    t[pre + a + "." + proj + ".weight"] = rnd(C, C)
                    t[pre + a + "." + proj + ".bias"] = rnd(C, std=0.1)
                t[pre + a + "_layer_norm.weight"] = 1 + rnd(C, std=0.2)
                t[pre + a + "_layer_norm.bias"] = rnd(C, std=0.1)
            t[pre + "fc1.weight"], t[pre + "fc1.bias"] = rnd(F, C), rnd(F, std=0.1)
            t[pre + "fc2.weight"], t[pre + "fc2.bias"] = rnd(C, F), rnd(C, std=0.1)
            t[pre + "final_layer_norm.weight"] = 1 + rnd(C, std=0.2)
            t[pre + "final_layer_norm.bias"] = rnd(C, std=0.1)
    t["lm_head.weight"] = shared
    write_safetensors(os.path.join(folder, "model.safetensors"), t)

# ----------------------------------------------------------------- the tokenizer (MarianTokenizer)
class Checkpoint:
    def __init__(self, folder):
        self.folder = folder
        self.config = json.load(open(os.path.join(folder, "config.json"), encoding="utf-8"))
        self.vocab = json.load(open(os.path.join(folder, "vocab.json"), encoding="utf-8"))
        self.tokens = sorted(self.vocab, key=self.vocab.get)
        self.w = read_safetensors(os.path.join(folder, "model.safetensors"))  # float32 values, as float64
        c = self.config
        self.C, self.H = c["d_model"], c["encoder_attention_heads"]
        self.scale = math.sqrt(self.C) if c["scale_embedding"] else 1.0
        self.act = {"swish": torch.nn.functional.silu, "silu": torch.nn.functional.silu,
                    "relu": torch.relu, "gelu": torch.nn.functional.gelu}[c["activation_function"]]

    def pieces(self, sentence, side):
        """MarianTokenizer._tokenize: remove_language_code, then the side's SentencePiece model."""
        code = []
        if sentence.startswith(">>") and "<<" in sentence:
            end = sentence.find("<<")
            code, sentence = [sentence[:end + 2]], sentence[end + 2:]
        spm = os.path.join(self.folder, "source.spm" if side == 0 else "target.spm")
        return code + spm_pieces(spm, [sentence])[0]

    def ids(self, pieces):
        return [self.vocab.get(p, self.vocab["<unk>"]) for p in pieces]

# ----------------------------------------------------------------- the forward pass (modeling_marian.py)
class Trace:
    def __init__(self):
        self.stages = []

    def add(self, sid, m):
        self.stages.append((sid, m.clone()))
        return m

def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b

def linear(x, w, pre):
    return x @ w[pre + ".weight"].T + w[pre + ".bias"]

def attention(tr, sid, w, pre, xq, xkv, H, causal):
    """MarianAttention (eager): q, k, v projections, softmax(q kᵀ · head_dim^-0.5 + mask) v, out_proj."""
    C = xq.shape[1]
    D = C // H
    q = tr.add(sid + ".q", linear(xq, w, pre + ".q_proj"))
    k = tr.add(sid + ".k", linear(xkv, w, pre + ".k_proj"))
    v = tr.add(sid + ".v", linear(xkv, w, pre + ".v_proj"))
    heads = []
    for h in range(H):
        s = slice(h * D, (h + 1) * D)
        hp = "%s.head.%d" % (sid, h)
        scores = tr.add(hp + ".scores", q[:, s] @ k[:, s].T)
        scaled = tr.add(hp + ".scaled", scores * D ** -0.5)
        masked = scaled.clone()
        if causal:
            masked[torch.ones_like(masked, dtype=torch.bool).triu(1)] = -math.inf
        tr.add(hp + ".masked", masked)
        weights = tr.add(hp + ".weights", torch.softmax(masked, dim=-1))
        heads.append(tr.add(hp + ".out", weights @ v[:, s]))
    concat = tr.add(sid + ".concat", torch.cat(heads, dim=1))
    return tr.add(sid + ".out", linear(concat, w, pre + ".out_proj"))

def embed(tr, side, ck, ids):
    e = tr.add(side + ".embed", ck.w["model.shared.weight"][ids] * ck.scale)
    pe = tr.add(side + ".pe", marian_positions(len(ids), ck.C))
    return tr.add(side + ".input", e + pe)

def forward(ck, src_ids, dec_ids):
    w, H, tr = ck.w, ck.H, Trace()
    x = embed(tr, "src", ck, src_ids)
    for l in range(ck.config["encoder_layers"]):
        pre, sid = "model.encoder.layers.%d." % l, "enc.%d." % l
        a = attention(tr, sid + "self_attn", w, pre + "self_attn", x, x, H, False)
        x = tr.add(sid + "norm1", layer_norm(tr.add(sid + "add1", x + a), w[pre + "self_attn_layer_norm.weight"],
                                             w[pre + "self_attn_layer_norm.bias"]))
        hidden = tr.add(sid + "ffn.hidden", ck.act(linear(x, w, pre + "fc1")))
        f = tr.add(sid + "ffn.out", linear(hidden, w, pre + "fc2"))
        x = tr.add(sid + "norm2", layer_norm(tr.add(sid + "add2", x + f), w[pre + "final_layer_norm.weight"],
                                             w[pre + "final_layer_norm.bias"]))
    memory = x
    y = embed(tr, "tgt", ck, dec_ids)
    for l in range(ck.config["decoder_layers"]):
        pre, sid = "model.decoder.layers.%d." % l, "dec.%d." % l
        a = attention(tr, sid + "self_attn", w, pre + "self_attn", y, y, H, True)
        y = tr.add(sid + "norm1", layer_norm(tr.add(sid + "add1", y + a), w[pre + "self_attn_layer_norm.weight"],
                                             w[pre + "self_attn_layer_norm.bias"]))
        a = attention(tr, sid + "cross_attn", w, pre + "encoder_attn", y, memory, H, False)
        y = tr.add(sid + "norm2", layer_norm(tr.add(sid + "add2", y + a), w[pre + "encoder_attn_layer_norm.weight"],
                                             w[pre + "encoder_attn_layer_norm.bias"]))
        hidden = tr.add(sid + "ffn.hidden", ck.act(linear(y, w, pre + "fc1")))
        f = tr.add(sid + "ffn.out", linear(hidden, w, pre + "fc2"))
        y = tr.add(sid + "norm3", layer_norm(tr.add(sid + "add3", y + f), w[pre + "final_layer_norm.weight"],
                                             w[pre + "final_layer_norm.bias"]))
    logits = tr.add("out.logits", y @ w["model.shared.weight"].T + w["final_logits_bias"][0])
    probs = tr.add("out.probs", torch.softmax(logits, dim=-1))
    return tr, logits

def run(ck, src, tgt=None):
    """MarianMTModel on a source, with a target (teacher forcing) or greedy decoding."""
    c = ck.config
    src_ids = ck.ids(ck.pieces(src, 0)) + [c["eos_token_id"]]
    assert len(src_ids) <= min(c["max_position_embeddings"], 128), src  # as long as tviz takes
    dec_ids = [c["decoder_start_token_id"]]
    if tgt is not None:
        dec_ids += ck.ids(ck.pieces(tgt, 1))
        return src_ids, dec_ids, forward(ck, src_ids, dec_ids)[0]
    while True:
        tr, logits = forward(ck, src_ids, dec_ids)
        row = logits[-1].clone()
        row[c["pad_token_id"]] = -math.inf  # never pad
        nxt = int(torch.argmax(row))
        if nxt == c["eos_token_id"] or len(dec_ids) >= min(c["max_position_embeddings"], 128):
            return src_ids, dec_ids, tr
        dec_ids.append(nxt)

def num(x):
    if x == -math.inf:
        return "null"
    assert math.isfinite(x), x
    return "%.9g" % x

def trace_json(ck, src_ids, dec_ids, tr):
    js = lambda o: json.dumps(o, ensure_ascii=False)
    config = {"family": "marian", "d_model": ck.C, "nhead": ck.H, "norm_first": 0}
    lines = ['{"format":"tviz-trace/1",', '"config":' + js(config) + ",", '"without":[],',
             '"src_tokens":' + js([ck.tokens[i] for i in src_ids]) + ",",
             '"tgt_tokens":' + js([ck.tokens[i] for i in dec_ids]) + ",", '"stages":[']
    for i, (sid, m) in enumerate(tr.stages):
        s = '{"id":%s,"rows":%d,"cols":%d' % (js(sid), m.shape[0], m.shape[1])
        s += ',"data":[' + ",".join("[" + ",".join(num(v) for v in r) + "]" for r in m.tolist()) + "]}"
        lines.append(s + ("," if i + 1 < len(tr.stages) else ""))
    return "\n".join(lines + ["]}"]) + "\n"

CASES = [  # name, folder, source, target
    ("tiny", "tiny", "I enjoy learning.", "أنا أستمتع بتعلم."),
    ("tiny.greedy", "tiny", ">>ara<< The teacher.", None),
    ("relu", "relu", "The cat sleeps.", "گربه می‌خوابد."),
]
TOKEN_SENTENCES = [
    (0, "I really enjoy learning transformers."),
    (0, ">>ara<< We translate sentences."),
    (0, "Zebras xylophone quietly!"),
    (0, "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم."),
    (0, "أنا أستمتع حقاً بتعلم المحولات."),
    (1, "معلم توجه را برای دانشجویان توضیح می‌دهد."),
    (1, "يشرح المعلم الانتباه للطلاب."),
    (1, ">>pes<< گربه روی پنجره گرم می‌خوابد."),
]

def main():
    torch.set_default_dtype(torch.float64)
    make_checkpoint(os.path.join(OUT, "tiny"), "swish", True, 24)
    make_checkpoint(os.path.join(OUT, "relu"), "relu", False, 25)
    rows = []
    for name, folder, src, tgt in CASES:
        ck = Checkpoint(os.path.join(OUT, folder))
        src_ids, dec_ids, tr = run(ck, src, tgt)
        with open(os.path.join(OUT, name + ".trace.json"), "w", encoding="utf-8") as f:
            f.write(trace_json(ck, src_ids, dec_ids, tr))
        rows.append("\t".join([name, "tests/fixtures/marian/" + folder, src, tgt or ""]))
        print("%-12s %2d source tokens, %2d decoder tokens, %d stages" % (name, len(src_ids), len(dec_ids), len(tr.stages)))
    with open(os.path.join(OUT, "cases.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    ck = Checkpoint(os.path.join(OUT, "tiny"))
    with open(os.path.join(OUT, "tokens.tsv"), "w", encoding="utf-8") as f:
        for side, s in TOKEN_SENTENCES:
            p = ck.pieces(s, side)
            f.write("%d\t%s\t%s\t%s\n" % (side, s, " ".join(p), " ".join(str(i) for i in ck.ids(p))))

if __name__ == "__main__":
    main()
