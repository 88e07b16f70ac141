#!/usr/bin/python3
"""PyTorch on the CPU, for `make bench`: milliseconds per training step of the
same model and batch as tviz's bench_train (torch.nn.Transformer, embeddings
scaled by sqrt(d_model), sinusoidal positions, tied generator, label smoothing
0.1, dropout 0.1, Adam). Needs Debian's python3-torch; prints one line.

Usage: bench_torch.py D_MODEL HEADS LAYERS D_FF V_SRC V_TGT PAIRS S T THREADS STEPS
"""
import math
import sys
import time

import torch

C, H, L, F, VS, VT, N, S, T, TH, STEPS = (int(a) for a in sys.argv[1:12])
torch.set_num_threads(TH)
torch.manual_seed(1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.src = torch.nn.Embedding(VS, C)
        self.tgt = torch.nn.Embedding(VT, C)
        self.tf = torch.nn.Transformer(C, H, L, L, F, dropout=0.1, batch_first=True)
        pos = torch.arange(64).unsqueeze(1)
        div = torch.pow(10000.0, torch.arange(0, C, 2) / C)
        pe = torch.zeros(64, C)
        pe[:, 0::2] = torch.sin(pos / div)
        pe[:, 1::2] = torch.cos(pos / div)
        self.register_buffer("pe", pe)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, src, tgt):
        s = self.drop(self.src(src) * math.sqrt(C) + self.pe[: src.shape[1]])
        t = self.drop(self.tgt(tgt) * math.sqrt(C) + self.pe[: tgt.shape[1]])
        mask = self.tf.generate_square_subsequent_mask(tgt.shape[1])
        y = self.tf(s, t, tgt_mask=mask)
        return y @ self.tgt.weight.T  # tied generator


m = Model()
opt = torch.optim.Adam(m.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
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
    opt.step()
    if i >= 3:
        times.append(time.perf_counter() - t0)
times.sort()
print(f"{1000 * times[len(times) // 2]:.2f}")
