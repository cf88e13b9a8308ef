#!/usr/bin/python3
"""Where the judged policies fail across several sets of traces: for each trace family and cache
size, in how many of the judgements (`evaluate.py --compare SIM_JSON --json FILE`, one per set,
e.g. per `families.py --variant N`) a checked engine combination failed, and its worst gap.

A family is the trace name without its "-vN" variant suffix. Standard library only.
"""
import argparse
import json
import re
import sys
from collections import defaultdict

_VARIANT = re.compile(r"-v\d+$")


def family(trace):
    return _VARIANT.sub("", trace)


def tally(reports):
    """{(family, cache_bytes): {"sets", "fails", "worst_gap", "worst_trace"}} over the checked
    combinations of every report (a judgement dict as evaluate.py --json writes)."""
    rows = defaultdict(lambda: {"sets": 0, "fails": 0, "worst_gap": None, "worst_trace": None})
    for rep in reports:
        for p in rep["points"]:
            checked = [e for e in p["engine"] if e["checked"]]
            if not checked:
                continue
            row = rows[(family(p["trace"]), p["cache_bytes"])]
            row["sets"] += 1
            if not all(e["pass"] for e in checked):
                row["fails"] += 1
            gap = max(e["gap"] for e in checked)
            if row["worst_gap"] is None or gap > row["worst_gap"]:
                row["worst_gap"], row["worst_trace"] = gap, p["trace"]
    return dict(rows)


def format_tally(rows):
    lines = [f"{'family':<12} {'cache':>9}  {'failed':>9}  worst gap (trace)"]
    for (fam, size), r in sorted(rows.items()):
        lines.append(f"{fam:<12} {size / (1 << 20):>5.1f} MiB  {r['fails']:>3} of {r['sets']:<3}  "
                     f"{r['worst_gap']:+.4f} ({r['worst_trace']})")
    fails = sum(r["fails"] for r in rows.values())
    total = sum(r["sets"] for r in rows.values())
    lines.append(f"failing rows: {fails} of {total}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("judgements", nargs="+", help="evaluate.py --compare ... --json FILE outputs")
    args = ap.parse_args(argv)
    reports = []
    for path in args.judgements:
        try:
            with open(path, encoding="utf-8") as f:
                reports.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"across.py: {path}: {e}", file=sys.stderr)
            return 2
    try:
        rows = tally(reports)
    except (KeyError, TypeError) as e:
        print(f"across.py: not an evaluate.py --compare judgement: missing {e}", file=sys.stderr)
        return 2
    print(format_tally(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
