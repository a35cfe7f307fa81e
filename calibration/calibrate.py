#!/usr/bin/env python3
"""Measure your GPU for plan3d in about five minutes: a calibration profile.

    python3 calibrate.py --out my-gpu.json            # one GPU
    torchrun --nproc-per-node 8 calibrate.py --out my-node.json
                                                     # and NCCL's collectives
    plan3d plan --gpu h100-sxm ... --profile my-gpu.json

It times, with PyTorch, what plan3d's kernel model is made of
(core/src/cost/kernels.rs): the GEMMs of transformer layers (forward, data
and weight gradients, in BF16, and in FP8 where the GPU has it), causal
flash attention forward and backward (scaled_dot_product_attention),
memory-bound copies, and, when launched with several processes, all-reduces
and all-gathers. It writes them as a profile (JSON, version 1: the fields
of plan3d's `cost::profile::Profile`), with the GPU, driver, CUDA, PyTorch
and library versions. plan3d checks the profile and fits its kernel curves
on it; nothing here is fitted.

`--device cpu --quick` runs the same code on the CPU with tiny shapes (the
project's CI does, to check that the JSON parses as a profile); its numbers
describe no GPU. PyTorch 1.13 or newer.
"""

import argparse
import json
import os
import sys
import time

import torch

VERSION = 1


def now():
    return time.perf_counter()


class Timer:
    """Seconds per call of `fn`, on the GPU with CUDA events (back-to-back
    calls, so launches overlap the kernels), on the CPU with the clock."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def __call__(self, fn, reps=10, warmup=3):
        for _ in range(warmup):
            fn()
        if self.cuda:
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end) / 1e3 / reps
        t0 = now()
        for _ in range(reps):
            fn()
        return (now() - t0) / reps


def device_info(device):
    if device.type != "cuda":
        return {
            "name": "cpu (" + (os.uname().machine if hasattr(os, "uname") else "") + ")",
            "sms": max(1, min(1024, os.cpu_count() or 1)),
            "memory_bytes": 0.0,
            "driver": "",
            "cuda": "",
            "torch": torch.__version__,
            "libraries": "",
        }
    p = torch.cuda.get_device_properties(device)
    libs = []
    try:
        libs.append("cuDNN %s" % torch.backends.cudnn.version())
    except Exception:  # noqa: BLE001 - informative only
        pass
    try:
        libs.append("NCCL %s" % ".".join(str(x) for x in torch.cuda.nccl.version()))
    except Exception:  # noqa: BLE001
        pass
    # The attention kernel SDPA picks for a causal bf16 layer (plan3d's
    # curves differ by kernel: `--attention cudnn|fa2`) and the allocator's
    # settings (plan3d's `--expandable-segments`): informative only.
    try:
        from torch.nn.attention import SDPBackend

        q = torch.zeros(1, 8, 1024, 128, device=device, dtype=torch.bfloat16)
        choice = torch._fused_sdp_choice(q, q, q, None, 0.0, True)
        libs.append("SDPA %s" % SDPBackend(choice).name.lower())
    except Exception:  # noqa: BLE001
        pass
    libs.append("allocator %s" % (os.environ.get("PYTORCH_CUDA_ALLOC_CONF")
                                  or os.environ.get("PYTORCH_ALLOC_CONF") or "default"))
    driver = ""
    try:
        import subprocess

        driver = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10,
        ).stdout.split("\n")[0].strip()
    except Exception:  # noqa: BLE001
        pass
    return {
        "name": p.name,
        "sms": p.multi_processor_count,
        "memory_bytes": float(p.total_memory),
        "driver": driver,
        "cuda": torch.version.cuda or "",
        "torch": torch.__version__,
        "libraries": ", ".join(libs),
    }


def gemm_shapes(quick, cpu):
    """(M, N, K) of a layer's linears at widths h and tokens t: forward
    (t, n, k), data gradient (t, k, n), weight gradient (k, n, t)."""
    if cpu:
        widths, tokens = [64, 128], [64, 256]
    elif quick:
        widths, tokens = [2048, 4096], [4096, 8192]
    else:
        widths, tokens = [1024, 2048, 4096, 8192], [2048, 4096, 8192, 16384]
    out = []
    for h in widths:
        for t in tokens:
            for k, n in [(h, 3 * h), (h, h), (h, 4 * h), (4 * h, h)]:
                out += [(t, n, k), (t, k, n), (k, n, t)]
    return out


def measure_gemms(device, timer, quick, deadline):
    cpu = device.type != "cuda"
    dtype = torch.float32 if cpu else torch.bfloat16
    rows = []
    fp8 = (
        not cpu
        and hasattr(torch, "float8_e4m3fn")
        and hasattr(torch, "_scaled_mm")
        and torch.cuda.get_device_capability(device) >= (8, 9)
    )
    for m, n, k in gemm_shapes(quick, cpu):
        if now() > deadline:
            break
        a = torch.randn(m, k, device=device, dtype=dtype)
        b = torch.randn(k, n, device=device, dtype=dtype)
        s = timer(lambda: torch.matmul(a, b))
        rows.append({"m": m, "n": n, "k": k, "fp8": False, "seconds": s})
        if fp8 and m % 16 == 0 and n % 16 == 0 and k % 16 == 0:
            a8 = a.to(torch.float8_e4m3fn)
            # _scaled_mm wants the second operand column-major.
            b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()
            one = torch.ones((), device=device)
            try:
                s = timer(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                   out_dtype=torch.bfloat16))
                rows.append({"m": m, "n": n, "k": k, "fp8": True, "seconds": s})
            except Exception:  # noqa: BLE001 - an older _scaled_mm: no FP8 rows
                fp8 = False
        del a, b
    return rows


def attention(q, k, v):
    f = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if f is not None:
        return f(q, k, v, is_causal=True)
    # PyTorch 1.13: the math, causal (the CPU check only).
    s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    n = s.shape[-1]
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v


def measure_attention(device, timer, quick, deadline):
    cpu = device.type != "cuda"
    dtype = torch.float32 if cpu else torch.bfloat16
    if cpu:
        cases = [(2, 4, 128, 32), (1, 4, 256, 32)]
    else:
        seqs = [2048, 8192] if quick else [1024, 2048, 4096, 8192, 16384]
        cases = [(max(1, 32768 // s), 32, s, 128) for s in seqs]
        cases += [(max(1, 16384 // s), 64, s, 64) for s in seqs[:2]]
    rows = []
    for batch, heads, seq, head in cases:
        if now() > deadline:
            break
        shape = (batch, heads, seq, head)
        q, k, v = (torch.randn(shape, device=device, dtype=dtype, requires_grad=True)
                   for _ in range(3))
        fwd = timer(lambda: attention(q, k, v), reps=5)
        out = attention(q, k, v)
        grad = torch.randn_like(out)

        def both():
            o = attention(q, k, v)
            o.backward(grad)

        total = timer(both, reps=5)
        rows.append({
            "batch": batch, "heads": heads, "seq": seq, "head_size": head,
            "forward_seconds": fwd, "backward_seconds": max(total - fwd, 1e-9),
        })
        del q, k, v, out, grad
    return rows


def measure_bandwidth(device, timer, quick):
    cpu = device.type != "cuda"
    sizes = [1 << 20] if cpu else ([1 << 28] if quick else [1 << 27, 1 << 28, 1 << 29])
    rows = []
    for elements in sizes:
        x = torch.empty(elements, device=device, dtype=torch.bfloat16)
        y = torch.empty_like(x)
        s = timer(lambda: y.copy_(x))
        rows.append({"bytes": 2.0 * 2 * elements, "seconds": s})
    return rows


def measure_collectives(device, quick):
    """All-reduces and all-gathers over every process (torchrun): nccl-tests'
    sizes, the largest set the bus efficiencies."""
    import torch.distributed as dist

    ranks, rank = dist.get_world_size(), dist.get_rank()
    local = int(os.environ.get("LOCAL_WORLD_SIZE", ranks))
    across = ranks > local
    timer = Timer(device)
    rows = []
    sizes = [1 << 24, 1 << 28] if quick else [1 << 20, 1 << 24, 1 << 28, 1 << 30]
    for size in sizes:
        elements = size // 2
        x = torch.ones(elements, device=device, dtype=torch.bfloat16)
        s = timer(lambda: dist.all_reduce(x), reps=5, warmup=2)
        rows.append({"all_reduce": True, "ranks": ranks, "across_nodes": across,
                     "bytes": float(size), "seconds": s})
        out = torch.empty(elements, device=device, dtype=torch.bfloat16)
        part = x[: elements // ranks]
        if hasattr(dist, "all_gather_into_tensor"):
            s = timer(lambda: dist.all_gather_into_tensor(out[: part.numel() * ranks], part),
                      reps=5, warmup=2)
            rows.append({"all_reduce": False, "ranks": ranks, "across_nodes": across,
                         "bytes": float(part.numel() * ranks * 2), "seconds": s})
    return rows if rank == 0 else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="plan3d-profile.json", help="the profile to write")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--quick", action="store_true", help="fewer shapes (about a minute)")
    ap.add_argument("--budget", type=float, default=300.0,
                    help="seconds to spend at most (default 300)")
    args = ap.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("no CUDA GPU here: measure on the GPU you plan for (--device cpu only "
                 "checks the script)")
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        import torch.distributed as dist

        dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if args.device == "cuda":
            torch.cuda.set_device(local)
    device = torch.device(args.device, torch.cuda.current_device()) \
        if args.device == "cuda" else torch.device("cpu")
    start = now()
    deadline = start + args.budget * 0.9
    timer = Timer(device)
    torch.manual_seed(0)
    # The shortest thing the timer can time: a one-element add.
    tiny = torch.ones(1, device=device)
    floor = timer(lambda: tiny.add_(1.0), reps=50)
    profile = {
        "plan3d_profile": VERSION,
        "device": device_info(device),
        "timer_floor_seconds": floor,
        "gemm": measure_gemms(device, timer, args.quick, deadline - args.budget * 0.4),
        "attention": measure_attention(device, timer, args.quick, deadline - args.budget * 0.15),
        "bandwidth": measure_bandwidth(device, timer, args.quick),
        "collectives": [],
    }
    if distributed:
        rows = measure_collectives(device, args.quick)
        if rows is None:
            return 0
        profile["collectives"] = rows
    with open(args.out, "w") as f:
        json.dump(profile, f, indent=1)
    print("wrote %s: %d GEMMs, %d attentions, %d copies, %d collectives in %.0f s"
          % (args.out, len(profile["gemm"]), len(profile["attention"]),
             len(profile["bandwidth"]), len(profile["collectives"]), now() - start),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
