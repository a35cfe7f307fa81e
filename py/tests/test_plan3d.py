"""plan3d's Python package against the CLI: every entry point called, the
same numbers and the same JSON text as the CLI for the same request (the
README's examples, tests/examples.json), bad requests raised with the field
named, the GIL released while core computes.

Run by ``cargo xtask test`` after building the wheel and installing it into
a fresh virtual environment; PLAN3D_CLI is the CLI built with the same
profile.
"""

import json
import os
import pathlib
import subprocess
import threading
import time

import pytest

import plan3d

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("PLAN3D_CLI", str(ROOT / "target" / "debug" / "plan3d"))
EXAMPLES = json.loads((ROOT / "tests" / "examples.json").read_text())


def cli(args):
    """The CLI's stdout, or its error (stderr) and exit code."""
    out = subprocess.run([CLI, *args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def cli_json(args):
    code, out, err = cli([*args, "--json"])
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["what"][:40] for e in EXAMPLES])
def test_the_same_json_text_as_the_cli(ex):
    args = ex["cli"] if "--timeline" in ex["cli"] else [*ex["cli"], "--json"]
    code, out, err = cli(args)
    text = json.dumps(ex["request"])
    if code == 0:
        assert plan3d.call(ex["entry"], text) + "\n" == out
        # The dict functions give the same values.
        fn = getattr(plan3d, ex["entry"])
        assert fn(ex["request"]) == json.loads(out)
    else:
        with pytest.raises(plan3d.Plan3dError) as e:
            plan3d.call(ex["entry"], text)
        assert err == f"error: {e.value}\n"


def test_every_entry_point():
    m = plan3d.model(model="llama-3.1-405b")
    assert m["layers"] == 126 and m["seq_len"] == 8192
    assert plan3d.hardware(gpu="h100-sxm")["gpu"] == "h100-sxm"
    e = plan3d.evaluate(model="x160", method="improved", data=483, pipe=5, tensor=16,
                        micro_batch=1, micro_batches=5, assumptions="paper")
    assert e["gpus"] == 38_640  # Table 6.1, 3d improved
    assert round(e["days"], 1) == 6.8
    # Without assumptions: practice, as the CLI and the page.
    assert plan3d.plan(model="llama-3.1-8b", gpu="h100-sxm", gpus=8)["assumptions"] == "practice"
    p = plan3d.plan(model="gpt-3", gpu="a100-80gb", assumptions="practice", gpus=1024, zero="0")
    assert (p["gpus"], p["zero"], p["method"]) == (1024, "0", "baseline")
    r = plan3d.run(model="llama-3.1-70b", gpu="h100-sxm", node_size=8, gpus=1024,
                   tokens=1.5e12, global_batch=1024)
    assert r["assumptions"] == "practice"  # the default, as the CLI's
    assert r["wall_days"] >= r["ideal_days"] > 0
    rows = plan3d.sweep(**{"from": 1e9, "to": 1e12, "points": 4})
    assert len(rows) >= 3 and all("d_model" in row for row in rows)
    s = plan3d.schedule(kind="1f1b", devices=4, micro_batches=8)
    assert s["kind"] == "1f1b" and s["bubble_fraction"] > 0
    t = plan3d.timeline(model="gpt-3", method="baseline", data=8, pipe=8, tensor=8,
                        micro_batch=1, micro_batches=16)
    assert t["plan_devices"] == 8
    pt = plan3d.plan_timeline(model="llama-3.1-8b", gpu="h100-sxm", node_size=8,
                              assumptions="practice", gpus=64)
    assert pt["shown_devices"] <= pt["plan_devices"]
    v = plan3d.validate()
    assert len(v) >= 8 and all("error" in row for row in v)
    names = plan3d.presets()
    assert "llama-3.1-405b" in names["models"] and "h100-sxm" in names["gpus"]
    assert "plan" in names["entries"]
    assert "PlanRequest" in plan3d.schema()["$defs"]
    assert plan3d.version() == cli(["--version"])[1].split()[-1]


def test_a_dict_and_keywords_keywords_win():
    a = plan3d.plan({"model": "gpt-3", "gpus": 512}, gpus=1024)
    assert a == plan3d.plan(model="gpt-3", gpus=1024)
    assert a == cli_json(["plan", "--model", "gpt-3", "--gpus", "1024"])


@pytest.mark.parametrize(
    "call,field,words",
    [
        (lambda: plan3d.plan(model="gpt-3", tensr=8), "tensr", "unknown field 'tensr'"),
        (lambda: plan3d.plan(model="gpt-3", assumptions="practice", tensor=5),
         "tensor", "must divide attention heads (96)"),
        (lambda: plan3d.evaluate(model="gpt-3", gpu="h900"), "gpu", "unknown GPU"),
        (lambda: plan3d.plan(model="gpt-3", assumptions="paper", data=8), "data",
         "read only by the practice search"),
        (lambda: plan3d.plan(model="gpt-3", assumptions="practice", method="partitioned",
                             zero="1"), "zero", "zero must be 3 or 3-step"),
        (lambda: plan3d.run(model="llama-3.1-8b", batch_ramp="0:4Qi"), "batch_ramp",
         "is not a number"),
        (lambda: plan3d.plan(model="gpt-3", tensor="eight"), None, "invalid type"),
        (lambda: plan3d.plan(["gpt-3"]), None, "expected a dict"),
        (lambda: plan3d.call("plan9", "{}"), None, "unknown entry point"),
    ],
)
def test_bad_requests_raise_with_the_field(call, field, words):
    with pytest.raises(plan3d.Plan3dError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert words in str(e.value)
    assert e.value.field == field


def test_no_plan_says_why():
    # Meta's layout runs as given at today's batch for its run (the batch
    # law); at the paper's critical batch, 516 sequences, it cannot.
    meta = dict(model="llama-3.1-405b", gpu="h100-sxm", node_size=8, data=128, pipe=16,
                tensor=8, tokens=15.6e12)
    r = plan3d.run(**meta)
    assert (r["data"], r["pipe"], r["tensor"], r["gpus"]) == (128, 16, 8, 16384)
    with pytest.raises(plan3d.Plan3dError) as e:
        plan3d.run(**meta, batch=516)
    assert "Closest: micro-batches: the batch limit of 516 sequences" in str(e.value)
    assert "(batch 2048)" in str(e.value)
    assert e.value.field is None


def test_grid_rows_a_dataframe_takes():
    rows = plan3d.grid("plan", model=["gpt-3", "llama-3.1-70b"], gpu="h100-sxm", node_size=8,
                       assumptions="practice", max_gpus=[256, 1024, 1])
    assert len(rows) == 6
    assert [(r["model"], r["max_gpus"]) for r in rows[:3]] == [
        ("gpt-3", 256), ("gpt-3", 1024), ("gpt-3", 1)]
    ok = [r for r in rows if "error" not in r]
    assert len(ok) == 4 and all(r["gpus"] <= r["max_gpus"] for r in ok)
    # Every row is flat: scalars only, nested fields by dotted names.
    assert all(not isinstance(v, (dict, list)) for r in rows for v in r.values())
    assert "memory.peak_bytes" in ok[0]
    # A row equals the entry point's answer for its request.
    one = plan3d.plan(model="gpt-3", gpu="h100-sxm", node_size=8, assumptions="practice",
                      max_gpus=1024)
    assert rows[1]["days"] == one["days"] and rows[1]["memory.peak_bytes"] == one["memory"]["peak_bytes"]
    failed = [r for r in rows if "error" in r]
    assert len(failed) == 2 and all(r["error"].startswith("no plan") for r in failed)


def test_the_gil_is_released_during_a_search():
    request = dict(model=["llama-3.1-405b"] * 12, gpu="h100-sxm", node_size=8,
                   assumptions="practice", max_gpus=16384, tokens=15.6e12)
    done = threading.Event()
    result = {}

    def work():
        result["rows"] = plan3d.grid("plan", **request)
        done.set()

    spins = 0
    t = threading.Thread(target=work)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        spins += 1
    t.join()
    elapsed = time.perf_counter() - start
    assert len(result["rows"]) == 12
    # Holding the GIL, the search would leave this thread a few switch
    # intervals (5 ms each) at most; released, it spins all along.
    print(f"\nGIL: {spins} spins of this thread during a {elapsed * 1e3:.0f} ms search")
    assert spins > 10_000


def test_a_405b_search_from_python_against_the_cli():
    args = ["plan", "--assumptions", "practice", "--model", "llama-3.1-405b", "--gpu",
            "h100-sxm", "--node-size", "8", "--max-gpus", "16384", "--tokens", "15.6e12",
            "--json"]
    req = dict(assumptions="practice", model="llama-3.1-405b", gpu="h100-sxm", node_size=8,
               max_gpus=16384, tokens=15.6e12)

    def best(f, n=7):
        times = []
        for _ in range(n):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        return min(times)

    py = best(lambda: plan3d.plan(req))
    whole = best(lambda: subprocess.run([CLI, *args], capture_output=True, check=True))
    # The CLI's own search time is its process time less a process that
    # does nothing but start and parse (`plan3d --version`).
    start = best(lambda: subprocess.run([CLI, "--version"], capture_output=True, check=True))
    print(f"\nLlama 3.1 405B on up to 16 384 H100s: Python {py * 1e3:.1f} ms a search; "
          f"CLI {whole * 1e3:.1f} ms a process ({(whole - start) * 1e3:.1f} ms past start-up)")
    assert plan3d.plan(req) == cli_json(args[:-1])
