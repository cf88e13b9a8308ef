#!/usr/bin/python3
"""Held-out trace shapes: access patterns families.py does not draw, to check that the default
policies were not tuned to the families alone (docs/policies.md, "Held-out shapes").

Pure Zipf without scans, uniform random, an LRU-stack model, sequential loops larger than the
cache (the natural form of a loop: block after block, read in 4 KiB to 1 MiB requests), a hot set
beside such a loop, one-time backups over a hot set, Zipf with the same area scanned again after
every batch, two tenants, a hot set that comes back, a growing working set and OLTP-like reads and
writes. Sized relative to a cache of C blocks like
families.py; one CSV per shape plus manifest.json. Standard library only.

  ./held_out.py --out /tmp/held-out                    # every shape, C = 8192 (32 MiB)
"""
import argparse
import bisect
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msr  # noqa: E402

DEFAULT_CACHE_BLOCKS = 8192


def _write(rng, share=0.2):
    return rng.random() < share


def _zipf_sampler(rng, n, alpha):
    """Ranks 1..n with weight rank^-alpha, placed at shuffled blocks 0..n-1."""
    cum, acc = [], 0.0
    for i in range(1, n + 1):
        acc += 1.0 / i ** alpha
        cum.append(acc)
    where = list(range(n))
    rng.shuffle(where)
    return lambda: where[min(n - 1, bisect.bisect(cum, rng.random() * acc))]


def zipf(rng, c, alpha, universe, length=30):
    draw = _zipf_sampler(rng, round(universe * c), alpha)
    return [(_write(rng), draw(), 1) for _ in range(length * c)]


def uniform(rng, c, universe, length=30):
    n = round(universe * c)
    return [(_write(rng), rng.randrange(n), 1) for _ in range(length * c)]


def stack_model(rng, c, mean, length=30):
    """LRU-stack model: 80% of accesses reuse the block at an exponential stack depth of mean
    `mean` x C (LRU's best case), the rest touch a new block."""
    stack, out, fresh = [], [], 0
    for _ in range(length * c):
        if stack and rng.random() < 0.8:
            depth = min(len(stack) - 1, int(rng.expovariate(1.0 / (mean * c))))
            block = stack.pop(len(stack) - 1 - depth)
        else:
            block, fresh = fresh, fresh + 1
        stack.append(block)
        if len(stack) > 6 * c:
            stack.pop(0)
        out.append((_write(rng), block, 1))
    return out


def seq_loop(rng, c, loop, request, length=30, hot_share=0.0):
    """Reads block after block over `loop` x C blocks, again and again, in `request`-block reads;
    with hot_share > 0, that share of the requests are 4 KiB reads or writes of a hot set of
    0.3 C elsewhere."""
    n, out, i, total = round(loop * c), [], 0, 0
    while total < length * c:
        if hot_share and rng.random() < hot_share:
            out.append((_write(rng), 100 * c + rng.randrange(round(0.3 * c)), 1))
            total += 1
            continue
        k = min(request, n - i)
        out.append((False, i, k))
        i = (i + k) % n
        total += k
    return out


def hot_and_loop(rng, c, length=36):
    """Half the accesses over a hot set of 0.3 C, half a sequential loop of 1.3 C in 4 KiB reads."""
    hot, loop, out, i = round(0.3 * c), round(1.3 * c), [], 0
    for _ in range(length * c):
        if rng.random() < 0.5:
            out.append((_write(rng), rng.randrange(hot), 1))
        else:
            out.append((False, 100 * c + i, 1))
            i = (i + 1) % loop
    return out


def backup(rng, c, rounds=6):
    """A hot set of 0.6 C; after every 5 C of its accesses, a one-time read of 3 C in 1 MiB."""
    out, base = [], 100 * c
    for _ in range(rounds):
        out.extend((_write(rng), rng.randrange(round(0.6 * c)), 1) for _ in range(5 * c))
        out.extend((False, base + k, 256) for k in range(0, 3 * c, 256))
        base += 3 * c
    return out


def hot_and_scans(rng, c, length=36):
    """7 rounds: a hot set of 0.6 C for 3 C accesses, then a one-time scan of 2 C in 128 KiB
    reads."""
    out, base = [], 50 * c
    for _ in range(length // 5):
        out.extend((_write(rng), rng.randrange(round(0.6 * c)), 1) for _ in range(3 * c))
        out.extend((False, base + k, 32) for k in range(0, 2 * c, 32))
        base += 2 * c
    return out


def zipf_rescan(rng, c, scan, rounds=10):
    """Zipf 0.9 over 4 C for 3 C accesses, then the same area of `scan` x C read again in 128 KiB
    reads (a table scanned after every batch of queries); `rounds` times."""
    draw = _zipf_sampler(rng, 4 * c, 0.9)
    out = []
    for _ in range(rounds):
        out.extend((_write(rng, 0.15), draw(), 1) for _ in range(3 * c))
        out.extend((False, 50 * c + k, 32) for k in range(0, round(scan * c), 32))
    return out


def returning(rng, c, phases=10):
    """Hot sets A and B of 0.6 C in turn, 4 C accesses each (85% hot): A comes back after 4 C."""
    sets = [rng.sample(range(30 * c), round(0.6 * c)) for _ in range(2)]
    out = []
    for phase in range(phases):
        hot = sets[phase % 2]
        for _ in range(4 * c):
            b = rng.choice(hot) if rng.random() < 0.85 else 40 * c + rng.randrange(20 * c)
            out.append((_write(rng), b, 1))
    return out


def growing(rng, c, length=36):
    """A hot set growing from 0.2 C to 1.5 C (90% of accesses), uniform noise over 20 C."""
    out, n = [], length * c
    for t in range(n):
        hot = round(c * (0.2 + 1.3 * t / n))
        b = rng.randrange(hot) if rng.random() < 0.9 else 10 * c + rng.randrange(20 * c)
        out.append((_write(rng), b, 1))
    return out


def two_tenants(rng, c, length=36):
    """60% Zipf 0.9 over 2 C, 40% uniform over 0.4 C elsewhere."""
    draw = _zipf_sampler(rng, 2 * c, 0.9)
    return [(_write(rng), draw(), 1) if rng.random() < 0.6 else
            (_write(rng), 5 * c + rng.randrange(round(0.4 * c)), 1) for _ in range(length * c)]


def oltp(rng, c, length=30):
    """40% writes; 60% of accesses over a tenth of 3 C, the rest uniform over all of it."""
    n = 3 * c
    return [(_write(rng, 0.4), rng.randrange(n // 10) if rng.random() < 0.6 else rng.randrange(n),
             1) for _ in range(length * c)]


SHAPES = {
    "zipf06": lambda r, c: zipf(r, c, 0.6, 4), "zipf07w": lambda r, c: zipf(r, c, 0.7, 16),
    "zipf08": lambda r, c: zipf(r, c, 0.8, 4), "zipf10": lambda r, c: zipf(r, c, 1.0, 10),
    "zipf12": lambda r, c: zipf(r, c, 1.2, 10),
    "unif15": lambda r, c: uniform(r, c, 1.5), "unif3": lambda r, c: uniform(r, c, 3),
    "stack03": lambda r, c: stack_model(r, c, 0.3), "stack1": lambda r, c: stack_model(r, c, 1.0),
    "seqloop15_4k": lambda r, c: seq_loop(r, c, 1.5, 1),
    "seqloop15_64k": lambda r, c: seq_loop(r, c, 1.5, 16),
    "seqloop12_1m": lambda r, c: seq_loop(r, c, 1.2, 256),
    "seqloop2_128k": lambda r, c: seq_loop(r, c, 2.0, 32),
    "seqloop3_4k": lambda r, c: seq_loop(r, c, 3.0, 1),
    "hotseq15": lambda r, c: seq_loop(r, c, 1.5, 16, hot_share=0.5),
    "zrescan05": lambda r, c: zipf_rescan(r, c, 0.5), "zrescan1": lambda r, c: zipf_rescan(r, c, 1),
    "zrescan2": lambda r, c: zipf_rescan(r, c, 2),
    "hotloop": hot_and_loop, "backup": backup, "hotscans": hot_and_scans,
    "returning": returning, "growing": growing, "tenants": two_tenants, "oltp": oltp,
}


def generate(shape, cache_blocks):
    """The requests (is_write, block, n_blocks) of one shape for a cache of cache_blocks."""
    return SHAPES[shape](random.Random(f"held-out:{shape}:{cache_blocks}"), cache_blocks)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--cache-blocks", type=int, default=DEFAULT_CACHE_BLOCKS,
                    help=f"cache size C the traces are built for (default {DEFAULT_CACHE_BLOCKS})")
    ap.add_argument("--shapes", default="all", help="comma list of " + ", ".join(SHAPES))
    args = ap.parse_args(argv)
    shapes = list(SHAPES) if args.shapes == "all" else args.shapes.split(",")
    for s in shapes:
        if s not in SHAPES:
            ap.error(f"unknown shape '{s}' (known: {', '.join(SHAPES)})")
    if args.cache_blocks < 16:
        ap.error("--cache-blocks must be >= 16")
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for s in shapes:
        reqs = generate(s, args.cache_blocks)
        msr.write_msr(os.path.join(args.out, s + ".csv"), reqs)
        entries.append({"name": s, "file": s + ".csv", "family": s, "variant": 0,
                        "cache_blocks": args.cache_blocks, "requests": len(reqs)})
        print(f"{s + '.csv':<20} C={args.cache_blocks:<6} requests={len(reqs)}")
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"block_size": msr.BLOCK, "traces": entries}, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
