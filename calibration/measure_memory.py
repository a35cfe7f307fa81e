"""What PyTorch keeps in memory during a training step, counted on one GPU (or on the CPU).

Calibration data for plan3d's memory model (issue: memory as your framework allocates it).
Two measures, both on the mechanism rather than a fitted total:

1. saved: the tensors autograd saves for backward in one transformer layer, counted with
   torch.autograd.graph.saved_tensors_hooks (every saved tensor: shape, dtype, bytes, whether
   it is a parameter or a weight cast by autocast), and the allocator's own growth over the
   forward pass; for GPT-style (LayerNorm, GELU, biases) and Llama-style (RMSNorm, SwiGLU, GQA)
   layers, plain AMP (fp32 weights, bf16 autocast) and pure bf16 weights, with and without
   dropout, with and without full recomputation (torch.utils.checkpoint).
2. phases: whole single-GPU steps of small models (plain PyTorch AMP as in
   ../shared/calibration/measure_steps.py: fp32 params, bf16 autocast, fused AdamW, SDPA,
   fp32 logits for the loss): memory allocated after the weights, after the forward pass,
   after backward, after the optimizer's first step, the peak of a steady step, and its time.
   The shapes are not those of measure_steps.py's runs.

Usage: python3 measure_memory.py [saved|phases|all|compiled] [--cpu]   (writes $OUT/memory_<mode>.json)
`compiled` repeats a few of both under torch.compile (inductor), whose partitioner saves its own set.
On the CPU (--cpu) shapes are tiny and the attention kernel is the CPU's (it saves differently
from CUDA's FlashAttention: the JSON says which backend ran).
"""
import json, os, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

CPU = "--cpu" in sys.argv
dev = "cpu" if CPU or not torch.cuda.is_available() else "cuda"
OUT = os.environ.get("OUT", "/tmp")


def info():
    d = {"device": dev, "torch": torch.__version__, "cuda": torch.version.cuda}
    if dev == "cuda":
        p = torch.cuda.get_device_properties(0)
        d.update(gpu=p.name, sms=p.multi_processor_count, mem_bytes=p.total_memory,
                 cudnn=torch.backends.cudnn.version())
    return d


class Block(nn.Module):
    def __init__(s, h, heads, kv, ffn, llama, dropout=0.0):
        super().__init__()
        bias = not llama
        s.n1 = nn.RMSNorm(h) if llama else nn.LayerNorm(h)
        s.n2 = nn.RMSNorm(h) if llama else nn.LayerNorm(h)
        s.hd, s.heads, s.kv, s.gated, s.p = h // heads, heads, kv, llama, dropout
        s.qkv = nn.Linear(h, (heads + 2 * kv) * s.hd, bias=bias)
        s.proj = nn.Linear(heads * s.hd, h, bias=bias)
        s.fc1 = nn.Linear(h, ffn * (2 if llama else 1), bias=bias)
        s.fc2 = nn.Linear(ffn, h, bias=bias)

    def forward(s, x):
        B, S, _ = x.shape
        q, k, v = s.qkv(s.n1(x)).split([s.heads * s.hd, s.kv * s.hd, s.kv * s.hd], dim=-1)
        q = q.view(B, S, s.heads, s.hd).transpose(1, 2)
        k = k.view(B, S, s.kv, s.hd).transpose(1, 2)
        v = v.view(B, S, s.kv, s.hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=s.kv != s.heads,
                                           dropout_p=s.p if s.training else 0.0)
        x = x + F.dropout(s.proj(a.transpose(1, 2).reshape(B, S, -1)), s.p, s.training)
        z = s.fc1(s.n2(x))
        if s.gated:
            g, u = z.chunk(2, -1)
            z = F.silu(g) * u
        else:
            z = F.gelu(z, approximate="tanh")
        return x + F.dropout(s.fc2(z), s.p, s.training)


class LM(nn.Module):
    def __init__(s, c):
        super().__init__()
        s.emb = nn.Embedding(c["vocab"], c["h"])
        s.blocks = nn.ModuleList(Block(c["h"], c["heads"], c["kv"], c["ffn"], c["llama"])
                                 for _ in range(c["layers"]))
        s.norm = nn.RMSNorm(c["h"]) if c["llama"] else nn.LayerNorm(c["h"])
        s.head = nn.Linear(c["h"], c["vocab"], bias=False)
        if c["tied"]:
            s.head.weight = s.emb.weight
        s.recompute = False

    def forward(s, ids, labels):
        x = s.emb(ids)
        for b in s.blocks:
            x = checkpoint(b, x, use_reentrant=False) if s.recompute else b(x)
        logits = s.head(s.norm(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)).float(), labels.view(-1))


def allocated():
    return torch.cuda.memory_allocated() if dev == "cuda" else 0


def saved_row(kind, h, heads, kv, ffn, mb, seq, weights, dropout, recompute, compiled=False):
    torch.manual_seed(0)
    blk = Block(h, heads, kv, ffn, kind == "llama", dropout).to(dev)
    if weights == "bf16":
        blk = blk.bfloat16()
    blk.train()
    run = torch.compile(blk) if compiled else blk
    params = {p.data_ptr(): tuple(p.shape) for p in blk.parameters()}
    shapes = set(params.values())
    x = torch.randn(mb, seq, h, device=dev, dtype=torch.bfloat16 if weights == "bf16" else torch.float32,
                    requires_grad=True)
    seen, saved = {}, []

    def pack(t):
        st = t.untyped_storage()
        key = (st.data_ptr(), st.nbytes())
        role = ("param" if t.data_ptr() in params else
                "input" if t.data_ptr() == x.data_ptr() else
                "cast_weight" if tuple(t.shape) in shapes and t.dtype == torch.bfloat16 and weights == "amp" else
                "activation")
        saved.append({"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                      "bytes": t.numel() * t.element_size(), "storage_bytes": st.nbytes(),
                      "role": role, "new_storage": key not in seen})
        seen[key] = role
        return t

    auto = torch.autocast(dev, dtype=torch.bfloat16, enabled=weights == "amp")
    if dev == "cuda":
        torch.cuda.synchronize()
    before = allocated()
    if compiled:  # compile outside the measured pass
        with auto:
            run(x).sum().backward()
        x.grad = None
        blk.zero_grad(set_to_none=True)
        if dev == "cuda":
            torch.cuda.synchronize()
        before = allocated()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), auto:
        y = checkpoint(run, x, use_reentrant=False) if recompute else run(x)
    after = allocated()
    uniq = {}
    for s in saved:
        if s["new_storage"]:
            uniq[s["role"]] = uniq.get(s["role"], 0) + s["storage_bytes"]
    tokens = mb * seq
    row = {"kind": kind, "h": h, "heads": heads, "kv_heads": kv, "ffn": ffn, "micro_batch": mb,
           "seq": seq, "weights": weights, "dropout": dropout, "recompute": "full" if recompute else "none",
           "compiled": compiled,
           "saved_unique_bytes_by_role": uniq,
           "activation_bytes_per_token": uniq.get("activation", 0) / tokens,
           "activation_bytes_per_token_h": uniq.get("activation", 0) / tokens / h,
           "allocator_growth_bytes": after - before, "output_bytes": y.numel() * y.element_size(),
           "saved": saved}
    del y, x, blk
    return row


SAVED_GRID = []
for kind, (h, heads, kv, ffn) in {"gpt": (2048, 16, 16, 8192), "llama": (2048, 16, 4, 5632)}.items():
    for weights in ("amp", "bf16"):
        for mb, seq in ((1, 2048), (2, 2048), (1, 4096)):
            SAVED_GRID.append((kind, h, heads, kv, ffn, mb, seq, weights, 0.0, False))
        SAVED_GRID.append((kind, h, heads, kv, ffn, 1, 2048, weights, 0.0, True))
    SAVED_GRID.append((kind, h, heads, kv, ffn, 1, 2048, "amp", 0.1, False))
SAVED_GRID.append(("gpt", 4096, 32, 32, 16384, 1, 2048, "amp", 0.0, False))
SAVED_GRID.append(("llama", 4096, 32, 8, 14336, 1, 4096, "amp", 0.0, False))
if dev == "cpu":  # tiny shapes: the mechanism, not the GPU's kernels
    SAVED_GRID = [("gpt", 64, 4, 4, 256, 1, 64, "amp", 0.0, False), ("gpt", 64, 4, 4, 256, 1, 64, "bf16", 0.0, False),
                  ("llama", 64, 4, 2, 176, 1, 64, "amp", 0.0, False), ("llama", 64, 4, 2, 176, 2, 64, "amp", 0.0, True)]

# Models for whole steps: shapes of our own (not measure_steps.py's runs).
MODELS = {
    "gpt-350m": dict(layers=24, h=1024, heads=16, kv=16, ffn=4096, vocab=50257, llama=False, tied=True, seq=2048),
    "gpt-2.7b-l8": dict(layers=8, h=2560, heads=32, kv=32, ffn=10240, vocab=50257, llama=False, tied=True, seq=2048),
    "llama-3b-l8": dict(layers=8, h=3072, heads=24, kv=8, ffn=8192, vocab=128256, llama=True, tied=True, seq=4096),
    "llama-3b-l4": dict(layers=4, h=3072, heads=24, kv=8, ffn=8192, vocab=128256, llama=True, tied=True, seq=4096),
}
PHASES = [("gpt-350m", 1, False), ("gpt-350m", 4, False), ("gpt-350m", 8, True),
          ("gpt-2.7b-l8", 1, False), ("gpt-2.7b-l8", 4, False), ("gpt-2.7b-l8", 4, True),
          ("llama-3b-l4", 1, False), ("llama-3b-l8", 1, False), ("llama-3b-l8", 2, False),
          ("llama-3b-l8", 4, True)]
if dev == "cpu":
    MODELS = {"tiny": dict(layers=2, h=64, heads=4, kv=2, ffn=176, vocab=512, llama=True, tied=True, seq=64)}
    PHASES = [("tiny", 1, False), ("tiny", 2, True)]


def phase_row(name, mb, recompute, steps=6, compiled=False):
    c = MODELS[name]
    torch.manual_seed(0)
    if dev == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    row = {"model": name, "micro_batch": mb, "recompute": "full" if recompute else "none",
           "compiled": compiled, **c}
    base = allocated()
    m = LM(c).to(dev)
    m.recompute = recompute
    fwd = torch.compile(m) if compiled else m
    row["params"] = sum(p.numel() for p in m.parameters())
    row["after_weights"] = allocated() - base
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=dev == "cuda")
    ids = torch.randint(0, c["vocab"], (mb, c["seq"]), device=dev)
    try:
        for i in range(3 + steps):
            if i == 3 and dev == "cuda":
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
            with torch.autocast(dev, dtype=torch.bfloat16):
                loss = fwd(ids, ids)
            if i == 0:
                row["after_forward"] = allocated() - base
            loss.backward()
            if i == 0:
                row["after_backward"] = allocated() - base
            opt.step()
            if i == 0:
                row["after_first_step"] = allocated() - base
            opt.zero_grad(set_to_none=True)
            if i == 0:
                row["after_zero_grad"] = allocated() - base
        if dev == "cuda":
            e.record()
            torch.cuda.synchronize()
            row["step_s"] = s.elapsed_time(e) / steps / 1e3
            row["peak_bytes"] = torch.cuda.max_memory_allocated() - base
            row["reserved_bytes"] = torch.cuda.max_memory_reserved()
    except torch.OutOfMemoryError:
        row["error"] = "out of memory"
    del m, opt
    return row


def main():
    what = next((a for a in sys.argv[1:] if not a.startswith("--")), "all")
    res = {"info": info(), "about": __doc__.split("\n\n")[0]}
    print(json.dumps(res["info"]), flush=True)
    t0 = time.time()
    if what in ("saved", "all"):
        res["saved"] = []
        for args in SAVED_GRID:
            try:
                r = saved_row(*args)
            except Exception as ex:  # noqa: a failed shape is recorded, not fatal
                r = {"args": list(args), "error": str(ex)[:300]}
            res["saved"].append(r)
            print(json.dumps({k: v for k, v in r.items() if k != "saved"}), flush=True)
            if dev == "cuda":
                torch.cuda.empty_cache()
    print("saved", round(time.time() - t0, 1), "s", flush=True)
    if what in ("phases", "all"):
        res["phases"] = []
        for args in PHASES:
            r = phase_row(*args)
            res["phases"].append(r)
            print(json.dumps(r), flush=True)
    if what == "compiled":  # torch.compile (inductor): what its partitioner saves, whole steps
        res["saved"] = []
        for args in [("gpt", 2048, 16, 16, 8192, 2, 2048, "amp", 0.0, False),
                     ("llama", 2048, 16, 4, 5632, 2, 2048, "amp", 0.0, False),
                     ("gpt", 2048, 16, 16, 8192, 2, 2048, "bf16", 0.0, False)]:
            try:
                r = saved_row(*args, compiled=True)
            except Exception as ex:  # noqa
                r = {"args": list(args), "compiled": True, "error": str(ex)[:300]}
            res["saved"].append(r)
            print(json.dumps({k: v for k, v in r.items() if k != "saved"}), flush=True)
        res["phases"] = []
        for args in [("gpt-350m", 4, False), ("gpt-2.7b-l8", 4, False), ("llama-3b-l8", 2, False), ("llama-3b-l8", 4, True)]:
            try:
                r = phase_row(*args, compiled=True)
            except Exception as ex:  # noqa
                r = {"args": list(args), "compiled": True, "error": str(ex)[:300]}
            res["phases"].append(r)
            print(json.dumps(r), flush=True)
    print("all", round(time.time() - t0, 1), "s", flush=True)
    with open(os.path.join(OUT, f"memory_{what}{'_cpu' if dev == 'cpu' else ''}.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
