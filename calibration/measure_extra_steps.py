"""New single-GPU step shapes (not in measure_steps.RUNS), measured the same way as `measure_steps.py steps` (copy it beside this file); writes $OUT/h100_extra_steps.json."""
import json, os, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_steps as ms  # ../shared/calibration/measure_steps.py, copied beside this file
OUT = os.environ.get("OUT", "/tmp")
ms.MODELS.update({
    "gpt-125m": dict(layers=12, h=768, heads=12, kv=12, ffn=3072, vocab=50257, gated=False, llama=False, tied=True, seq=1024),
    "gpt-125m-s2k": dict(layers=12, h=768, heads=12, kv=12, ffn=3072, vocab=50257, gated=False, llama=False, tied=True, seq=2048),
    "gpt-760m": dict(layers=24, h=1536, heads=16, kv=16, ffn=6144, vocab=50257, gated=False, llama=False, tied=True, seq=2048),
    "gpt-1.3b-s512": dict(layers=24, h=2048, heads=16, kv=16, ffn=8192, vocab=50257, gated=False, llama=False, tied=True, seq=512),
    "gpt-1.3b-s8k": dict(layers=24, h=2048, heads=16, kv=16, ffn=8192, vocab=50257, gated=False, llama=False, tied=True, seq=8192),
    "llama-1b-s16k": dict(layers=16, h=2048, heads=32, kv=8, ffn=8192, vocab=128256, gated=True, llama=True, tied=True, seq=16384),
    "llama-1b-s32k": dict(layers=16, h=2048, heads=32, kv=8, ffn=8192, vocab=128256, gated=True, llama=True, tied=True, seq=32768),
    "llama-8b-l4-s2k": dict(layers=4, h=4096, heads=32, kv=8, ffn=14336, vocab=128256, gated=True, llama=True, tied=False, seq=2048),
    "llama-8b-l2-s32k": dict(layers=2, h=4096, heads=32, kv=8, ffn=14336, vocab=128256, gated=True, llama=True, tied=False, seq=32768),
    "qwen-32b-l2": dict(layers=2, h=5120, heads=40, kv=8, ffn=27648, vocab=152064, gated=True, llama=True, tied=False, seq=4096),
})
RUNS = [("gpt-125m", 8, False), ("gpt-125m", 16, False), ("gpt-125m", 32, True), ("gpt-125m-s2k", 8, False),
        ("gpt-760m", 4, False), ("gpt-760m", 8, True),
        ("gpt-1.3b-s512", 16, False), ("gpt-1.3b-s8k", 1, False), ("gpt-1.3b-s8k", 2, True),
        ("llama-1b-s16k", 1, False), ("llama-1b-s16k", 2, True), ("llama-1b-s32k", 1, True),
        ("llama-8b-l4-s2k", 4, False), ("llama-8b-l2-s32k", 1, True),
        ("qwen-32b-l2", 1, False), ("qwen-32b-l2", 2, True)]
res = {"info": ms.info(), "steps": []}
for name, mb, rc in RUNS:
    r = ms.step_row(name, mb, rc)
    res["steps"].append(r)
    print(json.dumps({k: r.get(k) for k in ("model", "micro_batch", "recompute", "step_s", "peak_bytes", "error")}), flush=True)
    with open(os.path.join(OUT, "h100_extra_steps.json"), "w") as f:
        json.dump(res, f, indent=1)
