#!/usr/bin/env python3
"""Checks `pipescope-cli report --json` on real profiler traces against figures computed
here, from the raw JSON, without Pipescope's code: steps, input wait, device busy, span
counts, nesting depth, flows, streams and the names with the most time.

Definitions (the same as IMPORT.md's, written again independently):
- a step is an X span named ProfilerStep#N that is not device work nor its device-side
  copy (category gpu_user_annotation);
- input wait is the union of DataLoader __next__ spans, within the union of steps;
- device busy is the union of kernels, copies and sets (every stream), within the steps;
- a span's depth is its nesting level on its (pid, tid): the lowest row free at its start.

Each trace is also converted to Chrome JSON with `pipescope-cli convert`: every span's
name, start, duration and arguments come back as written.

usage: real_traces_test.py PIPESCOPE_CLI TRACE...
"""
import gzip
from decimal import ROUND_HALF_UP, Decimal
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


class Number(float):
    """A JSON number that remembers how it was written, for exact microseconds."""

    def __new__(cls, text):
        value = float.__new__(cls, text)
        value.text = text
        return value


def ns(us):
    # Microseconds as written (decimal text, not a double: 1.7e15 us is past a double's
    # nanoseconds) to the nearest nanosecond, halves away from zero.
    text = getattr(us, "text", None) or str(us)
    return int((Decimal(text) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def union(intervals):
    out = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(xs, ys):
    total, i, j = 0, 0, 0
    while i < len(xs) and j < len(ys):
        total += max(0, min(xs[i][1], ys[j][1]) - max(xs[i][0], ys[j][0]))
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return total


def subtract(within, busy):
    """What the disjoint sorted intervals `within` cover and `busy` do not."""
    out, j = [], 0
    for a, b in within:
        start = a
        while j < len(busy) and busy[j][1] <= start:
            j += 1
        k = j
        while k < len(busy) and busy[k][0] < b:
            if busy[k][0] > start:
                out.append((start, busy[k][0]))
            start = max(start, busy[k][1])
            k += 1
        if start < b:
            out.append((start, b))
    return out


def expected(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8-sig"), parse_float=Number)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    spans = [e for e in events if e.get("ph") == "X"]
    steps, waits, device = [], [], []
    names = defaultdict(int)
    by_thread = defaultdict(list)
    streams = set()
    for e in spans:
        start, dur = ns(e["ts"]), ns(e.get("dur", 0))
        name, cat = e.get("name", ""), e.get("cat", "")
        names[(name, cat)] += dur
        by_thread[(str(e.get("pid")), str(e.get("tid")))].append((start, -dur))
        if cat in DEVICE:
            device.append((start, start + dur))
            streams.add((str(e.get("pid")), str(e.get("tid"))))
        elif name.startswith("ProfilerStep#") and cat != "gpu_user_annotation":
            steps.append((start, start + dur))
        if "DataLoader" in name and "__next__" in name:
            waits.append((start, start + dur))
    # Depth: the lowest row whose last span has ended, per thread.
    max_depth = 0
    for thread_spans in by_thread.values():
        rows = []
        for start, neg_dur in sorted(thread_spans):
            row = next((r for r, end in enumerate(rows) if end <= start), len(rows))
            if row == len(rows):
                rows.append(0)
            rows[row] = start - neg_dur
            max_depth = max(max_depth, row)
    # Flows: 's' to 'f' with one category and id.
    flows = defaultdict(lambda: {"s": 0, "f": 0})
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows[(e.get("cat"), str(e.get("id")))][e["ph"]] += 1
    pairs = sum(1 for v in flows.values() if v["s"] == 1 and v["f"] == 1)
    step_union = union(steps)
    step_ns = sum(b - a for a, b in step_union)
    # Device gaps: step time with nothing on any stream.
    gaps = subtract(step_union, union(device)) if device else []
    top = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return {
        "steps": len(steps),
        "step_time_s": step_ns / 1e9,
        "input_wait_fraction": overlap(union(waits), step_union) / step_ns if step_ns else 0,
        "device_busy_fraction": overlap(union(device), step_union) / step_ns if step_ns else 0,
        "spans": len(spans),
        "device_spans": len(device),
        "device_streams": len(streams),
        "max_depth": max_depth,
        "flows": pairs,
        "top_names": top,
        "gap_count": len(gaps),
        "gap_total_s": sum(b - a for a, b in gaps) / 1e9,
        "gap_longest_s": max((b - a for a, b in gaps), default=0) / 1e9,
    }


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8-sig"), parse_float=Number)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def span_multiset(events, relative):
    """(name, start ns, duration ns, arguments) of every X span; starts from the first
    event when `relative` (Pipescope's times start at the trace's first event)."""
    t0 = min(ns(e["ts"]) for e in events if e.get("ph") not in ("M",) and "ts" in e) if relative else 0
    return sorted((e.get("name", ""), ns(e["ts"]) - t0, ns(e.get("dur", 0)),
                   json.dumps(e.get("args", {}), sort_keys=True))
                  for e in events if e.get("ph") == "X")


def check_conversion(cli, path):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "converted.json")
        subprocess.run([cli, "convert", path, out], capture_output=True, check=True)
        got = span_multiset(load(out), False)
    want = span_multiset(load(path), True)
    if got != want:
        have = set(got)
        missing = [x for x in want if x not in have][:3]
        print(f"FAIL {path}: convert to Chrome JSON changed {len(missing)}+ spans, e.g. {missing}")
        return 1
    return 0


def main():
    cli, traces = sys.argv[1], sys.argv[2:]
    failures = 0
    failed_traces = 0
    for path in traces:
        before = failures
        want = expected(path)
        out = subprocess.run([cli, "report", path, "--json", "--top", "5"], capture_output=True,
                             text=True, check=True)
        got = json.loads(out.stdout)
        spans = got["spans"]
        checks = [
            ("steps", got["steps"], want["steps"], 0),
            ("step_time_s", got["step_time_s"], want["step_time_s"], 1e-9),
            ("steps_per_s", got["steps_per_s"], want["steps"] / want["step_time_s"], 1e-9),
            ("input_wait_fraction", got["input_wait_fraction"], want["input_wait_fraction"], 1e-6),
            ("device_busy_fraction", got["device_busy_fraction"], want["device_busy_fraction"], 1e-6),
            ("spans", spans["count"], want["spans"], 0),
            ("device_spans", spans["device_spans"], want["device_spans"], 0),
            ("device_streams", spans["device_streams"], want["device_streams"], 0),
            ("max_depth", spans["max_depth"], want["max_depth"], 0),
            ("flows", spans["flows"], want["flows"], 0),
            ("device_gaps.count", got["device_gaps"]["count"], want["gap_count"], 0),
            ("device_gaps.total_s", got["device_gaps"]["total_s"], want["gap_total_s"], 1e-9),
            ("device_gaps.longest_s", got["device_gaps"]["longest_s"], want["gap_longest_s"], 1e-9),
            ("device_gaps.by_cause sums to total_s", sum(got["device_gaps"]["by_cause"].values()),
             want["gap_total_s"], 1e-9),
        ]
        for i, ((name, cat), total_ns) in enumerate(want["top_names"]):
            entry = spans["names"][i]
            checks.append((f"name #{i + 1}", (entry["name"], entry["category"]), (name, cat), None))
            checks.append((f"total of {name[:40]}", entry["total_s"], total_ns / 1e9, 1e-9))
        for what, value, expect, tolerance in checks:
            ok = value == expect if tolerance in (None, 0) else abs(value - expect) <= tolerance
            if not ok:
                failures += 1
                print(f"FAIL {path}: {what} is {value!r}, expected {expect!r}")
        failures += check_conversion(cli, path)
        failed_traces += failures > before
        print(f"{path}: {len(checks)} checks, steps {want['steps']}, busy "
              f"{want['device_busy_fraction']:.4f}, spans {want['spans']}, depth {want['max_depth']}, "
              f"flows {want['flows']}")
    print(f"{len(traces) - failed_traces} passed, {failed_traces} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
