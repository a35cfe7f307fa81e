"""A Llama-8B-wide step with full recomputation, run until it ends or runs out of memory: the PyTorch message and the allocator's figures, under whatever PYTORCH_CUDA_ALLOC_CONF says.

    python3 measure_allocator.py NAME LAYERS SEQ MICRO_BATCH   (measure_steps.py beside it)
"""
import json, os, sys, torch, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_steps as ms  # ../shared/calibration/measure_steps.py, copied beside this file
name, h_layers, seq, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c = dict(layers=h_layers, h=4096, heads=32, kv=8, ffn=14336, vocab=128256, gated=True, llama=True, tied=False, seq=seq)
ms.MODELS[name] = c
row = {"case": name, "conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "default")}
try:
    m = ms.LM(c).to("cuda"); m.recompute = True
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, c["vocab"], (mb, seq), device="cuda")
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(ids, ids)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    for i in range(3): step()
    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
    t = time.time()
    for i in range(3): step()
    torch.cuda.synchronize()
    row.update(step_s=(time.time() - t) / 3, peak_bytes=torch.cuda.max_memory_allocated(), reserved=torch.cuda.max_memory_reserved())
except torch.OutOfMemoryError as e:
    row.update(error=str(e)[:600], allocated=torch.cuda.memory_allocated(), reserved=torch.cuda.memory_reserved(), peak_bytes=torch.cuda.max_memory_allocated())
print(json.dumps(row), flush=True)
open(os.path.join(os.environ["OUT"], f"oom_{name}_{row['conf'].replace(':','-').replace('default','d')}.json"), "w").write(json.dumps(row))
