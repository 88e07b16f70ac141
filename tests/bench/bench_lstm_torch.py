#!/usr/bin/python3
"""PyTorch on the CPU, for `make bench`: milliseconds per training step of the
same recurrent model and batch as tviz's bench_train (torch.nn.LSTM encoder and
decoder started from its final state, Luong's dot attention when asked, a linear
generator, label smoothing 0.1, gradient-norm clipping at 5, Adam at 0.001). The
batch's pairs all have the same lengths, so PyTorch runs them as one batch (its
usual way), where tviz runs each pair on its own. Needs Debian's python3-torch;
prints one line.

Usage: bench_lstm_torch.py EMBED HIDDEN LAYERS ATTENTION(0|1) V_SRC V_TGT PAIRS S T THREADS STEPS
"""
import sys
import time

import torch

E, H, L, A, VS, VT, N, S, T, TH, STEPS = (int(a) for a in sys.argv[1:12])
torch.set_num_threads(TH)
torch.manual_seed(1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.src = torch.nn.Embedding(VS, E)
        self.tgt = torch.nn.Embedding(VT, E)
        self.enc = torch.nn.LSTM(E, H, L, batch_first=True)
        self.dec = torch.nn.LSTM(E, H, L, batch_first=True)
        self.combine = torch.nn.Linear(2 * H, H)
        self.gen = torch.nn.Linear(H, VT)

    def forward(self, src, tgt):
        hs, state = self.enc(self.src(src))
        ht, _ = self.dec(self.tgt(tgt), state)
        if A:
            w = torch.softmax(ht @ hs.transpose(1, 2), dim=2)
            ht = torch.tanh(self.combine(torch.cat([w @ hs, ht], dim=2)))
        return self.gen(ht)


m = Model()
params = [p for n, p in m.named_parameters() if A or not n.startswith("combine")]
opt = torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
src = torch.randint(4, VS, (N, S))
tgt = torch.randint(4, VT, (N, T))
out = torch.randint(4, VT, (N, T))
times = []
for i in range(STEPS + 3):
    t0 = time.perf_counter()
    opt.zero_grad()
    logits = m(src, tgt)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VT), out.reshape(-1), label_smoothing=0.1)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 5.0)
    opt.step()
    if i >= 3:
        times.append(time.perf_counter() - t0)
times.sort()
print(f"{1000 * times[len(times) // 2]:.2f}")
