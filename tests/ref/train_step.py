#!/usr/bin/python3
"""Independent PyTorch reference for tviz's training step (backward pass + Adam).

Regenerate (from the repository root, with Debian's python3-torch and python3-numpy;
CI has no torch, so the output is committed):

    make train-fixtures           # = /usr/bin/python3 tests/ref/train_step.py

Writes tests/fixtures/train/tiny.safetensors (a tiny model in tviz's format) and
tests/fixtures/train/step.json: the loss and the gradient of every tensor at the
initial weights on a fixed batch of 3 sentence pairs, then the loss, gradient and
all tensors around each of two Adam steps on that same batch.  Output is
deterministic (same bytes on every run).  The script proves itself: autograd
against central differences, the loss again from make_fixtures.py's hand-written
forward, Adam written out against torch.optim.Adam.  If build/tviz exists (the
Makefile target builds it) it also checks that tviz reads the tiny model and
computes its forward pass identically (model info, and every trace stage of
every pair to 1e-5).

step.json: config, vocabularies, "tensors" ([name, shape] in file order),
"batch" [{src, tgt_in, tgt_out}] (token ids), label_smoothing, betas, eps,
warmup, "lr" [lr1, lr2], "loss" [before step 1, before step 2],
loss_after_step2, "grad" {name: flat} at the initial weights, "grad_step2"
{name: flat} at the weights after step 1, "params_after" [{name: flat} after
step 1, {name: flat} after step 2].

For float32 comparisons: the key part of every in_proj_bias (entries C..2C-1)
has zero gradient in exact arithmetic, so its float64 value here is ~1e-17
noise and Adam leaves it (almost) unchanged; a float32 gradient there is noise
too, and Adam's first step turns any noise above eps into a move of about lr.
Compute it as exactly 0, or skip those entries in params_after.  (The same two
steps in float32 PyTorch, from the same file: loss within 1e-7, gradients within
1.2e-7, params_after within 1.1e-6, except key biases, which move by up to 0.1.)

Conventions (see DESIGN.md, "Model file"):
  * model: C 8, H 2, F 16, 2 + 2 layers, post-LayerNorm, eps 1e-5 (tviz's
    default), embeddings times sqrt(C), sinusoidal PE, no final encoder/decoder
    norm (encoder.norm.* / decoder.norm.* absent), separate source and target
    embeddings, generator tied to tgt_embed.weight (generator.weight and
    generator.bias absent): logits = y @ tgt_embed.weight^T.  src_append_eos 1.
  * vocabularies: <pad> 0, <unk> 1, <bos> 2, <eos> 3, then the words.
  * one example: src = words + <eos>, decoder input = <bos> y1..yn, decoder
    target = y1..yn <eos>; each pair runs alone (no padding).
  * loss = (sum over all target tokens of the batch of the per-token loss) /
    (number of target tokens); per-token loss = -sum_v q_v log p_v with
    q = (1 - 0.1) onehot(y) + 0.1 / V over all V target entries (PyTorch's
    label_smoothing=0.1).  No dropout.
  * gradients: float64, every tensor of the file under its file name; the tied
    target embedding gets both uses (lookup and generator).
  * Adam as torch.optim.Adam: m = b1 m + (1-b1) g, v = b2 v + (1-b2) g^2,
    p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps), betas (0.9, 0.98),
    eps 1e-9, no weight decay; lr(t) = C^-0.5 min(t^-0.5, t warmup^-1.5),
    warmup 4, t = 1, 2.
  * flat lists are row-major in tviz's shapes ([out, in] for Linear weights).
"""
import json, math, os, subprocess, sys, tempfile
import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  (safetensors I/O, hand-written forward, PE)

OUT = os.path.join(mf.ROOT, "tests", "fixtures", "train")
MODEL_REL = "tests/fixtures/train/tiny.safetensors"

C, H, F, L_ENC, L_DEC = 8, 2, 16, 2, 2
EPS_LN = 1e-5
SMOOTH = 0.1
BETAS = (0.9, 0.98)
ADAM_EPS = 1e-9
WARMUP = 4
SEED = 91  # of seeds 0..1199, the one whose gradients keep furthest from 0 (see the margins printed)

SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]
SRC_VOCAB = SPECIALS + ["the", "a", "cat", "dog", "fish", "sees", "sleeps"]                      # 11
TGT_VOCAB = SPECIALS + ["le", "un", "chat", "chien", "poisson", "voit", "dort", "bien", "ici"]   # 13
PAIRS = [  # source 3/5/4 words, target 4/2/5 words
    ("the cat sleeps", "le chat dort bien"),
    ("the dog sees a fish", "chien voit"),
    ("a cat sees fish", "un chat voit le poisson"),
]


def tensor_names():
    """Every tensor of the tiny model, in tviz's file order (weights.c param_table)."""
    names = []
    def attn(p):
        return [p + ".in_proj_weight", p + ".in_proj_bias", p + ".out_proj.weight", p + ".out_proj.bias"]
    def ffn_norms(p, k):
        return ([p + ".linear1.weight", p + ".linear1.bias", p + ".linear2.weight", p + ".linear2.bias"] +
                [p + f".norm{i}.{w}" for i in range(1, k + 1) for w in ("weight", "bias")])
    for l in range(L_ENC):
        p = f"encoder.layers.{l}"
        names += attn(p + ".self_attn") + ffn_norms(p, 2)
    for l in range(L_DEC):
        p = f"decoder.layers.{l}"
        names += attn(p + ".self_attn") + attn(p + ".multihead_attn") + ffn_norms(p, 3)
    return names + ["src_embed.weight", "tgt_embed.weight"]


def shape_of(name):
    if name == "src_embed.weight":
        return (len(SRC_VOCAB), C)
    if name == "tgt_embed.weight":
        return (len(TGT_VOCAB), C)
    last = name.rsplit(".", 2)
    if name.endswith("in_proj_weight"):
        return (3 * C, C)
    if name.endswith("in_proj_bias"):
        return (3 * C,)
    if name.endswith("out_proj.weight"):
        return (C, C)
    if name.endswith("linear1.weight"):
        return (F, C)
    if name.endswith("linear1.bias"):
        return (F,)
    if name.endswith("linear2.weight"):
        return (C, F)
    assert last[-1] in ("bias", "weight"), name
    return (C,)  # out_proj.bias, linear2.bias, norm*.weight, norm*.bias


def init_weights():
    """Seeded random weights: matrices N(0, 0.3^2), biases N(0, 0.1^2), LayerNorm
    weights 1 + N(0, 0.15^2), LayerNorm biases N(0, 0.1^2)."""
    g = torch.Generator().manual_seed(SEED)
    w = {}
    for name in tensor_names():
        shape = shape_of(name)
        z = torch.randn(shape, generator=g, dtype=torch.float64)
        if ".norm" in name and name.endswith(".weight"):
            w[name] = 1.0 + 0.15 * z
        elif len(shape) == 1:
            w[name] = 0.1 * z
        else:
            w[name] = 0.3 * z
    return w


def metadata():
    return {"d_model": str(C), "nhead": str(H), "num_encoder_layers": str(L_ENC),
            "num_decoder_layers": str(L_DEC), "dim_feedforward": str(F), "layer_norm_eps": "1e-05",
            "embed_scale": "sqrt", "src_append_eos": "1",
            "src_vocab": "\n".join(SRC_VOCAB), "tgt_vocab": "\n".join(TGT_VOCAB)}


def make_batch():
    batch = []
    for src, tgt in PAIRS:
        s = [SRC_VOCAB.index(t) for t in src.split()] + [SRC_VOCAB.index("<eos>")]
        y = [TGT_VOCAB.index(t) for t in tgt.split()]
        batch.append({"src": s, "tgt_in": [TGT_VOCAB.index("<bos>")] + y,
                      "tgt_out": y + [TGT_VOCAB.index("<eos>")]})
    return batch


# ----------------------------------------------------------------- the model as torch modules
class Tiny(nn.Module):
    """torch.nn.Transformer (no final norms, no dropout) + embeddings + tied generator, float64."""

    def __init__(self, weights):
        super().__init__()
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(C, H, F, dropout=0.0, layer_norm_eps=EPS_LN,
                                                               batch_first=True), L_ENC, norm=None,
                                    enable_nested_tensor=False)
        dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(C, H, F, dropout=0.0, layer_norm_eps=EPS_LN,
                                                               batch_first=True), L_DEC, norm=None)
        self.tf = nn.Transformer(C, H, dropout=0.0, batch_first=True, custom_encoder=enc,
                                 custom_decoder=dec).double()
        self.tf.load_state_dict({k: weights[k] for k in self.tf.state_dict()}, strict=True)
        self.src_embed = nn.Parameter(weights["src_embed.weight"].clone())
        self.tgt_embed = nn.Parameter(weights["tgt_embed.weight"].clone())
        self.train()  # dropout is 0; train mode keeps torch off its inference fast paths

    def params(self):
        """name -> Parameter, with tviz's names, in tviz's file order."""
        p = {"tf." + k: v for k, v in self.named_parameters()}
        out = {n: p["tf.tf." + n] for n in tensor_names()[:-2]}
        out["src_embed.weight"], out["tgt_embed.weight"] = self.src_embed, self.tgt_embed
        assert len(out) == len(p) == len(set(map(id, out.values())))
        return out

    def logits(self, src, tgt_in):
        S, T = len(src), len(tgt_in)
        s = self.src_embed[src] * math.sqrt(C) + mf.positional_encoding(S, C)
        t = self.tgt_embed[tgt_in] * math.sqrt(C) + mf.positional_encoding(T, C)
        mask = torch.triu(torch.full((T, T), -math.inf, dtype=torch.float64), 1)
        y = self.tf(s[None], t[None], tgt_mask=mask)[0]
        return y @ self.tgt_embed.T  # tied generator, no bias

    def loss(self, batch):
        total, n = 0.0, 0
        for ex in batch:
            lg = self.logits(torch.tensor(ex["src"]), torch.tensor(ex["tgt_in"]))
            total = total + nn.functional.cross_entropy(lg, torch.tensor(ex["tgt_out"]),
                                                        label_smoothing=SMOOTH, reduction="sum")
            n += len(ex["tgt_out"])
        return total / n


def lr_at(step):
    return C ** -0.5 * min(step ** -0.5, step * WARMUP ** -1.5)


# ----------------------------------------------------------------- proofs of the reference itself
def check_loss_by_hand(path, batch, loss):
    """The loss again from make_fixtures' hand-written forward (which itself checks
    against torch.nn.Transformer) and the smoothed cross-entropy written out."""
    model = mf.Model(path)
    total, n = 0.0, 0
    for ex in batch:
        src_tok = [model.src_vocab[i] for i in ex["src"]]
        tgt_tok = [model.tgt_vocab[i] for i in ex["tgt_in"]]
        _, probs = mf.forward(model, src_tok, ex["src"], tgt_tok, ex["tgt_in"])
        logp = torch.log(probs)
        V = logp.shape[1]
        for t, y in enumerate(ex["tgt_out"]):
            total += -(1 - SMOOTH) * logp[t, y].item() - SMOOTH / V * logp[t].sum().item()
        n += len(ex["tgt_out"])
    err = abs(total / n - loss)
    assert err < 1e-12, f"hand-written loss {total / n} vs torch {loss}"
    print(f"  loss by hand (make_fixtures forward + written-out smoothing) {total / n:.17g} agrees: {err:.1e}")


def check_finite_differences(weights, batch, grads):
    """Autograd vs central differences on a few entries of varied tensors."""
    picks = [("encoder.layers.0.self_attn.in_proj_weight", 5), ("encoder.layers.1.self_attn.in_proj_bias", 2),
             ("encoder.layers.0.linear1.weight", 37), ("encoder.layers.1.norm2.weight", 3),
             ("decoder.layers.0.self_attn.in_proj_weight", 150), ("decoder.layers.0.multihead_attn.in_proj_weight", 70),
             ("decoder.layers.1.multihead_attn.out_proj.bias", 6), ("decoder.layers.1.linear2.weight", 100),
             ("decoder.layers.1.norm3.weight", 1), ("decoder.layers.0.norm2.bias", 4),
             ("src_embed.weight", 6 * C + 2), ("tgt_embed.weight", 6 * C + 5),   # 'chat': lookup + generator
             ("tgt_embed.weight", 12 * C + 7)]                                    # 'ici': generator only
    h, worst = 1e-5, 0.0
    for name, i in picks:
        def f(delta):
            w = {k: v.clone() for k, v in weights.items()}
            w[name].view(-1)[i] += delta
            with torch.no_grad():
                return Tiny(w).loss(batch).item()
        fd = (f(h) - f(-h)) / (2 * h)
        ag = grads[name].reshape(-1)[i].item()
        rel = abs(fd - ag) / max(abs(ag), 1e-3)
        worst = max(worst, rel)
        assert rel < 1e-6, f"{name}[{i}]: autograd {ag:.10g} vs finite differences {fd:.10g}"
    print(f"  autograd vs central differences on {len(picks)} entries: worst relative error {worst:.1e}")


def adam_by_hand(p, m, v, g, t, lr):
    m = BETAS[0] * m + (1 - BETAS[0]) * g
    v = BETAS[1] * v + (1 - BETAS[1]) * g * g
    p = p - lr * (m / (1 - BETAS[0] ** t)) / (torch.sqrt(v / (1 - BETAS[1] ** t)) + ADAM_EPS)
    return p, m, v


def relu_margin(weights, batch):
    """Smallest |input| of any ReLU over the batch: how far float32 is from flipping one."""
    model, zs = Tiny(weights), []
    for layer in list(model.tf.encoder.layers) + list(model.tf.decoder.layers):
        layer.linear1.register_forward_hook(lambda mod, inp, out: zs.append(out.detach()))
    with torch.no_grad():
        model.loss(batch)
    return min(z.abs().min().item() for z in zs)


# ----------------------------------------------------------------- tviz reads it identically
def check_tviz(path, batch, weights):
    tviz = os.path.join(mf.ROOT, "build", "tviz")
    if not os.access(tviz, os.X_OK):
        print("  build/tviz not built: skipping the check against tviz (make build/tviz)")
        return
    info = subprocess.run([tviz, "model", "info", path], capture_output=True, text=True, check=True).stdout
    for want in ("d_model 8 · heads 2", "layers 2 encoder + 2 decoder · d_ff 16", "layer_norm_eps 1e-05",
                 "src_append_eos 1", "final norms: encoder no, decoder no", "target embedding own",
                 "generator tied to the target embedding",
                 "src_vocab    11 tokens", "tgt_vocab    13 tokens", f"parameters: {sum(math.prod(shape_of(n)) for n in tensor_names())}"):
        assert want in info, f"tviz model info lacks {want!r}:\n{info}"
    worst = 0.0
    ref_model, model = mf.Model(path), Tiny(weights)
    with tempfile.TemporaryDirectory() as d:
        for (src, tgt), ex in zip(PAIRS, batch):
            out = os.path.join(d, "t.json")
            subprocess.run([tviz, "trace", "--model", path, "--src", src, "--tgt", tgt, "-o", out], check=True)
            with open(out, encoding="utf-8") as f:
                got = json.load(f)
            assert got["src_tokens"] == [SRC_VOCAB[i] for i in ex["src"]], got["src_tokens"]
            assert got["tgt_tokens"] == [TGT_VOCAB[i] for i in ex["tgt_in"]], got["tgt_tokens"]
            _, _, tr, _ = mf.run(ref_model, src, tgt)
            stages = {s["id"]: s for s in got["stages"]}
            assert [s["id"] for s in got["stages"]] == [sid for sid, *_ in tr.stages]
            for sid, m, *_ in tr.stages:
                a = np.array([[-np.inf if x is None else x for x in r] for r in stages[sid]["data"]])
                b = m.numpy()
                fin = np.isfinite(b)
                assert (np.isfinite(a) == fin).all(), sid
                worst = max(worst, float(np.abs(a[fin] - b[fin]).max()) if fin.any() else 0.0)
            with torch.no_grad():
                lg = model.logits(torch.tensor(ex["src"]), torch.tensor(ex["tgt_in"])).numpy()
            worst = max(worst, float(np.abs(np.array(stages["out.logits"]["data"]) - lg).max()))
    assert worst < 1e-5, f"tviz's forward differs from the reference by {worst:.3g}"
    print(f"  tviz model info matches; tviz trace of all {len(PAIRS)} pairs, every stage: max |diff| {worst:.1e}")


# ----------------------------------------------------------------- main
def flat(t):
    """Row-major list, 13 significant digits (far beyond float32, keeps the file small)."""
    return [float("%.13g" % x) for x in t.detach().reshape(-1).tolist()]


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "tiny.safetensors")
    names = tensor_names()
    init = init_weights()
    mf.write_safetensors(path, {n: init[n] for n in names}, metadata())
    # The reference starts from exactly what the file holds (float32 values, in float64).
    meta, weights = mf.read_safetensors(path)
    assert list(weights) == names and meta == metadata()
    batch = make_batch()
    n_tokens = sum(len(ex["tgt_out"]) for ex in batch)
    print(f"{MODEL_REL}: {sum(w.numel() for w in weights.values())} parameters; batch of {len(batch)} pairs, {n_tokens} target tokens")

    model = Tiny(weights)
    params = model.params()
    opt = torch.optim.Adam(list(params.values()), lr=lr_at(1), betas=BETAS, eps=ADAM_EPS, weight_decay=0.0)
    losses, lrs, after, grads0 = [], [], [], None
    hand = {n: (weights[n].clone(), torch.zeros_like(weights[n]), torch.zeros_like(weights[n])) for n in names}
    for step in (1, 2):
        opt.zero_grad()
        loss = model.loss(batch)
        loss.backward()
        losses.append(loss.item())
        grads = {n: p.grad.detach().clone() for n, p in params.items()}
        if step == 1:
            grads0 = grads
        else:
            grads1 = grads
        lrs.append(lr_at(step))
        for group in opt.param_groups:
            group["lr"] = lrs[-1]
        opt.step()
        after.append({n: p.detach().clone() for n, p in params.items()})
        # the same update written out
        worst = 0.0
        for n in names:
            p, m, v = adam_by_hand(*hand[n], grads[n], step, lrs[-1])
            hand[n] = (p, m, v)
            worst = max(worst, (p - after[-1][n]).abs().max().item())
        assert worst < 1e-14 and not math.isnan(worst), f"Adam by hand differs from torch.optim.Adam by {worst}"
        print(f"step {step}: loss {losses[-1]:.15g}, lr {lrs[-1]:.15g}; Adam by hand agrees ({worst:.1e})")
    with torch.no_grad():
        loss_end = model.loss(batch).item()
    print(f"after step 2: loss {loss_end:.15g}")

    print("proofs:")
    check_loss_by_hand(path, batch, losses[0])
    check_finite_differences(weights, batch, grads0)
    # The key bias gets no gradient in exact arithmetic (softmax ignores a constant added to a
    # row of scores); in float64 it is rounding noise.  Other entries are well away from 0, so
    # float32 noise cannot flip the sign Adam's first step follows.
    for k, gr in enumerate((grads0, grads1)):
        kb, small, zeros = 0.0, math.inf, 0
        for n, g in gr.items():
            g = g.reshape(-1)
            if n.endswith("in_proj_bias"):
                kb = max(kb, g[C:2 * C].abs().max().item())
                g = torch.cat([g[:C], g[2 * C:]])
            zeros += (g == 0).sum().item()  # unused embedding rows, ReLU units off for every token
            small = min(small, g[g != 0].abs().min().item())
        assert kb < 1e-14 and small > 1e-6, (kb, small)
        print(f"  gradient for step {k + 1}: key biases are rounding noise (max |g| {kb:.1e}); {zeros} entries exactly 0; "
              f"smallest other |g| {small:.2e}")
    margins = [relu_margin(w, batch) for w in [weights] + after]
    assert min(margins) > 1e-4, margins
    print("  smallest |ReLU input| at the initial weights, after step 1, after step 2: " +
          ", ".join(f"{m:.1e}" for m in margins))
    check_tviz(path, batch, weights)

    unused = {"src_embed.weight": sorted(set(range(len(SRC_VOCAB))) - {i for ex in batch for i in ex["src"]})}
    step = {
        "format": "tviz-train-step/1",
        "model": MODEL_REL,
        "config": {"d_model": C, "nhead": H, "num_encoder_layers": L_ENC, "num_decoder_layers": L_DEC,
                   "dim_feedforward": F, "layer_norm_eps": EPS_LN, "embed_scale": math.sqrt(C),
                   "src_append_eos": 1, "final_norms": False, "generator": "tied to tgt_embed.weight, no bias",
                   "V_src": len(SRC_VOCAB), "V_tgt": len(TGT_VOCAB)},
        "src_vocab": SRC_VOCAB, "tgt_vocab": TGT_VOCAB,
        "specials": {t: SPECIALS.index(t) for t in SPECIALS},
        "tensors": [[n, list(shape_of(n))] for n in names],
        "batch": batch, "sentences": [list(p) for p in PAIRS], "n_tokens": n_tokens,
        "label_smoothing": SMOOTH, "betas": list(BETAS), "eps": ADAM_EPS, "weight_decay": 0.0,
        "warmup": WARMUP, "lr": lrs,
        "loss": losses, "loss_after_step2": loss_end,
        "notes": ["loss = sum of per-token label-smoothed cross-entropy / n_tokens; q = 0.9 onehot + 0.1/V_tgt",
                  "grad: at the initial weights (used by step 1); grad_step2: at params_after[0] (used by step 2)",
                  "params_after[k]: every tensor after Adam step k+1",
                  "in_proj_bias[C:2C] (key bias) has zero gradient in exact arithmetic; here it is float64 noise",
                  "src_embed rows of tokens absent from the batch have zero gradient: " + str(unused["src_embed.weight"])],
        "grad": {n: flat(grads0[n]) for n in names},
        "grad_step2": {n: flat(grads1[n]) for n in names},
        "params_after": [{n: flat(a[n]) for n in names} for a in after],
    }
    out = os.path.join(OUT, "step.json")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(step, separators=(",", ":")) + "\n")
    print(f"{os.path.relpath(out, mf.ROOT)}: {os.path.getsize(out)} bytes; "
          f"{os.path.relpath(path, mf.ROOT)}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
