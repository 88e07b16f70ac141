#!/usr/bin/python3
"""Independent reference for tviz's beam search, and its test fixtures.

Run from the repository root with Debian's PyTorch (python3-torch, python3-numpy):

    make beam-fixtures          # = /usr/bin/python3 tests/ref/make_beam_fixtures.py

Writes tests/fixtures/beam/<case>.json for a few small models of the three
families (a Transformer, an LSTM with dot attention, a plain LSTM): every step
of the search with its candidates, their parents, log P and fates, and the
hypothesis chosen.  tests/test_beam.c checks tviz against them.

The search is the paper's §6.1 with the length penalty of Wu et al. 2016
(DESIGN.md "Decoding"; src/model/tf.h "beam search"):
  score(Y) = log P(Y) / lp(Y),  lp(Y) = ((5 + |Y|) / 6)^alpha,
|Y| the tokens after <bos>, a final <eos> included.  Each step: every live
hypothesis times every token, ordered by log P (ties: earlier hypothesis, lower
token id); of the best 2K, an <eos> among the first K ends its hypothesis, the
first K others stay alive (ending as they are once they hold the limit of
min(S + 50, max_len - 1) tokens), the rest are pruned; stop when K have ended or
none is alive; the choice is the ended hypothesis of highest score (the first
on a tie).

Nothing here is tviz's code: each hypothesis's next-token log-probabilities
come from the reference forward passes of make_fixtures.py (Transformer) and
make_lstm_fixtures.py (recurrent; both checked against torch.nn modules there),
run on the hypothesis's whole decoder input in float64, then torch.log_softmax;
the selection is numpy's lexsort over the flattened (hypothesis, token) grid.
"""
import json, math, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as tf_ref  # noqa: E402
import make_lstm_fixtures as lstm_ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "beam")

# case: (model file, family, source, K, alpha)
CASES = {
    "multihead.k3": ("tests/fixtures/multihead.safetensors", "transformer", "a black cat sleeps", 3, 0.6),
    "multihead.k1": ("tests/fixtures/multihead.safetensors", "transformer", "a black cat sleeps", 1, 0.6),
    "lstm2_attn.k3": ("tests/fixtures/lstm/lstm2_attn.safetensors", "lstm", "I really enjoy learning transformers", 3, 0.6),
    "lstm1.k2": ("tests/fixtures/lstm/lstm1.safetensors", "lstm", "the cat sleeps", 2, 1.0),
    "lstm3_attn_rev.k4": ("tests/fixtures/lstm/lstm3_attn_rev.safetensors", "lstm", "attention is all you need", 4, 0.0),
}

def next_logp(kind, model, src_tok, src_ids, dec_ids):
    """log P(next token | source, decoder input) over the target vocabulary (float64)."""
    if kind == "transformer":
        dec_tok = [model.tgt_vocab[i] for i in dec_ids]
        tr, _ = tf_ref.forward(model, src_tok, src_ids, dec_tok, dec_ids, model.without)
    else:
        tr, _ = lstm_ref.forward(model, src_ids, dec_ids)
    logits = next(s[1] for s in tr.stages if s[0] == "out.logits")
    return torch.log_softmax(logits[-1], dim=0).numpy()

def source(kind, model, src):
    if kind == "lstm":
        return lstm_ref.source(model, src)
    tok, ids = tf_ref.lookup(model.src_vocab, tf_ref.tokenize(src))
    if model.append_eos:
        tok, ids = tok + ["<eos>"], ids + [model.src_vocab.index("<eos>")]
    return tok, ids

def lp(n, alpha):
    return ((5.0 + n) / 6.0) ** alpha

def beam(path, kind, model, src, K, alpha):
    src_tok, src_ids = source(kind, model, src)
    V = len(model.tgt_vocab)
    bos, eos = model.tgt_vocab.index("<bos>"), model.tgt_vocab.index("<eos>")
    limit = min(len(src_ids) + 50, model.max_len - 1)
    # live hypotheses: decoder input, log P, place in the step before (-1: <bos>)
    live = [([bos], 0.0, -1)]
    steps, ended, margin = [], [], math.inf
    for t in range(limit):
        if not live or len(ended) >= K:
            break
        grid = np.stack([h[1] + next_logp(kind, model, src_tok, src_ids, h[0]) for h in live])  # (n, V)
        flat = grid.reshape(-1)
        order = np.lexsort((np.arange(flat.size), -flat))[:2 * K]  # by log P, then hypothesis, then token
        # how near the ranks that decide a fate come to a tie (float32 must not flip them)
        cut = np.sort(flat)[::-1][:2 * K + 1]
        margin = min(margin, float(np.min(np.abs(np.diff(cut)))) if cut.size > 1 else math.inf)
        step, new_live = [], []
        for r, f in enumerate(order):
            h, tok = divmod(int(f), V)
            node = {"token": model.tgt_vocab[tok], "parent": live[h][2], "logp": float(flat[f])}
            if tok == eos:
                node["fate"] = "ended" if r < K else "pruned"
            elif len(new_live) < K:
                node["fate"] = "ended" if t + 1 == limit else "kept"
                new_live.append((live[h][0] + [tok], float(flat[f]), r))
            else:
                node["fate"] = "pruned"
            if node["fate"] == "ended":
                node["score"] = node["logp"] / lp(t + 1, alpha)
                ended.append((node["score"], t, r))
            step.append(node)
        steps.append(step)
        live = [x for x in new_live if steps[-1][x[2]]["fate"] == "kept"]
    best = None
    for s in ended:  # the first of the highest score (ended is in the order tviz numbers its nodes)
        if best is None or s[0] > best[0]:
            best = s
    # the chosen hypothesis's tokens, back through the parents
    toks, t, r = [], best[1], best[2]
    while r >= 0:
        toks.append(steps[t][r]["token"])
        r, t = steps[t][r]["parent"], t - 1
    return {"model": path, "src": src, "size": K, "alpha": alpha, "limit": limit, "src_tokens": src_tok,
            "steps": steps, "choice": {"step": best[1], "index": best[2], "score": best[0]},
            "tokens": toks[::-1], "min_margin": margin}

def main():
    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    os.makedirs(OUT, exist_ok=True)
    for case, (path, kind, src, K, alpha) in CASES.items():
        model = (tf_ref.Model if kind == "transformer" else lstm_ref.Model)(os.path.join(ROOT, path))
        res = beam(path, kind, model, src, K, alpha)
        assert res["min_margin"] > 1e-3, f"{case}: candidates too close to a tie for float32 ({res['min_margin']})"
        tf_ref.write(os.path.join(OUT, case + ".json"), json.dumps(res, ensure_ascii=False, indent=1) + "\n")
        print(f"{case}: {len(res['steps'])} steps, chose {res['tokens']} (score {res['choice']['score']:.4f}), "
              f"closest ranks {res['min_margin']:.2e} apart")

if __name__ == "__main__":
    main()
