#!/usr/bin/python3
"""Independent PyTorch reference for training tviz's recurrent models: one batch,
its loss and gradients (backpropagation through time by autograd), gradient-norm
clipping and two Adam steps, on a tiny RNN with attention (2 layers, reversed
source) and a tiny seq2seq LSTM without attention (1 layer).

Regenerate (from the repository root, with Debian's python3-torch; the output is
committed, CI needs no torch):

    make lstm-train-fixtures      # = /usr/bin/python3 tests/ref/lstm_train_step.py

Writes tests/fixtures/lstm/train/<name>.safetensors and <name>.json with
"tensors" ([name, shape] in tviz's file order), "batch" [{src, tgt_in, tgt_out}]
(token ids; src as the encoder reads it: reversed words, then <eos>),
label_smoothing, lr, clip, betas, eps, "loss" [before step 1, before step 2],
"grad_norm" [before clipping, each step], "grad" {name: flat} at the initial
weights (before clipping), "params_after" [{name: flat} after step 1, after step 2].

Conventions: the model of DESIGN.md "Recurrent models", run by torch.nn.LSTM
itself (encoder, decoder started from the encoder's (h_n, c_n)) and the
attention formulas; loss = (sum over the batch's target tokens of
cross_entropy(label_smoothing=0.1)) / (number of target tokens), each pair run
alone (no padding); torch.nn.utils.clip_grad_norm_ on all parameters; then
torch.optim.Adam(lr, betas, eps). float64 throughout.
"""
import json, os, sys
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import write_safetensors, write  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "lstm", "train")

SMOOTH, LR, BETAS, ADAM_EPS = 0.1, 0.01, (0.9, 0.98), 1e-9
SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]
SRC_VOCAB = SPECIALS + ["the", "a", "cat", "dog", "fish", "sees", "sleeps"]
TGT_VOCAB = SPECIALS + ["le", "un", "chat", "chien", "poisson", "voit", "dort", "bien", "ici"]
PAIRS = [("the cat sleeps", "le chat dort bien"), ("the dog sees a fish", "chien voit"),
         ("a cat sees fish", "un chat voit le poisson")]
MODELS = {  # name: (seed, E, H, L, attention, reverse, clip: set below the gradient's norm so that it acts)
    "attn": (5, 5, 6, 2, "dot", 1, 0.2),
    "plain": (6, 4, 7, 1, "none", 0, 100.0),
}

class Seq2Seq(nn.Module):
    def __init__(self, E, H, L, attention):
        super().__init__()
        self.encoder, self.decoder = nn.LSTM(E, H, L).double(), nn.LSTM(E, H, L).double()
        self.attention = attention
        if attention == "dot":
            self.combine = nn.Linear(2 * H, H).double()
        self.src_embed = nn.Parameter(torch.randn(len(SRC_VOCAB), E, dtype=torch.float64))
        self.tgt_embed = nn.Parameter(torch.randn(len(TGT_VOCAB), E, dtype=torch.float64))
        self.generator = nn.Linear(H, len(TGT_VOCAB)).double()

    def params(self):
        """tviz's names, in tviz's file order (weights.c lstm_param_table)."""
        out = {}
        for side, m in (("encoder", self.encoder), ("decoder", self.decoder)):
            for l in range(m.num_layers):
                for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    out[f"{side}.{k}_l{l}"] = getattr(m, f"{k}_l{l}")
        if self.attention == "dot":
            out["attn.combine.weight"], out["attn.combine.bias"] = self.combine.weight, self.combine.bias
        out["src_embed.weight"], out["tgt_embed.weight"] = self.src_embed, self.tgt_embed
        out["generator.weight"], out["generator.bias"] = self.generator.weight, self.generator.bias
        assert len(out) == len(list(self.parameters()))
        return out

    def logits(self, src, tgt_in):
        hs, state = self.encoder(self.src_embed[src][:, None])
        ht, _ = self.decoder(self.tgt_embed[tgt_in][:, None], state)
        hs, ht = hs[:, 0], ht[:, 0]
        if self.attention == "dot":
            w = torch.softmax(ht @ hs.T, dim=1)
            ht = torch.tanh(self.combine(torch.cat([w @ hs, ht], dim=1)))
        return self.generator(ht)

    def loss(self, batch):
        total, n = 0.0, 0
        for ex in batch:
            lg = self.logits(torch.tensor(ex["src"]), torch.tensor(ex["tgt_in"]))
            total = total + nn.functional.cross_entropy(lg, torch.tensor(ex["tgt_out"]), label_smoothing=SMOOTH, reduction="sum")
            n += len(ex["tgt_out"])
        return total / n

def make_batch(reverse):
    batch = []
    for src, tgt in PAIRS:
        s = [SRC_VOCAB.index(t) for t in src.split()]
        s = (s[::-1] if reverse else s) + [SRC_VOCAB.index("<eos>")]
        y = [TGT_VOCAB.index(t) for t in tgt.split()]
        batch.append({"src": s, "tgt_in": [TGT_VOCAB.index("<bos>")] + y, "tgt_out": y + [TGT_VOCAB.index("<eos>")]})
    return batch

def flat(t):
    return [float("%.12g" % v) for v in t.detach().reshape(-1).tolist()]

def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(OUT, exist_ok=True)
    for name, (seed, E, H, L, attention, reverse, clip) in MODELS.items():
        torch.manual_seed(seed)
        model = Seq2Seq(E, H, L, attention)
        with torch.no_grad():
            for p in model.parameters():
                if p is not model.src_embed and p is not model.tgt_embed:
                    p.uniform_(-0.6, 0.6)
            for p in model.parameters():  # the values the file holds (float32), exactly
                p.copy_(p.float().double())
        params = model.params()
        meta = {"arch": "lstm", "embed_dim": str(E), "hidden_size": str(H), "num_layers": str(L), "attention": attention,
                "reverse_source": str(reverse), "src_append_eos": "1", "max_len": "12",
                "src_vocab": "\n".join(SRC_VOCAB), "tgt_vocab": "\n".join(TGT_VOCAB)}
        write_safetensors(os.path.join(OUT, name + ".safetensors"), params, meta)
        batch = make_batch(reverse)
        opt = torch.optim.Adam(list(params.values()), lr=LR, betas=BETAS, eps=ADAM_EPS)
        out = {"tensors": [[k, list(v.shape)] for k, v in params.items()], "batch": batch, "label_smoothing": SMOOTH,
               "lr": LR, "clip": clip, "betas": list(BETAS), "eps": ADAM_EPS,
               "n_tokens": sum(len(ex["tgt_out"]) for ex in batch), "loss": [], "grad_norm": [], "params_after": []}
        for step in range(2):
            opt.zero_grad()
            loss = model.loss(batch)
            loss.backward()
            if step == 0:
                out["grad"] = {k: flat(v.grad) for k, v in params.items()}
            norm = torch.nn.utils.clip_grad_norm_(list(params.values()), clip)
            opt.step()
            out["loss"].append(loss.item())
            out["grad_norm"].append(norm.item())
            out["params_after"].append({k: flat(v) for k, v in params.items()})
        write(os.path.join(OUT, name + ".json"), json.dumps(out, ensure_ascii=False) + "\n")
        print(f"{name}: loss {out['loss']}, gradient norm {out['grad_norm']} (clip {clip})")

if __name__ == "__main__":
    main()
