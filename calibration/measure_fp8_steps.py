"""FP8 against BF16 in whole single-GPU training steps of small models, and
SDPA's attention backends by sequence; writes $OUT/fp8_steps.json.

The steps are `measure_steps.py`'s (copy it beside this file): fp32
parameters, bf16 autocast, fused AdamW, one GPU, eager unless `compiled`.
In the FP8 steps every linear of every block (qkv, proj, fc1, fc2; not the
embedding or the head) runs its three GEMMs through `torch._scaled_mm` with
one scale per tensor computed from the tensor's own amax at every call
("current" scaling, torchao's `tensorwise` recipe): the input and the
weight in E4M3, the output's gradient in E5M2; the weight gradient comes out
in fp32, the data gradient in bf16. The casts are eager PyTorch ops (abs,
amax, multiply, clamp, cast), so an eager FP8 step pays them as separate
kernels; compiled, Inductor fuses them.

The attention part times `scaled_dot_product_attention`, causal, head size
128, 16 K tokens per call, forward and forward + backward, under each of
SDPA's backends that runs (cuDNN, flash = FlashAttention-2, efficient =
the memory-efficient CUTLASS kernel of xformers' lineage).

Usage: python3 measure_fp8_steps.py [smoke]   (smoke: tiny shapes, on the CPU)
"""
import json, os, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
SMOKE = len(sys.argv) > 1 and sys.argv[1] == "smoke"
import measure_steps as ms  # ../shared/calibration/measure_steps.py, copied beside this file

if SMOKE:
    ms.dev = "cpu"
OUT = os.environ.get("OUT", "/tmp")
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def to_fp8(x, dtype):
    """Current (tensorwise) scaling: scale = fp8 max / amax; returns the
    FP8 tensor and the inverse scale `_scaled_mm` multiplies back."""
    amax = x.abs().amax().float().clamp(min=1e-12)
    scale = torch.finfo(dtype).max / amax
    q = (x.float() * scale).clamp(-torch.finfo(dtype).max, torch.finfo(dtype).max).to(dtype)
    return q, scale.reciprocal()


def col_major(t):
    """The same matrix laid out column-major (what `_scaled_mm` wants for b)."""
    return t.t().contiguous().t()


class Fp8Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        x8, sx = to_fp8(x, E4M3)
        w8, sw = to_fp8(w, E4M3)
        y = torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16)
        ctx.save_for_backward(x8, sx, w8, sw)
        return y

    @staticmethod
    def backward(ctx, gy):
        x8, sx, w8, sw = ctx.saved_tensors
        g8, sg = to_fp8(gy, E5M2)
        dx = torch._scaled_mm(g8, col_major(w8), scale_a=sg, scale_b=sw, out_dtype=torch.bfloat16)
        dw = torch._scaled_mm(g8.t().contiguous(), col_major(x8), scale_a=sg, scale_b=sx,
                              out_dtype=torch.float32)
        return dx, dw


class Fp8Linear(nn.Linear):
    def forward(self, x):
        shape = x.shape
        y = Fp8Matmul.apply(x.reshape(-1, shape[-1]), self.weight)
        y = y.view(*shape[:-1], -1)
        return y + self.bias.to(y.dtype) if self.bias is not None else y


def fp8_blocks(model):
    for b in model.blocks:
        for name in ("qkv", "proj", "fc1", "fc2"):
            lin = getattr(b, name)
            lin.__class__ = Fp8Linear


def step_row(name, mb, fp8, compiled, steps=8):
    c = ms.MODELS[name]
    torch.manual_seed(0)
    if not SMOKE:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    m = ms.LM(c).to(ms.dev)
    if fp8:
        fp8_blocks(m)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=not SMOKE)
    fwd = torch.compile(m) if compiled else m
    ids = torch.randint(0, c["vocab"], (mb, c["seq"]), device=ms.dev)

    def step():
        with torch.autocast("cpu" if SMOKE else "cuda", dtype=torch.bfloat16):
            loss = fwd(ids, ids)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    row = {"model": name, "micro_batch": mb, "precision": "fp8-current" if fp8 else "bf16",
           "compiled": compiled, "params": sum(p.numel() for p in m.parameters()), **c}
    try:
        t0 = time.time()
        for _ in range(3):
            loss = step()
        row["loss_after_warmup"] = float(loss.detach())
        if SMOKE:
            row["step_s"] = time.time() - t0
        else:
            torch.cuda.synchronize()
            row["warmup_s"] = time.time() - t0
            row["step_s"] = ms.cuda_time(step, 0, steps)
            row["peak_bytes"] = torch.cuda.max_memory_allocated()
        row["tokens_per_s"] = mb * c["seq"] / row["step_s"]
    except Exception as ex:  # noqa: BLE001 (recorded, the sweep goes on)
        row["error"] = f"{type(ex).__name__}: {str(ex)[:300]}"
    del m, opt, fwd
    return row


def attention_rows():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    seqs = [256] if SMOKE else [512, 1024, 2048, 4096, 8192, 16384]
    dtype = torch.float32 if SMOKE else torch.bfloat16
    for name, backend in backends.items():
        for S in seqs:
            H, D = 16, 128
            B = max(1, (512 if SMOKE else 16384) // S)
            try:
                q, k, v = (torch.randn(B, H, S, D, device=ms.dev, dtype=dtype, requires_grad=True)
                           for _ in range(3))
                with sdpa_kernel([backend]):
                    fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    o = fwd()
                    g = torch.randn_like(o)

                    def fb():
                        F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
                    if SMOKE:
                        fb()
                        tf = tfb = 1.0
                    else:
                        tf = ms.cuda_time(fwd, 2, 10)
                        tfb = ms.cuda_time(fb, 2, 10)
                flf = 4.0 * B * H * S * S * D / 2  # causal: half the square
                rows.append({"backend": name, "seq": S, "heads": H, "batch": B, "head_dim": D,
                             "causal": True, "fwd_s": tf, "fwd_bwd_s": tfb,
                             "fwd_tflops": flf / tf / 1e12,
                             "fwd_bwd_tflops": 3.5 * flf / tfb / 1e12})
                del q, k, v, o, g
            except Exception as ex:  # noqa: BLE001
                rows.append({"backend": name, "seq": S, "error": f"{type(ex).__name__}: {str(ex)[:200]}"})
            if not SMOKE:
                torch.cuda.empty_cache()
    return rows


ms.MODELS.update({
    "gpt-125m-s2k": dict(layers=12, h=768, heads=12, kv=12, ffn=3072, vocab=50304, gated=False, llama=False, tied=True, seq=2048),
    "gpt-350m": dict(layers=24, h=1024, heads=16, kv=16, ffn=4096, vocab=50304, gated=False, llama=False, tied=True, seq=2048),
    "gpt-760m-p": dict(layers=24, h=1536, heads=16, kv=16, ffn=6144, vocab=50304, gated=False, llama=False, tied=True, seq=2048),
    "gpt-1.3b-p": dict(layers=24, h=2048, heads=16, kv=16, ffn=8192, vocab=50304, gated=False, llama=False, tied=True, seq=2048),
    "gpt-2.7b": dict(layers=32, h=2560, heads=32, kv=32, ffn=10240, vocab=50304, gated=False, llama=False, tied=True, seq=2048),
    "llama-1b-s2k": dict(layers=16, h=2048, heads=32, kv=8, ffn=8192, vocab=128256, gated=True, llama=True, tied=True, seq=2048),
    "tiny": dict(layers=2, h=128, heads=4, kv=4, ffn=512, vocab=512, gated=False, llama=False, tied=True, seq=64),
    "tiny-gated": dict(layers=2, h=128, heads=4, kv=2, ffn=256, vocab=512, gated=True, llama=True, tied=True, seq=64),
})
# (model, micro-batch, compiled): each in bf16 and then FP8.
RUNS = [("tiny", 2, False), ("tiny-gated", 2, False)] if SMOKE else [
    ("gpt-125m-s2k", 16, False), ("gpt-350m", 8, False), ("gpt-760m-p", 8, False),
    ("gpt-1.3b-p", 4, False), ("gpt-2.7b", 2, False), ("llama-1b-s2k", 4, False),
    ("gpt-1.3b-p", 4, True)]

res = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "smoke": SMOKE,
       "info": {"torch": torch.__version__} if SMOKE else ms.info(), "steps": [], "attention": []}
path = os.path.join(OUT, "fp8_steps.json")
t_all = time.time()
res["attention"] = attention_rows()
with open(path, "w") as f:
    json.dump(res, f, indent=1)
print("attention", time.time() - t_all, flush=True)
for name, mb, compiled in RUNS:
    for fp8 in (False, True):
        r = step_row(name, mb, fp8, compiled)
        res["steps"].append(r)
        print(json.dumps({k: r.get(k) for k in ("model", "micro_batch", "precision", "compiled",
                                                 "step_s", "peak_bytes", "loss_after_warmup", "error")}),
              flush=True)
        res["total_seconds"] = time.time() - t_all
        with open(path, "w") as f:
            json.dump(res, f, indent=1)
