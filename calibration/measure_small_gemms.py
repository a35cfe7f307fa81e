"""GEMMs with few rows (a mixture of experts' per-expert GEMMs, small micro-batches) and attention
at head size 64, on one NVIDIA GPU: calibration data for the wave-quantization / launch-floor end
of plan3d's kernel model.  Shapes: DeepSeek-V3's experts (d 7168, expert ffn 2048, gated),
Mixtral 8x7B's (d 4096, ffn 14336, gated), Llama 3 8B's dense linears, rows 64 to 8192; bf16 and
FP8 (torch._scaled_mm, per-tensor scales).  Usage: python3 measure_small_gemms.py  ($OUT/small_gemms.json)
"""
import json, os, time
import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT", "/tmp")
dev = "cuda"


def cuda_time(fn, warm=3, iters=20):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / iters / 1e3


SHAPES = {  # name: (K, N) of y = x W^T with x (M, K)
    "dsv3_expert_fc1": (7168, 4096), "dsv3_expert_fc2": (2048, 7168),
    "mixtral_fc1": (4096, 28672), "mixtral_fc2": (14336, 4096),
    "llama8b_qkv": (4096, 6144), "llama8b_proj": (4096, 4096),
    "llama8b_fc1": (4096, 28672), "llama8b_fc2": (14336, 4096),
}


def main():
    p = torch.cuda.get_device_properties(0)
    res = {"info": {"gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
                    "cuda": torch.version.cuda}, "gemm": [], "attention": []}
    one = torch.tensor(1.0, device=dev)
    t0 = time.time()
    for name, (K, N) in SHAPES.items():
        b16 = torch.randn(N, K, device=dev, dtype=torch.bfloat16)
        b8 = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn)
        for M in (64, 128, 256, 512, 1024, 2048, 4096, 8192):
            a16 = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
            t = cuda_time(lambda: a16 @ b16.t())
            row = {"shape": name, "M": M, "K": K, "N": N, "bf16_s": t, "bf16_tflops": 2.0 * M * K * N / t / 1e12}
            try:
                a8 = a16.to(torch.float8_e4m3fn)
                t8 = cuda_time(lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
                row.update(fp8_s=t8, fp8_tflops=2.0 * M * K * N / t8 / 1e12)
            except Exception as ex:  # noqa
                row["fp8_error"] = str(ex)[:200]
            res["gemm"].append(row)
    print("gemm", round(time.time() - t0, 1), "s", flush=True)
    for D in (64, 128):
        for S in (1024, 4096, 16384):
            H = 2048 // D * 2
            B = max(1, 16384 // S)
            q = torch.randn(B, H, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(B, H, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn(B, H, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
            tf = cuda_time(fwd, 2, 10)
            g = torch.randn_like(fwd())
            tfb = cuda_time(lambda: fwd().backward(g), 2, 10)
            fl = 4.0 * B * H * S * S * D / 2
            res["attention"].append({"head_dim": D, "heads": H, "seq": S, "batch": B, "fwd_s": tf, "fwd_bwd_s": tfb,
                                     "fwd_tflops": fl / tf / 1e12, "bwd_tflops": 2.5 * fl / (tfb - tf) / 1e12})
            del q, k, v, g
    print("all", round(time.time() - t0, 1), "s", flush=True)
    with open(os.path.join(OUT, "small_gemms.json"), "w") as f:
        json.dump(res, f, indent=1)
    for r in res["gemm"][::8] + res["attention"]:
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
