#!/usr/bin/python3
"""Seeded trace families for judging cache policies, written as MSR Cambridge CSV.

Every family is sized relative to a cache of C blocks (4 KiB): footprints and lengths are
multiples of C, so `--scale` gives a proportionally smaller trace (C * scale blocks) with
similar miss ratios. `--variant N` (N > 0) redraws every parameter from its range, so a check
can use traces nobody tuned for. Output: one CSV per trace plus manifest.json (the cache size
each trace was built for and its parameters). Standard library only.

  ./families.py --out /tmp/families                   # the six default traces, C = 8192
  ./families.py --out /tmp/families --variant 3       # unseen variants, *-v3.csv
"""
import argparse
import bisect
import itertools
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msr  # noqa: E402

DEFAULT_CACHE_BLOCKS = 8192  # 32 MiB

# Per family: parameter -> (default, low, high) for --variant draws. Sizes are multiples of
# the cache C; "length" is block accesses / C; shares are fractions of requests.
PARAMS = {
    "hotset": {  # random 4 KiB accesses, a hot set gets most of them
        "hot": (0.5, 0.3, 0.8),            # hot set size / C
        "hot_share": (0.85, 0.65, 0.92),   # share of requests to the hot set
        "cold_span": (20.0, 10.0, 40.0),   # cold area / C, uniform
        "run_share": (0.05, 0.0, 0.15),    # cold requests that read 2-16 blocks
        "length": (36.0, 25.0, 45.0),
        "writes": (0.2, 0.1, 0.3),
    },
    "zipfscan": {  # Zipf over a universe, a sequential scan after every period
        "universe": (8.0, 4.0, 16.0),      # Zipf universe / C
        "alpha": (0.9, 0.8, 1.05),
        "period": (6.0, 4.0, 8.0),         # Zipf accesses between scans / C
        "scan": (3.0, 2.0, 5.0),           # scan length / C (128 KiB reads)
        "scans": (5, 4, 6),
        "rescan": (0.0, 0.0, 0.5),         # chance a scan rereads the previous scan's area
        "writes": (0.15, 0.1, 0.3),        # Zipf requests only; scans read
    },
    "loop12": {  # the same sequence of small extents over and over, a bit larger than C
        "loop": (1.2, 1.05, 1.5),          # loop footprint / C
        "length": (36.0, 25.0, 45.0),
        "writes": (0.1, 0.0, 0.3),
    },
    "loop2x": {
        "loop": (2.0, 1.6, 3.0),
        "length": (36.0, 25.0, 45.0),
        "writes": (0.1, 0.0, 0.3),
    },
    "shift": {  # a hot set that moves every phase, uniform cold noise
        "hot": (0.6, 0.3, 0.9),
        "hot_share": (0.9, 0.75, 0.95),
        "universe": (20.0, 10.0, 30.0),
        "phases": (8, 5, 12),
        "phase_len": (5.0, 3.0, 8.0),      # block accesses per phase / C
        "keep": (0.25, 0.0, 0.5),          # share of the hot set kept into the next phase
        "writes": (0.2, 0.1, 0.3),
    },
    "boot": {  # one-time sequential file reads, a recurring core across boots
        "boots": (7, 5, 9),
        "core": (0.7, 0.4, 0.9),           # recurring blocks / C
        "recur": (0.2, 0.1, 0.35),         # share of each boot's file blocks that recur
        "writes": (0.1, 0.05, 0.2),        # share of requests: log appends, state rewrites
        "state": (0.02, 0.01, 0.05),       # rewritten state blocks / C
    },
}
FAMILIES = tuple(PARAMS)


def draw_params(family, variant):
    """Defaults for variant 0; otherwise a seeded draw from each parameter's range."""
    spec = PARAMS[family]
    if variant == 0:
        return {k: v[0] for k, v in spec.items()}
    rng = random.Random(f"params:{family}:{variant}")
    out = {}
    for k, (default, lo, hi) in spec.items():
        out[k] = rng.randint(lo, hi) if isinstance(default, int) else round(rng.uniform(lo, hi), 3)
    return out


def gen_hotset(rng, c, p):
    hot = max(1, round(p["hot"] * c))
    cold = max(16, round(p["cold_span"] * c))
    n = round(p["length"] * c)
    reqs, total = [], 0
    while total < n:
        w = rng.random() < p["writes"]
        if rng.random() < p["hot_share"]:
            b, k = rng.randrange(hot), 1
        else:
            k = rng.choice((2, 4, 8, 16)) if rng.random() < p["run_share"] else 1
            b = hot + rng.randrange(cold - k + 1)  # the cold area follows the hot set
        reqs.append((w, b, k))
        total += k
    return reqs


def gen_zipfscan(rng, c, p):
    universe = max(16, round(p["universe"] * c))
    where = list(range(universe))
    rng.shuffle(where)  # popularity rank -> block, so hot blocks are scattered
    cum, acc = [], 0.0
    for r in range(universe):
        acc += 1.0 / (r + 1) ** p["alpha"]
        cum.append(acc)
    period, scan = round(p["period"] * c), round(p["scan"] * c)
    reqs, scan_base, prev = [], universe, None
    for _ in range(p["scans"]):
        for r in rng.choices(range(universe), cum_weights=cum, k=period):
            reqs.append((rng.random() < p["writes"], where[r], 1))
        if prev is not None and rng.random() < p["rescan"]:
            start = prev
        else:
            start, scan_base = scan_base, scan_base + scan
        for off in range(0, scan, 32):
            reqs.append((False, start + off, min(32, scan - off)))
        prev = start
    return reqs


def gen_loop(rng, c, p):
    size = max(2, round(p["loop"] * c))
    extents, total = [], 0
    while total < size:
        k = 1 if rng.random() < 0.7 else rng.randint(2, 8)
        k = min(k, size - total)
        extents.append(k)
        total += k
    slots = rng.sample(range(size), len(extents))  # 8-block slots never overlap
    body = [(8 * s, k) for s, k in zip(slots, extents)]
    reqs = []
    for _ in range(max(2, math.ceil(p["length"] * c / size))):
        reqs.extend((rng.random() < p["writes"], b, k) for b, k in body)
    return reqs


def gen_shift(rng, c, p):
    universe = max(16, round(p["universe"] * c))
    hot_n = max(1, min(universe, round(p["hot"] * c)))
    hot = rng.sample(range(universe), hot_n)
    reqs = []
    for phase in range(p["phases"]):
        if phase:
            kept = set(rng.sample(hot, round(p["keep"] * hot_n)))
            while len(kept) < hot_n:
                kept.add(rng.randrange(universe))
            hot = list(kept)
        for _ in range(round(p["phase_len"] * c)):
            b = rng.choice(hot) if rng.random() < p["hot_share"] else rng.randrange(universe)
            reqs.append((rng.random() < p["writes"], b, 1))
    return reqs


def _files(rng, cursor, blocks):
    """Allocates files (lognormal sizes, 1 block to 1 MiB, median 8 blocks) from `cursor` on
    with small gaps until they hold `blocks` blocks. Returns (files, new cursor)."""
    files, total = [], 0
    while total < blocks:
        k = max(1, min(256, int(rng.lognormvariate(math.log(8), 1.2))))
        files.append((cursor, k))
        cursor += k + rng.randrange(4)
        total += k
    return files, cursor


_CHUNKS = (1, 2, 4, 8, 16, 32)
_CHUNK_CUM = list(itertools.accumulate((35, 15, 15, 10, 10, 15)))  # percent


def gen_boot(rng, c, p):
    state_n = max(1, round(p["state"] * c))
    core_n = max(1, round(p["core"] * c))
    fresh_n = round(core_n * (1 - p["recur"]) / p["recur"])
    core, cursor = _files(rng, state_n, core_n)
    boots = []
    for _ in range(p["boots"]):
        fresh, cursor = _files(rng, cursor, fresh_n)
        boots.append(fresh)
    log = cursor + 1024  # the log area follows every file
    reqs = []
    for fresh in boots:
        # Core files in nearly the same order each boot, fresh files spread between them.
        keyed = [(i + rng.gauss(0, 3), f) for i, f in enumerate(core)]
        keyed += [(rng.uniform(0, len(core)), f) for f in fresh]
        keyed.sort(key=lambda kf: kf[0])
        for _, (start, size) in keyed:
            off = 0
            while off < size:
                k = min(size - off, _CHUNKS[bisect.bisect(_CHUNK_CUM, rng.random() * 100)])
                reqs.append((False, start + off, k))
                off += k
                if rng.random() < p["writes"]:
                    if rng.random() < 0.7:
                        n = rng.randint(1, 2)
                        reqs.append((True, log, n))
                        log += n
                    else:
                        reqs.append((True, rng.randrange(state_n), 1))
    return reqs


GENERATORS = {"hotset": gen_hotset, "zipfscan": gen_zipfscan, "loop12": gen_loop,
              "loop2x": gen_loop, "shift": gen_shift, "boot": gen_boot}


def generate(family, cache_blocks, variant=0):
    """Returns (params, requests) of one trace; requests are (is_write, block, n_blocks)."""
    params = draw_params(family, variant)
    rng = random.Random(f"trace:{family}:{variant}:{cache_blocks}")
    return params, GENERATORS[family](rng, cache_blocks, params)


def trace_name(family, variant):
    return family if variant == 0 else f"{family}-v{variant}"


def write_family(out_dir, family, cache_blocks, variant=0):
    """Writes one trace; returns its manifest entry."""
    params, reqs = generate(family, cache_blocks, variant)
    name = trace_name(family, variant)
    msr.write_msr(os.path.join(out_dir, name + ".csv"), reqs)
    blocks = sum(k for _, _, k in reqs)
    writes = sum(k for w, _, k in reqs if w)
    unique = len({b + i for _, b, k in reqs for i in range(k)})
    return {"name": name, "file": name + ".csv", "family": family, "variant": variant,
            "cache_blocks": cache_blocks, "requests": len(reqs), "block_accesses": blocks,
            "unique_blocks": unique, "write_share": round(writes / blocks, 4), "params": params}


def update_manifest(out_dir, entries):
    """Merges entries into out_dir/manifest.json by trace name."""
    path = os.path.join(out_dir, "manifest.json")
    traces = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            traces = {t["name"]: t for t in json.load(f).get("traces", [])}
    traces.update({e["name"]: e for e in entries})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"block_size": msr.BLOCK, "traces": sorted(traces.values(),
                                                             key=lambda t: t["name"])}, f, indent=1)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--cache-blocks", type=int, default=DEFAULT_CACHE_BLOCKS,
                    help=f"cache size C the traces are built for (default {DEFAULT_CACHE_BLOCKS})")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="build for C * scale blocks: a proportionally smaller trace (default 1)")
    ap.add_argument("--variant", type=int, default=0,
                    help="0: default parameters; N > 0: parameters drawn with seed N")
    ap.add_argument("--families", default="all", help="comma list of " + ", ".join(FAMILIES))
    args = ap.parse_args(argv)
    families = FAMILIES if args.families == "all" else args.families.split(",")
    for f in families:
        if f not in PARAMS:
            ap.error(f"unknown family '{f}' (known: {', '.join(FAMILIES)})")
    if args.variant < 0 or args.scale <= 0:
        ap.error("--variant must be >= 0 and --scale > 0")
    cache_blocks = max(16, round(args.cache_blocks * args.scale))
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for family in families:
        e = write_family(args.out, family, cache_blocks, args.variant)
        entries.append(e)
        print(f"{e['file']:<18} C={cache_blocks:<6} requests={e['requests']:<7} "
              f"block accesses={e['block_accesses']:<7} unique={e['unique_blocks']:<7} "
              f"writes={e['write_share']:.2f}")
    update_manifest(args.out, entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
