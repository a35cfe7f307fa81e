"""Where a plain-PyTorch single-GPU step's time goes, kernel by kernel: the models and step of
../shared/calibration/measure_steps.py (fp32 weights, bf16 autocast, fused AdamW, fp32 logits,
eager), timed whole with CUDA events, then profiled with torch.profiler (CUDA activity): every
kernel's time summed by class (GEMM, attention forward/backward, optimizer, loss, casts/copies,
norms, other element-wise), and the GPU's busy time against the step's (the rest is the GPU
waiting for the CPU).  Usage: python3 calibration/profile_steps.py  ($OUT/profile_steps.json)
"""
import json, os, sys, time, re
import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT", "/tmp")
HERE = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(HERE, "..", "..", "shared", "calibration", "measure_steps.py")).read() \
    if os.path.exists(os.path.join(HERE, "..", "..", "shared", "calibration", "measure_steps.py")) \
    else open(os.path.join(HERE, "measure_steps.py")).read()  # a copy beside this file
ns = {"__name__": "ms"}
exec(src.split("def main():")[0], ns)
LM, MODELS = ns["LM"], dict(ns["MODELS"])
MODELS.update({
    "gpt-350m": dict(layers=24, h=1024, heads=16, kv=16, ffn=4096, vocab=50257, gated=False, llama=False, tied=True, seq=2048),
    "gpt-2.7b-l8": dict(layers=8, h=2560, heads=32, kv=32, ffn=10240, vocab=50257, gated=False, llama=False, tied=True, seq=2048),
    "llama-3b-l8": dict(layers=8, h=3072, heads=24, kv=8, ffn=8192, vocab=128256, gated=True, llama=True, tied=True, seq=4096),
})
dev = "cuda"

CLASSES = [
    ("attention_backward", r"(flash|fmha|attn|attention|sdpa).*(bwd|backward|dq|dkdv)|(bwd|backward).*(flash|fmha|attn)"),
    ("attention_forward", r"flash|fmha|attn|attention|sdpa"),
    ("optimizer", r"adam|multi_tensor|foreach|fused_optim"),
    ("norm", r"layer_norm|layernorm|rms|norm|gammabeta"),
    ("gemm", r"gemm|xmma|cutlass|nvjet|sm90_|sm80_|s16816|s1688|ampere_|hopper_|cublas|matmul|splitk"),
    ("loss", r"log_softmax|softmax|nll|cross_entropy"),
    ("embedding", r"embedding|index|scatter|gather|sort|radix|unique"),
    ("cast_copy", r"copy|cast|convert|to_copy|direct_copy"),
    ("reduce", r"reduce|sum|mean|amax"),
    ("elementwise", r"elementwise|vectorized|unrolled|gelu|silu|mul|add|tanh|fill"),
]


def classify(name):
    n = name.lower()
    for cls, pat in CLASSES:
        if re.search(pat, n):
            return cls
    return "other"


def run(name, mb, recompute, steps=3):
    c = MODELS[name]
    torch.manual_seed(0)
    torch.cuda.empty_cache()
    m = LM(c).to(dev)
    m.recompute = recompute
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, c["vocab"], (mb, c["seq"]), device=dev)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(ids, ids)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    row = {"model": name, "micro_batch": mb, "recompute": "full" if recompute else "none", **c}
    try:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(steps):
            step()
        e.record(); torch.cuda.synchronize()
        row["step_s"] = s.elapsed_time(e) / steps / 1e3
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
        by = {}
        kernels = {}
        n = 0
        for ev in prof.events():
            # User annotations (`Optimizer.step#AdamW.step`) show on the GPU
            # timeline too: not kernels.
            if ev.device_type == torch.autograd.DeviceType.CUDA and not ev.name.startswith("Optimizer."):
                dur = ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
                cls = classify(ev.name)
                by[cls] = by.get(cls, 0.0) + dur / 1e6 / steps
                kernels[ev.name[:90]] = kernels.get(ev.name[:90], 0.0) + dur / 1e6 / steps
                n += 1
        row["kernel_seconds_by_class"] = by
        row["gpu_busy_s"] = sum(by.values())
        row["kernels_per_step"] = n / steps
        row["top_kernels"] = sorted(([k, v] for k, v in kernels.items()), key=lambda x: -x[1])[:25]
    except torch.OutOfMemoryError:
        row["error"] = "out of memory"
    except Exception as ex:  # noqa: BLE001 -- keep what was measured
        row["error"] = repr(ex)[:300]
    del m, opt
    torch.cuda.empty_cache()
    return row


def main():
    p = torch.cuda.get_device_properties(0)
    res = {"info": {"gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
                    "cuda": torch.version.cuda}, "steps": []}
    runs = [("gpt-13b-l4", 2, False), ("gpt-1.3b", 1, False), ("gpt-1.3b", 8, False), ("gpt-350m", 1, False),
            ("gpt-2.7b-l8", 4, False), ("llama-8b-l4", 1, False), ("llama-3b-l8", 1, False), ("gpt-1.3b", 8, True)]
    if os.environ.get("SMOKE"):
        runs = runs[:1]
    for name, mb, rc in runs:
        t = time.time()
        r = run(name, mb, rc)
        r["wall_s"] = time.time() - t
        res["steps"].append(r)
        print(name, mb, rc, r.get("step_s"), r.get("gpu_busy_s"), {k: round(v * 1e3, 1) for k, v in r.get("kernel_seconds_by_class", {}).items()}, flush=True)
        json.dump(res, open(os.path.join(OUT, "profile_steps.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
