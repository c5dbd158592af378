#!/usr/bin/env python3
"""Checks `pipescope-cli whatif` on one ResNet-50 job recorded with PyTorch 2.11 on an H200
(scripts/record-torch-traces) at five DataLoader settings, against figures computed here
from the raw JSON by whatif_test.py's definitions (not with Pipescope's code):

- every trace's measured steps/s, input wait and device busy, its batch size and pin_memory;
- num_workers=2 delivering in order makes every other step wait: those are steady steps, not
  spikes, so the mean step counts them;
- persistent_workers=False with epochs of five batches: the two epoch starts in the trace
  are the spikes, left out of the steady figures and named with persistent_workers=True;
- pin_memory=False is read from the batch's pageable copy;
- from num_workers 0, workers are predicted to take the wait off the loop, and no setting
  beats the loop's own time.

usage: whatif_h200_test.py PIPESCOPE_CLI W0 W2 W8 W4_RESTART W4_PAGEABLE
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whatif_test  # noqa: E402  (the same definitions and checks)
from whatif_test import check, expected, measured_matches, whatif  # noqa: E402


def whatif_json(cli, what, *args):
    """whatif ARGS --json's output, checked to exit 0 (None where it did not)."""
    rc, out, err = whatif(cli, *args, "--json")
    check(rc == 0, f"whatif {what}: {err.strip()}")
    return json.loads(out) if rc == 0 else None


def main():
    cli, w0, w2, w8, restart, pageable = sys.argv[1:7]
    h200 = ("--cores", "16")
    kept_up = ("--given", "getitem=3ms") + h200  # workers that kept up: their cost given

    j = whatif_json(cli, "w0 --set num_workers=8", w0, "--set", "num_workers=8", *h200)
    if j:
        measured_matches("w0", j, expected(w0))
        check(j["traced_settings"]["num_workers"] == 0, "w0 is read as num_workers 0")
        p, m = j["predicted"], j["measured"]
        check(p["input_wait_fraction"] < 0.05, f"8 workers leave a wait of {p['input_wait_fraction']}")
        loop_s = (1 - m["input_wait_fraction"]) / m["steps_per_s"]
        check(m["steps_per_s"] < p["steps_per_s"] < 1 / loop_s,
              f"8 workers: {p['steps_per_s']:.2f} steps/s, between the traced "
              f"{m['steps_per_s']:.2f} and the loop's own limit {1 / loop_s:.2f}: each "
              "batch's receipt takes turns with the loop")
        check(any("scripts/measure-torch-receive" in a for a in j["assumptions"]),
              "the receipt's cost is said, and where it was measured")
        # Pageable batches: their copy to the device holds the loop.
        u = whatif_json(cli, "w0 --set pin_memory=False", w0, "--set", "num_workers=8",
                        "--set", "pin_memory=False", *h200)
        if u:
            unpinned = u["predicted"]["steps_per_s"]
            check(unpinned < 0.9 * p["steps_per_s"],
                  f"8 workers without pin_memory: {unpinned:.2f} steps/s, under the pinned "
                  f"{p['steps_per_s']:.2f}")

    # The search from num_workers 0 leaves room for workers slower than the loop's own
    # fetching (the measured 2 workers fell 35% short of their prediction): 4, not the
    # model's knee at 3.
    s = whatif_json(cli, "w0 search", w0, *h200)
    if s:
        check(s["settings"]["num_workers"] == 4, f"search from w0: {s['advice'][0]['text']}")
    # What the trace shows is not --given otherwise; a misspelt --given lists its own knobs.
    for given, says in (("num_workers=4", "its num_workers is 0, not 4"),
                        ("batch_size=64", "the trace shows batch_size 32"),
                        ("get_item=3ms", "getitem (a sample's __getitem__ time)")):
        rc, _, err = whatif(cli, w0, "--given", given)
        # A refused --given is a bad argument: exit 2, as a malformed KNOB=VALUE is.
        check(rc == 2 and says in err, f"--given {given} on w0: {rc} {err.strip()[-200:]}")
    # report's advice on the same trace, for the cores given.
    r = subprocess.run([cli, "report", w0, "--cores", "16"], capture_output=True, text=True)
    check(r.returncode == 0 and "Predicted on 16 cores, as given" in r.stdout,
          f"report --cores 16: {r.returncode} {r.stdout[-300:]}")
    rc, _, err = whatif(cli, w0, "--cores", "0.5")
    check(rc != 0 and "--cores" in err, f"--cores 0.5 is refused: {rc} {err.strip()}")

    # No change for a gain inside the model's spread: 8 workers that keep up are kept, not
    # cut to the knee for +1%; pageable batches are pinned without cutting the workers.
    s = whatif_json(cli, "w8 search", w8, "--given", "num_workers=8", "--given",
                    "worker_startup=2s", *kept_up)
    if s:
        check(s["settings"]["num_workers"] == 8 and s["advice"][0]["text"].startswith("Keep"),
              f"w8 kept: {s['advice'][0]['text']}")
        check(any("start-up: 2000 ms, as given" in a for a in s["assumptions"]),
              "a given worker start-up is said as given")
        check(any("persistent_workers False: not in the trace" in a for a in s["assumptions"]),
              "the defaults assumed for what a trace does not show are said")
    s = whatif_json(cli, "w4 pageable search", pageable, "--given", "num_workers=4", *kept_up)
    if s:
        check(s["settings"]["num_workers"] == 4 and s["settings"]["pin_memory"] is True,
              f"pageable: pinned, workers kept: {s['advice'][0]['text']}")

    # Workers started at each epoch's start: the search leads with persistent_workers, over
    # epochs as long as the trace's starts are apart, from the rate of all its steps.
    s = whatif_json(cli, "w4 restart search", restart, "--given", "num_workers=4", *kept_up)
    if s:
        text = s["advice"][0]["text"]
        every = expected(restart)
        whole = every["all_steps_per_s"]
        check(text.startswith("persistent_workers False → True: over epochs of 5 steps")
              and f"{whole:.2f} → " in text and s["settings"]["persistent_workers"] is True,
              f"restart search (all steps {whole:.2f} steps/s, steady {every['steps_per_s']:.2f}): {text}")
    # --set persistent_workers=True is weighed the same way, its gain over whole epochs.
    s = whatif_json(cli, "w4 restart --set persistent_workers=True", restart, "--given",
                    "num_workers=4", "--set", "persistent_workers=True", *kept_up)
    if s:
        a = s["advice"][0]
        check("over epochs of 5 steps" in a["text"] and a["predicted_gain"] > 0.3,
              f"persistent_workers set: {a['predicted_gain']:.3f} {a['text']}")

    # report: waits only at epoch starts are not workers falling behind; steady waits are.
    for path, says, never in ((restart, "so more workers would not help", "raise num_workers"),
                              (w2, "raise num_workers", "more workers would not help")):
        r = subprocess.run([cli, "report", path], capture_output=True, text=True)
        verdict = next((l for l in r.stdout.splitlines() if l.startswith("verdict:")), "")
        check(r.returncode == 0 and says in verdict and never not in verdict,
              f"report {os.path.basename(path)}: {verdict}")

    # The traces with workers: their own figures.
    for name, path, workers in (("w2", w2, 2), ("w8", w8, 8), ("w4 restart", restart, 4),
                                ("w4 pageable", pageable, 4)):
        want = expected(path)
        j = whatif_json(cli, name, path, "--given", f"num_workers={workers}", *kept_up)
        if not j:
            continue
        measured_matches(name, j, want)
        if name == "w2":
            check(want["steady"] == 10, "w2: every step steady by the independent count too")
            # Its model misses the trace by 11% (workers of uneven speed delivering in order):
            # said first among the assumptions.
            check("the model at the traced settings gives" in j["assumptions"][0],
                  f"w2: the fit's miss is said: {j['assumptions'][0]}")
            check(want["input_wait_fraction"] > 0.2,
                  f"w2: the alternate steps' waits are in the mean ({want['input_wait_fraction']:.3f})")
        if name == "w4 restart":
            check(want["steady"] == 8, "w4 restart: two epoch starts by the independent count")
        if name == "w4 pageable":
            check(j["traced_settings"]["pin_memory"] is False and
                  any("Pageable" in a for a in j["assumptions"]),
                  "pageable copies read as pin_memory False, and said where from")


if __name__ == "__main__":
    main()
    if whatif_test.failures:
        print(f"{len(whatif_test.failures)} check(s) failed")
        sys.exit(1)
    print("whatif_h200_test: all checks passed")
