"""Shape effects on one NVIDIA GPU, as calibration data for plan3d's kernel model: wave
quantization of GEMMs (bf16 and FP8) over rows, the cost of an FP8 current-scaling cast
(amax + scaled cast), grouped expert GEMMs (torch._grouped_mm against a per-expert loop),
attention through scaled_dot_product_attention (flash backend, causal, head size 64 and 128,
sequence 512 to 65 536, forward and backward), the eager launch floor and small element-wise
kernels (RMSNorm, SwiGLU, rotary embedding), eager and under torch.compile.

Usage: python3 measure_shapes.py          ($OUT/shapes.json, or /tmp/shapes.json)
       SHAPES_SMOKE=1 python3 measure_shapes.py   (tiny sizes; runs on the CPU where no GPU is)
Every section is guarded: an error is recorded in the JSON and the script goes on; the JSON is
rewritten after each section, so a run cut short still leaves the sections done.  About two
minutes on an H100 (most of it torch.compile).  Times are the mean of N back-to-back launches
after warm-ups (CUDA events), N chosen so that each measurement spans about 20 ms.
"""
import json, os, platform, pydoc, signal, subprocess, sys, time

OUT = os.environ.get("OUT", "/tmp")
PATH = os.path.join(OUT, "shapes.json")
SMOKE = os.environ.get("SHAPES_SMOKE") == "1"

try:
    import torch
    import torch.nn.functional as F
except Exception as ex:  # noqa
    print("torch cannot be imported:", ex, flush=True)
    with open(PATH, "w") as f:
        json.dump({"error": "import torch failed: " + str(ex)}, f, indent=1)
    sys.exit(1)

CUDA = torch.cuda.is_available()
dev = "cuda" if CUDA else "cpu"
if not CUDA and not SMOKE:
    print("no CUDA device: run with SHAPES_SMOKE=1 for a CPU smoke test", flush=True)
    with open(PATH, "w") as f:
        json.dump({"error": "no CUDA device", "torch": torch.__version__}, f, indent=1)
    sys.exit(1)
BF16 = torch.bfloat16
res = {}


def save():
    with open(PATH, "w") as f:
        json.dump(res, f, indent=1)


def sync():
    if CUDA:
        torch.cuda.synchronize()


def _once(fn, iters):
    sync()
    if CUDA:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            fn()
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / 1e3
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    return time.perf_counter() - t


def cuda_time(fn, warm=3, target_s=0.02, min_iters=10, max_iters=200):
    """Mean seconds per launch of fn: warm-ups, a probe, then N launches spanning ~target_s."""
    for _ in range(warm):
        fn()
    probe = _once(fn, 2) / 2
    iters = int(max(min_iters, min(max_iters, target_s / max(probe, 1e-7))))
    if SMOKE:
        iters = 2
    return _once(fn, iters) / iters


def err(ex):
    return (type(ex).__name__ + ": " + str(ex))[:300]


def free():
    if CUDA:
        torch.cuda.empty_cache()


def section(name, fn):
    t0 = time.time()
    try:
        fn()
    except Exception as ex:  # noqa
        res.setdefault("errors", {})[name] = err(ex)
        print("section", name, "failed:", err(ex), flush=True)
    res.setdefault("section_seconds", {})[name] = round(time.time() - t0, 1)
    print("section", name, round(time.time() - t0, 1), "s", flush=True)
    free()
    save()


# ---------------------------------------------------------------- info
def info():
    d = {"torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
         "smoke": SMOKE, "device": dev}
    try:
        d["cudnn"] = torch.backends.cudnn.version()
    except Exception as ex:  # noqa
        d["cudnn"] = err(ex)
    if CUDA:
        p = torch.cuda.get_device_properties(0)
        props = {}
        for k in dir(p):
            if k.startswith("_"):
                continue
            try:
                v = getattr(p, k)
            except Exception:  # noqa
                continue
            if isinstance(v, (int, float, str, bool)):
                props[k] = v
            elif v is not None and not callable(v):
                props[k] = str(v)
        d["gpu"] = p.name
        d["sms"] = p.multi_processor_count
        d["props"] = props
        for k, f in [("clock_rate_mhz_now", getattr(torch.cuda, "clock_rate", None))]:
            try:
                d[k] = f() if f else None
            except Exception as ex:  # noqa
                d[k] = err(ex)
        try:
            q = "name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit,temperature.gpu"
            d["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv"],
                                             capture_output=True, text=True, timeout=20).stdout.strip()
        except Exception as ex:  # noqa
            d["nvidia_smi"] = err(ex)
    res["info"] = d
    print(json.dumps({k: v for k, v in d.items() if k != "props"}), flush=True)


# ---------------------------------------------------------------- 1. wave quantization
def wave():
    rows = []
    res["wave"] = rows
    if SMOKE:
        shapes, ms = [(64, 64), (128, 128)], [16, 32, 48]
    else:
        shapes = [(4096, 4096), (8192, 8192), (4096, 14336)]
        ms = list(range(128, 8193, 128)) + list(range(9216, 16385, 1024))
    Mmax = max(ms)
    one = torch.tensor(1.0, device=dev)
    for K, N in shapes:
        x = torch.randn(Mmax, K, device=dev, dtype=BF16)
        w = torch.randn(N, K, device=dev, dtype=BF16)
        fp8 = (K, N) == shapes[1]
        if fp8:
            try:
                x8 = x.to(torch.float8_e4m3fn)
                w8 = w.to(torch.float8_e4m3fn)
            except Exception as ex:  # noqa
                fp8 = False
                res.setdefault("errors", {})["wave_fp8_cast"] = err(ex)
        for M in ms:
            a = x[:M]
            row = {"M": M, "K": K, "N": N}
            try:
                t = cuda_time(lambda: a @ w.t())
                row.update(bf16_s=t, bf16_tflops=2.0 * M * K * N / t / 1e12)
            except Exception as ex:  # noqa
                row["bf16_error"] = err(ex)
            if fp8:
                a8 = x8[:M]
                try:
                    t8 = cuda_time(lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=BF16))
                    row.update(fp8_s=t8, fp8_tflops=2.0 * M * K * N / t8 / 1e12)
                except Exception as ex:  # noqa
                    row["fp8_error"] = err(ex)
            rows.append(row)
        del x, w
        if fp8:
            del x8, w8
        free()
        save()


# ---------------------------------------------------------------- 2. FP8 current-scaling cast
def cast():
    rows = []
    res["fp8_cast"] = rows
    res["fp8_cast_note"] = ("amax = x.abs().amax(); scale = 448/amax (fp32); q = (x*scale).to(float8_e4m3fn): "
                            "eager, as Transformer Engine's current scaling computes it (TE fuses it); "
                            "GB/s counts the bf16 input bytes only")
    K = 256 if SMOKE else 4096
    exps = range(14, 17) if SMOKE else range(22, 29)
    fmax = torch.finfo(torch.float8_e4m3fn).max
    for e in exps:
        M = (1 << e) // K
        row = {"M": M, "K": K, "elements": M * K, "bf16_bytes": 2 * M * K}
        try:
            x = torch.randn(M, K, device=dev, dtype=BF16)
            scale = torch.tensor(2.0, device=dev)

            def amax():
                return x.abs().amax()

            def scaled_cast():
                return (x * scale).to(torch.float8_e4m3fn)

            def full():
                a = x.abs().amax().float()
                s = fmax / torch.clamp(a, min=1e-12)
                return (x * s).to(torch.float8_e4m3fn), s

            for name, f in [("amax", amax), ("cast", scaled_cast), ("amax_plus_cast", full)]:
                t = cuda_time(f)
                row[name + "_s"] = t
                row[name + "_gbps"] = 2 * M * K / t / 1e9
            del x
        except Exception as ex:  # noqa
            row["error"] = err(ex)
        rows.append(row)
        free()


# ---------------------------------------------------------------- 3. grouped expert GEMMs
def grouped():
    rows = []
    res["grouped"] = rows
    has = hasattr(torch, "_grouped_mm")
    g = {"torch_has_grouped_mm": has}
    if has:
        try:
            g["schema"] = str(torch.ops.aten._grouped_mm.default._schema)
        except Exception as ex:  # noqa
            g["schema"] = err(ex)
        try:
            g["help"] = pydoc.render_doc(torch._grouped_mm, renderer=pydoc.plaintext)[:2000]
        except Exception as ex:  # noqa
            g["help"] = err(ex)
    g["call"] = ("torch._grouped_mm(a (G*T, K) bf16 row-major, b (G, K, N) = W (G, N, K).transpose(-2, -1), "
                 "offs = int32 cumulative row ends (G,), out_dtype=bf16); loop: torch.mm(a[s:e], b[g], out=y[s:e])")
    res["grouped_api"] = g
    if SMOKE:
        shapes = {"fc1": (256, 128), "fc2": (64, 256)}
        Gs, Ts = (2, 4), (16, 32)
    else:
        shapes = {"dsv3_fc1": (7168, 4096), "dsv3_fc2": (2048, 7168)}
        Gs, Ts = (4, 8, 32), (128, 512, 2048, 8192)
    for name, (K, N) in shapes.items():
        for G in Gs:
            w = torch.randn(G, N, K, device=dev, dtype=BF16)
            b = w.transpose(-2, -1)
            for T in Ts:
                row = {"shape": name, "K": K, "N": N, "groups": G, "tokens_per_group": T}
                fl = 2.0 * G * T * K * N
                try:
                    a = torch.randn(G * T, K, device=dev, dtype=BF16)
                    offs = torch.arange(1, G + 1, device=dev, dtype=torch.int32) * T
                    y = torch.empty(G * T, N, device=dev, dtype=BF16)
                    if has:
                        try:
                            f = lambda: torch._grouped_mm(a, b, offs=offs, out_dtype=BF16)
                            ref = f()
                            t = cuda_time(f)
                            row.update(grouped_s=t, grouped_tflops=fl / t / 1e12)
                            if G <= 8 and T <= 512:
                                chk = (a[:T].float() @ b[0].float())
                                row["grouped_max_rel_err_g0"] = float((ref[:T].float() - chk).abs().max() / chk.abs().max())
                            del ref
                        except Exception as ex:  # noqa
                            row["grouped_error"] = err(ex)

                    def loop():
                        for i in range(G):
                            torch.mm(a[i * T:(i + 1) * T], b[i], out=y[i * T:(i + 1) * T])
                    t = cuda_time(loop)
                    row.update(loop_s=t, loop_tflops=fl / t / 1e12)
                    del a, y
                except Exception as ex:  # noqa
                    row["error"] = err(ex)
                rows.append(row)
                free()
            del w, b
            free()
        save()


# ---------------------------------------------------------------- 4. attention
def attention():
    from torch.nn.attention import sdpa_kernel, SDPBackend
    rows = []
    res["attention"] = rows
    res["attention_note"] = ("flops: forward 4*b*h*s^2*d, halved when causal; backward 2.5x forward; "
                             "bwd_s = fwd_bwd_s - fwd_s; batch = 32768/seq (1 from 32768 up)")
    if SMOKE:
        seqs, tokens = [64, 128], 256
        cfgs = [(16, 2, 2), (32, 2, 1)]
    else:
        seqs, tokens = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536], 32768
        cfgs = [(64, 32, 32), (128, 32, 8)]  # (head_dim, query heads, kv heads)
    jobs = [(D, H, KV, S, True) for D, H, KV in cfgs for S in seqs]
    ref_s = 4096 if not SMOKE else 128
    jobs += [(D, H, KV, ref_s, False) for D, H, KV in cfgs]

    def run(q, k, v, causal, gqa, backend):
        ctx = sdpa_kernel(backend) if backend is not None else None
        kw = {"enable_gqa": True} if gqa else {}

        def fwd():
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, **kw)

        def body():
            tf = cuda_time(fwd, 2)
            g = torch.randn_like(fwd())

            def fb():
                fwd().backward(g)
            tfb = cuda_time(fb, 2)
            q.grad = k.grad = v.grad = None
            return tf, tfb
        if ctx is None:
            return body()
        with ctx:
            return body()

    for D, H, KV, S, causal in jobs:
        B = max(1, tokens // S)
        row = {"head_dim": D, "heads": H, "kv_heads": KV, "seq": S, "batch": B, "causal": causal}
        try:
            q = torch.randn(B, H, S, D, device=dev, dtype=BF16, requires_grad=True)
            k = torch.randn(B, KV, S, D, device=dev, dtype=BF16, requires_grad=True)
            v = torch.randn(B, KV, S, D, device=dev, dtype=BF16, requires_grad=True)
            tries = []
            gqa = KV != H
            tries.append(("flash", SDPBackend.FLASH_ATTENTION, q, k, v, gqa))
            tries.append(("default", None, q, k, v, gqa))
            if gqa:
                tries.append(("flash_kv_expanded", SDPBackend.FLASH_ATTENTION, q,
                              k.detach().repeat_interleave(H // KV, 1).requires_grad_(),
                              v.detach().repeat_interleave(H // KV, 1).requires_grad_(), False))
            out = None
            for label, be, qq, kk, vv, gq in tries:
                try:
                    out = run(qq, kk, vv, causal, gq, be)
                    row["backend"] = label
                    break
                except Exception as ex:  # noqa
                    row.setdefault("tried_errors", {})[label] = err(ex)
                    free()
            if out is None:
                raise RuntimeError("no backend ran")
            tf, tfb = out
            fl = 4.0 * B * H * S * S * D / (2 if causal else 1)
            row.update(fwd_s=tf, fwd_bwd_s=tfb, bwd_s=tfb - tf, fwd_tflops=fl / tf / 1e12,
                       bwd_tflops=2.5 * fl / max(tfb - tf, 1e-9) / 1e12, fwd_bwd_tflops=3.5 * fl / tfb / 1e12)
        except Exception as ex:  # noqa  (an OOM lands here)
            row["error"] = err(ex)
        q = k = v = tries = out = None
        rows.append(row)
        free()
        save()


# ---------------------------------------------------------------- 5. launch floor and element-wise
def rmsnorm(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rmsnorm_hf(x, w, eps=1e-6):  # Hugging Face Llama: fp32 inside, cast back
    xf = x.float()
    return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def swiglu(a, b):
    return F.silu(a) * b


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope(q, cos, sin):
    return q * cos + rotate_half(q) * sin


def fp8_cast(x):
    a = x.abs().amax().float()
    s = 448.0 / torch.clamp(a, min=1e-12)
    return (x * s).to(torch.float8_e4m3fn), s


def elementwise_inputs():
    T, Hd = (256, 256) if SMOKE else (8192, 4096)
    hd = 128 if not SMOKE else 64
    x = torch.randn(T, Hd, device=dev, dtype=BF16)
    w = torch.randn(Hd, device=dev, dtype=BF16)
    a = torch.randn(T, Hd, device=dev, dtype=BF16)
    b = torch.randn(T, Hd, device=dev, dtype=BF16)
    q = torch.randn(T, Hd // hd, hd, device=dev, dtype=BF16)
    cos = torch.randn(T, 1, hd, device=dev, dtype=BF16)
    sin = torch.randn(T, 1, hd, device=dev, dtype=BF16)
    E = 2 * T * Hd
    cs = 2 * 2 * T * hd
    ops = {  # name: (function, args, bytes read + written)
        "rmsnorm": (rmsnorm, (x, w), 2 * E),
        "rmsnorm_hf_fp32": (rmsnorm_hf, (x, w), 2 * E),
        "swiglu": (swiglu, (a, b), 3 * E),
        "rope": (rope, (q, cos, sin), 2 * E + cs),
        "fp8_cast_current_scaling": (fp8_cast, (x,), E + E // 2),
    }
    return T, Hd, ops


def launches():
    d = {}
    res["launch"] = d
    n = 1000
    a = torch.zeros(1, device=dev)
    b = torch.ones(1, device=dev)

    def adds():
        for _ in range(n):
            a.add_(b)

    def adds_alloc():
        c = a
        for _ in range(n):
            c = c + b
        return c

    for name, f in [("add_inplace", adds), ("add_alloc", adds_alloc)]:
        f()
        sync()
        t = _once(f, 1)
        sync()
        w0 = time.perf_counter()
        f()
        sync()
        wall = time.perf_counter() - w0
        d[name] = {"launches": n, "event_us_per_launch": t / n * 1e6, "wall_us_per_launch": wall / n * 1e6}
    print(json.dumps(d), flush=True)


def elementwise_eager():
    rows = []
    res["elementwise"] = rows
    T, Hd, ops = elementwise_inputs()
    for name, (f, args, nbytes) in ops.items():
        row = {"op": name, "mode": "eager", "tokens": T, "width": Hd, "bytes": nbytes}
        try:
            t = cuda_time(lambda: f(*args))
            row.update(s=t, gbps=nbytes / t / 1e9)
        except Exception as ex:  # noqa
            row["error"] = err(ex)
        rows.append(row)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("torch.compile took too long")


def elementwise_compiled():
    rows = res.setdefault("elementwise", [])
    T, Hd, ops = elementwise_inputs()
    budget = 150.0 if not SMOKE else 300.0
    t_start = time.time()
    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        signal.signal(signal.SIGALRM, _alarm)
    for name, (f, args, nbytes) in ops.items():
        row = {"op": name, "mode": "compiled", "tokens": T, "width": Hd, "bytes": nbytes}
        left = budget - (time.time() - t_start)
        if left < 20:
            row["error"] = "skipped: compile budget spent"
            rows.append(row)
            continue
        try:
            cf = torch.compile(f, dynamic=False)
            c0 = time.time()
            if use_alarm:
                signal.alarm(int(min(60, left)))
            try:
                cf(*args)
                sync()
            finally:
                if use_alarm:
                    signal.alarm(0)
            row["compile_s"] = round(time.time() - c0, 2)
            t = cuda_time(lambda: cf(*args))
            row.update(s=t, gbps=nbytes / t / 1e9)
        except BaseException as ex:  # noqa
            row["error"] = err(ex)
        rows.append(row)
        save()


# ---------------------------------------------------------------- summary
def summary():
    s = {}
    w = [r for r in res.get("wave", []) if "bf16_tflops" in r]
    for K, N in {(r["K"], r["N"]) for r in w}:
        rs = sorted((r for r in w if (r["K"], r["N"]) == (K, N)), key=lambda r: r["M"])
        drops = [(rs[i]["M"], rs[i + 1]["M"], rs[i]["bf16_tflops"], rs[i + 1]["bf16_tflops"])
                 for i in range(len(rs) - 1) if rs[i + 1]["M"] - rs[i]["M"] == rs[1]["M"] - rs[0]["M"]]
        big = sorted(drops, key=lambda d: d[3] / d[2])[:3]
        s[f"wave_{K}x{N}_largest_drops (M_lo, M_hi, tflops_lo, tflops_hi)"] = [[a, b, round(c), round(d)] for a, b, c, d in big]
        s[f"wave_{K}x{N}_max_tflops"] = round(max(r["bf16_tflops"] for r in rs))
    for r in res.get("wave", []):
        if r["M"] in (8192,) and (r["K"], r["N"]) == (8192, 8192):
            s["gemm_8192^3"] = {k: round(v) for k, v in r.items() if k.endswith("tflops")}
    for r in res.get("fp8_cast", []):
        if "amax_plus_cast_gbps" in r:
            s[f"cast_{r['elements']}_gbps"] = round(r["amax_plus_cast_gbps"])
    for r in res.get("grouped", []):
        s[f"grouped_{r['shape']}_G{r['groups']}_T{r['tokens_per_group']}"] = [
            round(r.get("grouped_tflops", -1)), round(r.get("loop_tflops", -1))]
    for r in res.get("attention", []):
        if "fwd_tflops" in r:
            s[f"attn_d{r['head_dim']}_s{r['seq']}_{'causal' if r['causal'] else 'full'}"] = [
                round(r["fwd_tflops"]), round(r["bwd_tflops"]), r.get("backend")]
        else:
            s[f"attn_d{r['head_dim']}_s{r['seq']}"] = r.get("error", "?")[:80]
    for k, v in res.get("launch", {}).items():
        s["launch_" + k + "_us"] = round(v["event_us_per_launch"], 2)
    for r in res.get("elementwise", []):
        s[f"ew_{r['op']}_{r['mode']}_gbps"] = round(r["gbps"]) if "gbps" in r else r.get("error", "?")[:80]
    res["summary"] = s
    for k, v in s.items():
        print(k, v, flush=True)


def main():
    t0 = time.time()
    res["started"] = time.strftime("%Y-%m-%d %H:%M:%S")
    section("info", info)
    save()
    section("wave", wave)
    section("fp8_cast", cast)
    section("grouped", grouped)
    section("attention", attention)
    section("launch", launches)
    section("elementwise_eager", elementwise_eager)
    section("elementwise_compiled", elementwise_compiled)
    try:
        if CUDA:
            q = "clocks.sm,clocks.max.sm,temperature.gpu,power.draw"
            res["info"]["nvidia_smi_end"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=" + q, "--format=csv"], capture_output=True, text=True,
                timeout=20).stdout.strip()
    except Exception as ex:  # noqa
        res["info"]["nvidia_smi_end"] = err(ex)
    res["total_seconds"] = round(time.time() - t0, 1)
    section("summary", summary)
    print("total", res["total_seconds"], "s ->", PATH, flush=True)


if __name__ == "__main__":
    main()
