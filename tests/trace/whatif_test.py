#!/usr/bin/env python3
"""Checks `pipescope-cli whatif` on the ResNet-50 pair recorded by others at num_workers 0
and 4 (tests/trace/data/real/kineto_resnet50_w*), against figures computed here from the
raw JSON without Pipescope's code:

- steps are the ProfilerStep#N X spans; a step's input wait is the union of the DataLoader
  __next__ spans within it; its device busy the union of kernels, copies and sets within it;
- a step is a spike when its wait is over 3 times the median wait and exceeds it by a tenth
  of the median step; the measured figures are means over the other steps;
- the batch size is the first dimension of the largest tensor the loop copies with aten::to
  outside __next__; pin_memory is whether the largest host-to-device copy is from pinned
  memory.

Then the behaviour of a prediction, not its numbers: the model at the traced settings
reproduces the trace, workers remove the single-process loop's wait, and what the trace
cannot show is asked for.

usage: whatif_test.py PIPESCOPE_CLI W0_TRACE W4_TRACE [DATALOADER_SPEC]
"""
import gzip
import json
import statistics
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_traces_test import DEVICE, union  # noqa: E402  (the same definitions)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def clipped_total(intervals, a, b):
    return sum(max(0, min(b, y) - max(a, x)) for x, y in union(intervals))


def expected(path):
    events = json.load(gzip.open(path))["traceEvents"]
    xs = [e for e in events if e.get("ph") == "X"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in xs
                   if e["name"].startswith("ProfilerStep#") and e.get("cat") not in DEVICE
                   and e.get("cat") != "gpu_user_annotation")
    nexts = [(e["ts"], e["ts"] + e["dur"]) for e in xs if "DataLoader" in e["name"]
             and e["name"].endswith("__next__")]
    device = [(e["ts"], e["ts"] + e["dur"]) for e in xs if e.get("cat") in DEVICE]
    rows = []
    for a, b in steps:
        rows.append((b - a, clipped_total(nexts, a, b), clipped_total(device, a, b)))
    usual_wait = statistics.median(r[1] for r in rows)
    usual_step = statistics.median(r[0] for r in rows)
    q1, _, q3 = statistics.quantiles([r[1] for r in rows], n=4, method="inclusive")
    steady = [r for r in rows if not (r[1] > 3 * usual_wait and r[1] - usual_wait > 0.1 * usual_step
                                      and r[1] > q3 + 3 * (q3 - q1))]
    step = statistics.mean(r[0] for r in steady)
    wait = statistics.mean(r[1] for r in steady)
    busy = statistics.mean(r[2] for r in steady)

    def inside(spans, t):
        return any(x <= t < y for x, y in spans)

    biggest, batch = 0, None
    for e in xs:
        if e["name"] != "aten::to" or not inside(steps, e["ts"]) or inside(nexts, e["ts"]):
            continue
        dims = (e.get("args") or {}).get("Input Dims") or [[]]
        if len(dims[0]) < 2:
            continue
        n = 1
        for d in dims[0]:
            n *= max(d, 1)
        if n > biggest:
            biggest, batch = n, dims[0][0]
    copies = [e for e in xs if e.get("cat") in ("Memcpy", "gpu_memcpy") and "HtoD" in e["name"]
              and inside(steps, e["ts"])]
    largest = max(copies, key=lambda e: e["args"]["bytes"])
    return {
        "steps_per_s": 1e6 / step,  # microseconds
        # Every step counted, epoch starts and other spikes included: what persistent_workers
        # changes.
        "all_steps_per_s": len(rows) * 1e6 / sum(r[0] for r in rows),
        "input_wait_fraction": wait / step,
        "device_busy_fraction": min(1.0, busy / step),
        "batch_size": batch,
        "pin_memory": "Pinned" in largest["name"],
        "steady": len(steady),
    }


def whatif(cli, *args):
    p = subprocess.run([cli, "whatif", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def whatif_on_waits(cli, waits_us, loop_us):
    """whatif on a trace written here: a multi-process DataLoader's steps, each the loop's
    wait in __next__ (`waits_us`, one a step) and then `loop_us` of its own work."""
    events, t = [], 0
    for i, wait in enumerate(waits_us):
        step = wait + loop_us
        events.append({"ph": "X", "cat": "cpu_op", "name": f"ProfilerStep#{i}", "pid": 1,
                       "tid": 1, "ts": t, "dur": step})
        events.append({"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": t + 1, "dur": wait,
                       "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"})
        t += step
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"traceEvents": events}, f)
    try:
        return whatif(cli, f.name, "--given", "num_workers=2", "--cores", "4", "--json")
    finally:
        os.unlink(f.name)


def measured_matches(name, j, want):
    """whatif --json's measured figures and traced settings against `expected`'s."""
    m = j["measured"]
    check(close(m["steps_per_s"], want["steps_per_s"], 1e-6),
          f"{name}: measured steps/s {m['steps_per_s']} == {want['steps_per_s']}")
    for key in ("input_wait_fraction", "device_busy_fraction"):
        check(abs(m[key] - want[key]) < 1e-6, f"{name}: measured {key} {m[key]} == {want[key]}")
    t = j["traced_settings"]
    check(t["batch_size"] == want["batch_size"], f"{name}: batch size {t['batch_size']}")
    check(t["pin_memory"] == want["pin_memory"], f"{name}: pin_memory {t['pin_memory']}")
    check(any(f"steady steps: {want['steady']} of " in a for a in j["assumptions"]),
          f"{name}: {want['steady']} steady steps: {j['assumptions'][0]}")


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(b), 1e-12)


def main():
    cli, w0, w4 = sys.argv[1:4]
    spec = sys.argv[4] if len(sys.argv) > 4 else None
    want = expected(w0)

    rc, out, err = whatif(cli, w0, "--set", "num_workers=4", "--cores", "8", "--json")
    check(rc == 0, f"whatif w0 --set num_workers=4 exits 0 (got {rc}: {err.strip()})")
    if rc != 0:
        return
    j = json.loads(out)
    m = j["measured"]
    measured_matches("w0", j, want)
    t = j["traced_settings"]
    check(t["num_workers"] == 0, "the single-process loader is read as num_workers 0")
    check(j["settings"]["num_workers"] == 4, "the prediction is for num_workers 4")
    # The model at the traced settings reproduces the trace it was fitted to.
    r = j["reproduced"]
    check(close(r["steps_per_s"], m["steps_per_s"], 0.03),
          f"the model at the traced settings gives {r['steps_per_s']:.3f} steps/s, the trace "
          f"{m['steps_per_s']:.3f}")
    check(abs(r["input_wait_fraction"] - m["input_wait_fraction"]) < 0.03,
          "the model's wait at the traced settings matches the trace's")
    # Workers take the fetching off the loop: its wait goes and its steps get shorter.
    p = j["predicted"]
    check(p["input_wait_fraction"] < 0.05, f"4 workers leave a wait of {p['input_wait_fraction']:.3f}")
    check(p["steps_per_s"] > 1.3 * m["steps_per_s"],
          f"4 workers predicted {p['steps_per_s']:.2f} steps/s over {m['steps_per_s']:.2f}")
    check(len(j["assumptions"]) >= 5 and any("cores: 8, as given" in a for a in j["assumptions"]),
          "the assumptions are listed, the cores among them")
    check(j["advice"][0]["change"] == "num_workers 0 → 4", f"advice change: {j['advice'][0]['change']}")

    # No --set: a search, whose best uses workers and gains.
    rc, out, err = whatif(cli, w0, "--cores", "8", "--json")
    check(rc == 0, f"whatif w0 (search) exits 0: {err.strip()}")
    if rc == 0:
        s = json.loads(out)
        check(s["settings"]["num_workers"] >= 1, "the search picks workers")
        check(s["predicted"]["steps_per_s"] > 1.3 * s["measured"]["steps_per_s"],
              "the search's best is predicted faster")
        check("steps/s predicted" in s["advice"][0]["text"], s["advice"][0]["text"])

    # One core: the loop's own work and the workers' take turns on it, so workers gain
    # nothing (the loop's time is CPU, not a wait).
    rc, out, _ = whatif(cli, w0, "--set", "num_workers=4", "--cores", "1", "--json")
    one = json.loads(out)["predicted"]["steps_per_s"] if rc == 0 else 0
    check(0 < one < 1.1 * m["steps_per_s"],
          f"one core shared by the loop and 4 workers: {one:.2f} steps/s, no gain over "
          f"{m['steps_per_s']:.2f}")

    # The multi-process trace: its worker count and, as its workers kept up, their cost are
    # not in it: an argument is missing (exit 2, with --set or without).
    rc, out, err = whatif(cli, w4, "--json")
    check(rc == 2 and "--given num_workers=N" in err, f"w4 without its worker count: {rc} {err.strip()}")
    rc, out, err = whatif(cli, w4, "--given", "num_workers=4", "--json")
    check(rc == 2 and "--given getitem=" in err, f"w4 workers kept up: {rc} {err.strip()}")
    rc, out, err = whatif(cli, w4, "--given", "num_workers=4", "--given", "getitem=2ms",
                          "--set", "num_workers=0", "--json")
    check(rc == 0, f"w4 back to num_workers 0 with a given getitem: {err.strip()}")
    if rc == 0:
        b = json.loads(out)
        check(b["predicted"]["steps_per_s"] < b["measured"]["steps_per_s"],
              "fetching 32 samples of 2 ms in the loop is predicted slower than 4 workers")
        check(b["predicted"]["input_wait_fraction"] > 0.25, "and the loop then waits")

    # report on the single-process trace: the verdict names who loads, the advice predicts.
    r = subprocess.run([cli, "report", w0, "--json"], capture_output=True, text=True)
    check(r.returncode == 0, f"report w0: {r.stderr.strip()}")
    if r.returncode == 0:
        rep = json.loads(r.stdout)
        check("loads each batch itself (num_workers=0)" in rep["verdict"], rep["verdict"])
        check(len(rep.get("advice", [])) == 1 and rep["advice"][0]["kind"] == "dataloader_settings"
              and rep["advice"][0]["predicted_gain"] > 0.3, f"report's advice: {rep.get('advice')}")
    r = subprocess.run([cli, "report", w4], capture_output=True, text=True)
    check(r.returncode == 0 and "Not input-bound" in r.stdout and "advice:" not in r.stdout,
          "report w4: not input-bound, nothing to advise")

    # An epoch's start in a multi-process trace: one step waits 600 ms more than the other
    # five (written here: 100 ms steps, 30 ms of them in __next__).
    rc, out, err = whatif_on_waits(cli, [30_000, 30_000, 630_000, 30_000, 30_000, 30_000], 70_000)
    check(rc == 0, f"epoch-start trace: {err.strip()}")
    if rc == 0:
        e = json.loads(out)
        check(abs(e["measured"]["steps_per_s"] - 10) < 1e-6,
              f"the spike is left out of the steady figures: {e['measured']['steps_per_s']}")
        check("1 of the steps waited 600 ms more" in e["advice"][0]["text"]
              and "persistent_workers=True" in e["advice"][0]["text"], e["advice"][0]["text"])
        check(e["advice"][0]["text"].endswith("for the first epoch only."),
              f"the epoch-start note is whole: {e['advice'][0]['text']!r}")
        check(any("steady steps: 5 of 6" in a for a in e["assumptions"]), "5 steady steps of 6")

    # Two workers delivering in order: some steps wait, the others find a batch ready (torch
    # 2.11 on an H200 at num_workers=2 waited 0.1, 35, 0.1, 35, 0.1, 27, 0.1, 4, 0.1, 38 ms).
    # That is the steady state, not spikes, though most steps wait next to nothing.
    waits = [100, 35_000, 100, 35_000, 100, 35_000, 100, 100, 100, 35_000]
    rc, out, err = whatif_on_waits(cli, waits, 45_000)
    check(rc == 0, f"alternating-wait trace: {err.strip()}")
    if rc == 0:
        a = json.loads(out)
        check(any("steady steps: 10 of 10" in x for x in a["assumptions"]),
              f"every step of an in-order alternation is steady: {a['assumptions'][0]}")
        mean_step = 45_000 + sum(waits) / len(waits)
        check(abs(a["measured"]["steps_per_s"] - 1e6 / mean_step) < 1e-6,
              f"the mean step counts the waits: {a['measured']['steps_per_s']}")

    # A run recorded here (simulated: deterministic) reads its settings from its spec, and
    # its loop's time is the device's step, not CPU: one core still gains from a worker.
    if spec:
        with tempfile.TemporaryDirectory() as tmp:
            run = os.path.join(tmp, "w0.pstrace")
            r = subprocess.run([cli, "simulate", spec, "--set", "loader.num_workers=0",
                                "--duration", "4", "--trace", run], capture_output=True, text=True)
            check(r.returncode == 0, f"simulate {spec}: {r.stderr.strip()}")
            rc, out, err = whatif(cli, run, "--set", "num_workers=2", "--cores", "2", "--json")
            check(rc == 0, f"whatif on a recording: {err.strip()}")
            if rc == 0:
                own = json.loads(out)
                check(own["traced_settings"]["num_workers"] == 0 and
                      own["traced_settings"]["batch_size"] == 16, "settings from the run's spec")
                check(close(own["reproduced"]["steps_per_s"], own["measured"]["steps_per_s"], 0.03),
                      "the model reproduces the recording")
                check(own["predicted"]["steps_per_s"] > 1.5 * own["measured"]["steps_per_s"],
                      "2 workers on 2 cores load about twice as fast")
                check(any(" it), 0% of it CPU" in a for a in own["assumptions"]),
                      "the engine's loop waits for its device")

    rc, _, err = whatif(cli, w0, "--set", "num_wokers=4")
    check(rc == 2 and "unknown setting 'num_wokers'" in err, f"a misspelt knob is named: {err.strip()}")
    # What DataLoader's constructor refuses (torch/utils/data/dataloader.py), refused.
    rc, _, err = whatif(cli, w0, "--set", "prefetch_factor=4")
    check(rc == 2 and "refuses it with num_workers=0" in err, f"prefetch_factor alone: {rc} {err.strip()}")
    # Another batch size compares by samples; the step's device part grows with the batch.
    rc, out, err = whatif(cli, w0, "--set", "batch_size=64", "--json")
    check(rc == 0, f"batch_size 64: {err.strip()}")
    if rc == 0:
        b = json.loads(out)
        check("samples/s predicted" in b["advice"][0]["text"], b["advice"][0]["text"])
        check(b["predicted"]["device_busy_fraction"] * 1e3 / b["predicted"]["steps_per_s"]
              > 1.8 * m["device_busy_fraction"] * 1e3 / m["steps_per_s"],
              "the device works about twice as long a step on twice the batch")
    rc, _, err = whatif(cli, w0, "--set", "num_workers")
    check(rc == 2 and "KNOB=VALUE" in err, f"a setting without a value: {err.strip()}")


if __name__ == "__main__":
    main()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("whatif_test: all checks passed")
