#!/usr/bin/env python3
"""The H100 tables the kernel preset was fitted on
(h100-2026-11-25/kernels.json, small_gemms.json), written as a calibration
profile (calibrate.py's format): plan3d fits it back to the preset exactly
(core/tests/profile.rs), the reference a user's profile is read against.

    python3 calibration/tables_profile.py > calibration/h100-2026-11-25/profile.json
"""
import json
import os

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h100-2026-11-25")
k = json.load(open(os.path.join(here, "kernels.json")))
s = json.load(open(os.path.join(here, "small_gemms.json")))
gemm = []
for r in k["gemm"]:
    t, kk, n = r["tokens"], r["K"], r["N"]
    gemm += [
        {"m": t, "n": n, "k": kk, "fp8": False, "seconds": r["fwd_s"]},
        {"m": t, "n": kk, "k": n, "fp8": False, "seconds": r["dgrad_s"]},
        {"m": kk, "n": n, "k": t, "fp8": False, "seconds": r["wgrad_s"]},
    ]
for r in k["fp8"]:
    gemm.append({"m": r["tokens"], "n": r["N"], "k": r["K"], "fp8": True, "seconds": r["fwd_s"]})
for r in s["gemm"]:
    gemm.append({"m": r["M"], "n": r["N"], "k": r["K"], "fp8": False, "seconds": r["bf16_s"]})
    gemm.append({"m": r["M"], "n": r["N"], "k": r["K"], "fp8": True, "seconds": r["fp8_s"]})
attention = [
    {
        "batch": r["batch"], "heads": r["heads"], "seq": r["seq"], "head_size": r["head_dim"],
        "forward_seconds": r["fwd_s"], "backward_seconds": r["fwd_bwd_s"] - r["fwd_s"],
    }
    for r in k["attention"] + s["attention"]
]
bandwidth = [
    {"bytes": r["gbps"] * 1e9 * r["s"], "seconds": r["s"]}
    for r in k["bandwidth"] if r["op"] == "copy"
]
info = k["info"]
print(json.dumps({
    "plan3d_profile": 1,
    "device": {"name": info["gpu"], "sms": info["sms"], "memory_bytes": float(info["mem_bytes"]),
               "driver": "", "cuda": info["cuda"], "torch": info["torch"], "libraries": ""},
    "timer_floor_seconds": 20e-6,
    "gemm": gemm, "attention": attention, "bandwidth": bandwidth, "collectives": [],
}, indent=1))
