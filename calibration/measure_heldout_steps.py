"""Held-out single-GPU step shapes, measured as `measure_steps.py steps` measures (copy it beside this file).

Shapes the model was not built on: Llama 2's 11 008 FFN and 32 000 vocabulary, Mistral's GQA at 8 K,
TinyLlama's 4 KV heads, Pythia's untied 50 304 vocabulary, Qwen 2.5's 896-wide layer with head size 64
and a 151 936 vocabulary, Llama 3.2 3B, GPT at head size 80 (2.7B at 1 K, Phi-2's shape), Falcon's 71
heads sharing one KV head, Gemma's head size 256 and 256 000 vocabulary, an odd micro-batch, a 64 K
sequence; then two of `measure_steps.py compiled`'s runs if time is left. Writes
$OUT/h100_heldout_steps.json after every row (a run cut short still returns what it measured).
"""
import json, os, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_steps as ms  # ../shared/calibration/measure_steps.py, copied beside this file

OUT = os.environ.get("OUT", "/tmp")
BUDGET_S = float(os.environ.get("HELDOUT_BUDGET_S", "330"))
L = dict(gated=True, llama=True)
G = dict(gated=False, llama=False)
ms.MODELS.update({
    "llama2-7b-l4": dict(layers=4, h=4096, heads=32, kv=32, ffn=11008, vocab=32000, tied=False, seq=4096, **L),
    "mistral-7b-l4-s8k": dict(layers=4, h=4096, heads=32, kv=8, ffn=14336, vocab=32000, tied=False, seq=8192, **L),
    "tinyllama-1.1b": dict(layers=22, h=2048, heads=32, kv=4, ffn=5632, vocab=32000, tied=False, seq=2048, **L),
    "tinyllama-l4-s64k": dict(layers=4, h=2048, heads=32, kv=4, ffn=5632, vocab=32000, tied=False, seq=65536, **L),
    "pythia-410m": dict(layers=24, h=1024, heads=16, kv=16, ffn=4096, vocab=50304, tied=False, seq=2048, **G),
    "qwen2.5-0.5b": dict(layers=24, h=896, heads=14, kv=2, ffn=4864, vocab=151936, tied=True, seq=4096, **L),
    "llama-3.2-3b-l14": dict(layers=14, h=3072, heads=24, kv=8, ffn=8192, vocab=128256, tied=True, seq=4096, **L),
    "gpt-2.7b-l16-s1k": dict(layers=16, h=2560, heads=32, kv=32, ffn=10240, vocab=50257, tied=True, seq=1024, **G),
    "phi-2-l8": dict(layers=8, h=2560, heads=32, kv=32, ffn=10240, vocab=51200, tied=False, seq=2048, **G),
    "falcon-7b-l4": dict(layers=4, h=4544, heads=71, kv=1, ffn=18176, vocab=65024, tied=False, seq=2048, **G),
    "gemma-2b-l9": dict(layers=9, h=2048, heads=8, kv=1, ffn=16384, vocab=256000, tied=True, seq=2048, **L),
})
RUNS = [("llama2-7b-l4", 1, False), ("llama2-7b-l4", 4, False), ("llama2-7b-l4", 8, True),
        ("mistral-7b-l4-s8k", 1, False), ("mistral-7b-l4-s8k", 2, True),
        ("tinyllama-1.1b", 4, False), ("tinyllama-1.1b", 8, False), ("tinyllama-1.1b", 16, True),
        ("tinyllama-l4-s64k", 1, False), ("tinyllama-l4-s64k", 1, True),
        ("pythia-410m", 8, False), ("pythia-410m", 16, True),
        ("qwen2.5-0.5b", 2, False), ("qwen2.5-0.5b", 4, True),
        ("llama-3.2-3b-l14", 1, False), ("llama-3.2-3b-l14", 2, True),
        ("gpt-2.7b-l16-s1k", 8, False), ("gpt-2.7b-l16-s1k", 16, True),
        ("phi-2-l8", 4, False),
        ("falcon-7b-l4", 2, False), ("falcon-7b-l4", 4, True),
        ("gemma-2b-l9", 2, False),
        ("gpt-1.3b", 3, False)]
COMPILED = [("gpt-1.3b", 4), ("llama-1b", 1), ("tinyllama-1.1b", 4), ("qwen2.5-0.5b", 2)]


def save(res):
    name = "h100_heldout_compiled.json" if sys.argv[1:] == ["compiled"] else "h100_heldout_steps.json"
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(res, f, indent=1)


def main():
    smoke = len(sys.argv) > 1 and sys.argv[1] == "smoke"
    info = ms.info()
    info["cudnn"] = torch.backends.cudnn.version()
    try:
        v = torch.cuda.nccl.version()
        info["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    except Exception:
        info["nccl"] = None
    res = {"info": info, "script": "calibration/measure_heldout_steps.py", "steps": []}
    print(json.dumps(info), flush=True)
    t0 = time.time()
    compiled_only = len(sys.argv) > 1 and sys.argv[1] == "compiled"
    runs = RUNS[:1] if smoke else [] if compiled_only else RUNS
    for name, mb, rc in runs:
        r = ms.step_row(name, mb, rc, steps=2 if smoke else 8)
        res["steps"].append(r)
        print(round(time.time() - t0, 1), json.dumps({k: r.get(k) for k in ("model", "micro_batch", "recompute", "step_s", "peak_bytes", "reserved_bytes", "error")}), flush=True)
        save(res)
    for name, mb in ([] if smoke else COMPILED):
        if time.time() - t0 > BUDGET_S:
            print("skipped compiled", name, mb, "(time)", flush=True)
            continue
        r = ms.step_row(name, mb, False, compiled=True)
        res["steps"].append(r)
        print(round(time.time() - t0, 1), json.dumps({k: r.get(k) for k in ("model", "micro_batch", "compiled", "step_s", "peak_bytes", "warmup_s", "error")}), flush=True)
        save(res)
    res["elapsed_s"] = time.time() - t0
    save(res)


if __name__ == "__main__":
    main()
