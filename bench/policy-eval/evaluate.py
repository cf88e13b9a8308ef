#!/usr/bin/python3
"""Miss ratios of the referee's textbook policies on MSR CSV traces, and a judge of
`tiercache sim --json` results against them. Standard library only.

  ./evaluate.py /tmp/families --cache-factors 0.5,1          # table of every policy
  ./evaluate.py hot=/tmp/h.csv --cache-bytes 32M --json out.json
  ./evaluate.py --compare sim.json [--default adaptive/s3fifo]   # exit 1 on a failed target
  ./evaluate.py --compare sim.json --referee-cache ref.json      # replay each trace only once

A TRACE is FILE, NAME=FILE, or a directory (its manifest.json from families.py, else every
*.csv in it). Capacity in blocks = cache bytes / 4096: "equal SSD bytes".
"""
import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msr  # noqa: E402
import referee  # noqa: E402

ALL_POLICIES = ("lru", "arc", "s3fifo", "lirs", "sieve", "fifo", "opt")
EPS = 1e-12


def parse_size(text):
    """'32M' -> 33554432; K, M, G, T are binary; a bare number is bytes."""
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = 1
    if text and text[-1] in "KMGT":
        mult = 1 << (10 * ("KMGT".index(text[-1]) + 1))
        text = text[:-1]
    value = float(text) * mult
    if value <= 0 or value != int(value):
        raise ValueError(f"bad size '{text}'")
    return int(value)


def fmt_bytes(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} B"


class TraceSet:
    """Named trace files, their design cache size (from a manifest) and cached block lists."""

    def __init__(self):
        self.paths, self.design_blocks, self._blocks = {}, {}, {}

    def add_arg(self, arg):
        name, sep, path = arg.partition("=")
        if not sep:
            name, path = "", arg
        if os.path.isdir(path):
            self._add_dir(path)
            return
        if not os.path.exists(path):
            raise FileNotFoundError(f"no trace file {path}")
        self.paths[name or os.path.splitext(os.path.basename(path))[0]] = path

    def _add_dir(self, path):
        manifest = os.path.join(path, "manifest.json")
        if os.path.exists(manifest):
            with open(manifest, encoding="utf-8") as f:
                for t in json.load(f)["traces"]:
                    self.paths[t["name"]] = os.path.join(path, t["file"])
                    self.design_blocks[t["name"]] = t["cache_blocks"]
            return
        for fname in sorted(os.listdir(path)):
            if fname.endswith(".csv"):
                self.paths[fname[:-4]] = os.path.join(path, fname)

    def blocks(self, path):
        if path not in self._blocks:
            self._blocks[path] = msr.trace_blocks(path)
        return self._blocks[path]


class RefereeRuns:
    """Memoised referee results per (trace file, capacity, policy). With `cache_path`, results
    also persist in that JSON file, keyed by the trace's content and the referee's own source,
    so a rerun after an engine change judges without replaying the textbook policies (the
    slow part) and a changed trace or referee is replayed again."""

    VERSION = 1

    def __init__(self, traces, cache_path=None):
        self.traces, self._memo, self._cache_path = traces, {}, cache_path
        self._digests, self._stored, self._dirty = {}, {}, False
        if cache_path:
            self._stored = self._load(cache_path)

    @staticmethod
    def _load(path):
        if not os.path.exists(path):
            return {}
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if data.get("version") != RefereeRuns.VERSION or not isinstance(data["runs"], dict):
                raise ValueError("unknown layout")
            return data["runs"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            # A cache is only a cache: replay everything and write a good one.
            print(f"evaluate.py: ignoring referee cache {path} ({e}); replaying", file=sys.stderr)
            return {}

    def _digest(self, path):
        if path not in self._digests:
            self._digests[path] = file_digest([path])
        return self._digests[path]

    def get(self, path, capacity, policy):
        key = (path, capacity, policy)
        if key in self._memo:
            return self._memo[key]
        stored_key = None
        if self._cache_path:
            stored_key = f"{REFEREE_DIGEST}:{self._digest(path)}:{capacity}:{policy}"
            hit = self._stored.get(stored_key)
            if isinstance(hit, list) and len(hit) == len(referee.Result._fields):
                self._memo[key] = referee.Result(*hit)
                return self._memo[key]
        result = referee.simulate(policy, self.traces.blocks(path), capacity)
        if stored_key:
            self._stored[stored_key] = list(result)
            self._dirty = True
        self._memo[key] = result
        return result

    def save(self):
        """Writes the cache file if anything was replayed (atomically: a temp file renamed)."""
        if not (self._cache_path and self._dirty):
            return
        tmp = f"{self._cache_path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"version": self.VERSION, "runs": self._stored}, f)
        os.replace(tmp, self._cache_path)
        self._dirty = False


def file_digest(paths):
    """SHA-256 over the contents of `paths`, in order."""
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


# The referee's own source: a change to a policy or to the trace reader invalidates the cache.
REFEREE_DIGEST = file_digest([referee.__file__, msr.__file__])[:16]


def best_of(results):
    """(name, miss ratio) of the best target policy; ties go to the earlier name."""
    best = min(referee.TARGET_POLICIES, key=lambda p: results[p].miss_ratio)
    return best, results[best].miss_ratio


# ----------------------------------------------------------------------------- table mode

def table_sizes(args, traces, name):
    if args.cache_blocks:
        return [int(b) for b in args.cache_blocks.split(",")]
    if args.cache_bytes:
        return [parse_size(s) // msr.BLOCK for s in args.cache_bytes.split(",")]
    design = traces.design_blocks.get(name)
    if design is None:
        raise ValueError(f"{name}: no cache size (give --cache-blocks or --cache-bytes)")
    return [max(2, round(design * float(f))) for f in args.cache_factors.split(",")]


def run_table(args, traces, runs):
    policies = args.policies.split(",")
    rows = []
    for name, path in traces.paths.items():
        for cap in table_sizes(args, traces, name):
            res = {p: runs.get(path, cap, p) for p in policies}
            accesses = next(iter(res.values())).accesses
            row = {"trace": name, "file": path, "cache_blocks": cap,
                   "cache_bytes": cap * msr.BLOCK, "block_accesses": accesses,
                   "policies": {p: {"misses": r.misses, "insertions": r.insertions,
                                    "miss_ratio": round(r.miss_ratio, 6)} for p, r in res.items()}}
            if all(p in res for p in referee.TARGET_POLICIES):
                row["best"], _ = best_of(res)
            rows.append(row)
    return {"block_size": msr.BLOCK, "results": rows}


def format_markdown(report, policies):
    lines = ["| trace | cache | block accesses | " + " | ".join(policies) + " | best |",
             "|---|---:|---:|" + "---:|" * len(policies) + "---|"]
    for row in report["results"]:
        cells = " | ".join(f"{row['policies'][p]['miss_ratio']:.4f}" for p in policies)
        lines.append(f"| {row['trace']} | {fmt_bytes(row['cache_bytes'])} | "
                     f"{row['block_accesses']} | {cells} | {row.get('best', '-')} |")
    return "\n".join(lines)


def format_table(report, policies):
    head = f"{'trace':<14} {'cache':>10} {'accesses':>9} " + " ".join(f"{p:>7}" for p in policies)
    lines = [head + f" {'best':>7}", "-" * (len(head) + 8)]
    for row in report["results"]:
        cells = " ".join(f"{row['policies'][p]['miss_ratio']:7.4f}" for p in policies)
        lines.append(f"{row['trace']:<14} {fmt_bytes(row['cache_bytes']):>10} "
                     f"{row['block_accesses']:>9} {cells} {row.get('best', '-'):>7}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- compare mode

def _engine_miss(r):
    if r.get("block_accesses"):
        return r["block_misses"] / r["block_accesses"]
    return float(r["miss_ratio"])


def _combo(r):
    return f"{r['admission']}/{r['replacement']}"


def _checked_combos(sim, default):
    """The combinations the targets apply to: --default, else results marked "default": true,
    else every combination not admitting always (every one if that leaves none)."""
    combos = {_combo(r) for t in sim["traces"] for r in t["results"]}
    if default:
        if default not in combos:
            known = ", ".join(sorted(combos))
            raise ValueError(f"--default {default}: not in the sim JSON ({known})")
        return {default}
    marked = {_combo(r) for t in sim["traces"] for r in t["results"] if r.get("default")}
    if marked:
        return marked
    return {c for c in combos if not c.startswith("always/")} or combos


def compare_points(sim, resolve, runs, tolerance, checked):
    """Per (trace, cache size): the referee's target policies and every engine combination."""
    points = []
    for t in sim["traces"]:
        path = resolve(t)
        for cache_bytes in sorted({r["cache_bytes"] for r in t["results"]}):
            cap = cache_bytes // msr.BLOCK
            res = {p: runs.get(path, cap, p) for p in referee.TARGET_POLICIES}
            best, best_miss = best_of(res)
            lru = res["lru"].miss_ratio
            engine = []
            for r in (r for r in t["results"] if r["cache_bytes"] == cache_bytes):
                miss = _engine_miss(r)
                engine.append({
                    "combo": _combo(r), "admission": r["admission"],
                    "replacement": r["replacement"],
                    "miss_ratio": round(miss, 6), "gap": round(miss - best_miss, 6),
                    "pass": miss <= best_miss + tolerance + EPS and miss <= lru + EPS,
                    "checked": _combo(r) in checked,
                    "block_accesses": r.get("block_accesses"),
                    "block_misses": r.get("block_misses"),
                    "ssd_bytes_written": r.get("ssd_bytes_written")})
            points.append({"trace": t["trace"], "file": path, "cache_bytes": cache_bytes,
                           "capacity_blocks": cap, "referee_accesses": res["lru"].accesses,
                           "referee": {p: {"miss_ratio": round(x.miss_ratio, 6),
                                           "misses": x.misses, "insertions": x.insertions}
                                       for p, x in res.items()},
                           "best": best, "best_miss_ratio": round(best_miss, 6),
                           "lru_miss_ratio": round(lru, 6), "engine": engine})
    return points


def _baseline(point, replacement, runs):
    """SSD bytes written and misses of admit-always with the same replacement at this point:
    the engine's own run when the JSON has one, else the referee's policy of that name."""
    for e in point["engine"]:
        if e["admission"] == "always" and e["replacement"] == replacement:
            if e["ssd_bytes_written"] is not None and e["block_accesses"]:
                return "engine", e["ssd_bytes_written"], e["block_misses"], e["block_accesses"]
    if replacement in referee.POLICIES and replacement != "opt":
        r = runs.get(point["file"], point["capacity_blocks"], replacement)
        return "referee", r.insertions * msr.BLOCK, r.misses, r.accesses
    return None


def write_summary(points, runs, target, hit_tolerance, checked):
    """SSD bytes written by each non-always combination over always, summed over points."""
    sums = {}
    for pt in points:
        for e in pt["engine"]:
            if e["admission"] == "always" or e["ssd_bytes_written"] is None:
                continue
            base = _baseline(pt, e["replacement"], runs)
            if base is None or not e["block_accesses"]:
                continue
            s = sums.setdefault(e["combo"], dict.fromkeys(
                ("points", "written", "always_written", "misses", "always_misses", "accesses",
                 "always_accesses"), 0) | {"combo": e["combo"], "baseline": set()})
            s["points"] += 1
            s["written"] += e["ssd_bytes_written"]
            s["misses"] += e["block_misses"]
            s["accesses"] += e["block_accesses"]
            s["baseline"].add(base[0])
            s["always_written"] += base[1]
            s["always_misses"] += base[2]
            s["always_accesses"] += base[3]
    out = []
    for s in sums.values():
        s["baseline"] = "+".join(sorted(s["baseline"]))
        s["ratio"] = round(s["written"] / s["always_written"], 6) if s["always_written"] else None
        s["hit_ratio"] = round(1 - s["misses"] / s["accesses"], 6)
        s["always_hit_ratio"] = round(1 - s["always_misses"] / s["always_accesses"], 6)
        s["pass"] = (s["ratio"] is not None and s["ratio"] <= target + EPS
                     and s["hit_ratio"] >= s["always_hit_ratio"] - hit_tolerance - EPS)
        s["checked"] = s["combo"] in checked
        out.append(s)
    return sorted(out, key=lambda s: s["combo"])


def compare(sim, resolve, runs, tolerance=0.02, write_target=0.5, hit_tolerance=0.0,
            default=None):
    """The whole judgement as a dict (see docs/policy-evaluation.md)."""
    checked = _checked_combos(sim, default)
    points = compare_points(sim, resolve, runs, tolerance, checked)
    writes = write_summary(points, runs, write_target, hit_tolerance, checked)
    miss_ok = all(e["pass"] for p in points for e in p["engine"] if e["checked"])
    # A judged combination without a write comparison (admits always, or no SSD byte counts)
    # cannot meet the write target.
    unjudged = sorted(checked - {s["combo"] for s in writes})
    writes_ok = not unjudged and all(s["pass"] for s in writes if s["checked"])
    mismatches = [(p["trace"], p["cache_bytes"], e["combo"]) for p in points for e in p["engine"]
                  if e["block_accesses"] not in (None, p["referee_accesses"])]
    return {"tolerance": tolerance, "write_target": write_target, "checked": sorted(checked),
            "points": points, "writes": writes, "writes_missing": unjudged,
            "access_mismatches": mismatches,
            "miss_pass": miss_ok, "writes_pass": writes_ok, "pass": miss_ok and writes_ok}


def format_compare(rep):
    lines = [f"{'trace':<14} {'cache':>10}  {'engine':<24} {'miss':>7}  {'best referee':<12} "
             f"{'miss':>7} {'gap':>8} {'lru':>7}  verdict"]
    lines.append("-" * len(lines[0]))
    for p in rep["points"]:
        first = True
        for e in p["engine"]:
            mark = " *" if e["checked"] else ""
            left = (f"{p['trace']:<14} {fmt_bytes(p['cache_bytes']):>10}" if first else " " * 25)
            ref = (f"{p['best']:<12} {p['best_miss_ratio']:7.4f}" if first else " " * 20)
            lru = f"{p['lru_miss_ratio']:7.4f}" if first else " " * 7
            lines.append(f"{left}  {e['combo'] + mark:<24} {e['miss_ratio']:7.4f}  {ref} "
                         f"{e['gap']:+8.4f} {lru}  {'pass' if e['pass'] else 'FAIL'}")
            first = False
    lines.append(f"(* = checked: within {rep['tolerance']} of the best of "
                 f"{', '.join(referee.TARGET_POLICIES)} and never above lru)")
    for trace, size, combo in rep["access_mismatches"]:
        lines.append(f"warning: {trace} at {fmt_bytes(size)}, {combo}: block accesses differ "
                     "from the referee's (access model mismatch?)")
    lines += ["", "SSD bytes written vs --admission always, summed over traces and sizes:",
              f"{'engine':<24} {'points':>6} {'written':>10} {'always':>10} {'ratio':>6} "
              f"{'hit':>7} {'always hit':>10}  baseline  verdict"]
    for s in rep["writes"]:
        ratio = f"{s['ratio']:6.3f}" if s["ratio"] is not None else "     -"
        lines.append(f"{s['combo'] + (' *' if s['checked'] else ''):<24} {s['points']:>6} "
                     f"{fmt_bytes(s['written']):>10} {fmt_bytes(s['always_written']):>10} {ratio} "
                     f"{s['hit_ratio']:7.4f} {s['always_hit_ratio']:10.4f}  {s['baseline']:<8}  "
                     f"{'pass' if s['pass'] else 'FAIL'}")
    for combo in rep["writes_missing"]:
        lines.append(f"{combo + ' *':<24} no comparison (admits always, or no SSD byte counts)"
                     "  FAIL")
    lines.append(f"(target: ratio <= {rep['write_target']} at an equal or better hit ratio)")
    lines += ["", f"miss ratio: {'PASS' if rep['miss_pass'] else 'FAIL'}   "
              f"SSD writes: {'PASS' if rep['writes_pass'] else 'FAIL'}   "
              f"overall: {'PASS' if rep['pass'] else 'FAIL'}"]
    return "\n".join(lines)


def make_resolver(traces, sim_path):
    """Trace file of a sim JSON entry: a TRACE argument of that name, else its "file" as given
    or relative to the JSON's directory."""
    def resolve(t):
        if t["trace"] in traces.paths:
            return traces.paths[t["trace"]]
        for cand in (t.get("file", ""), os.path.join(os.path.dirname(sim_path), t.get("file", ""))):
            if cand and os.path.isfile(cand):
                return cand
        raise FileNotFoundError(f"trace {t['trace']}: file {t.get('file')!r} not found "
                                "(give NAME=FILE)")
    return resolve


def dump_json(obj, where):
    text = json.dumps(obj, indent=1) + "\n"
    if where == "-":
        sys.stdout.write(text)
    else:
        with open(where, "w", encoding="utf-8") as f:
            f.write(text)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*", help="FILE, NAME=FILE or DIR")
    ap.add_argument("--cache-blocks", help="comma list of capacities in 4 KiB blocks")
    ap.add_argument("--cache-bytes", help="comma list of SSD sizes, e.g. 16M,32M")
    ap.add_argument("--cache-factors", default="1",
                    help="with a manifest: multiples of each trace's design size (default 1)")
    ap.add_argument("--policies", default=",".join(ALL_POLICIES))
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", help="also write the results as JSON to FILE ('-': stdout)")
    ap.add_argument("--compare", metavar="SIM_JSON", help="judge `tiercache sim --json` output")
    ap.add_argument("--default", help="ADMISSION/REPLACEMENT the targets apply to (--compare)")
    ap.add_argument("--tolerance", type=float, default=0.02, help="miss-ratio gap allowed")
    ap.add_argument("--write-target", type=float, default=0.5,
                    help="max SSD bytes written / always's (default 0.5)")
    ap.add_argument("--hit-tolerance", type=float, default=0.0,
                    help="hit ratio below always's still accepted (default 0)")
    ap.add_argument("--referee-cache", metavar="FILE",
                    help="keep the textbook policies' results in FILE (JSON) across runs")
    args = ap.parse_args(argv)
    bad = [p for p in args.policies.split(",") if p not in referee.POLICIES]
    if bad:
        ap.error(f"unknown policies {bad} (known: {', '.join(ALL_POLICIES)})")
    if not args.compare and not args.traces:
        ap.error("give TRACEs or --compare SIM_JSON")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        return run(args)
    except KeyError as e:
        print(f"evaluate.py: missing field {e} in the sim JSON", file=sys.stderr)
    except (OSError, ValueError) as e:  # msr.TraceError is a ValueError
        print(f"evaluate.py: {e}", file=sys.stderr)
    return 2


def run(args):
    traces = TraceSet()
    for t in args.traces:
        traces.add_arg(t)
    runs = RefereeRuns(traces, args.referee_cache)
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            sim = json.load(f)
        rep = compare(sim, make_resolver(traces, args.compare), runs,
                      args.tolerance, args.write_target, args.hit_tolerance, args.default)
        runs.save()
        print(format_compare(rep), file=sys.stderr if args.json == "-" else sys.stdout)
        if args.json:
            dump_json(rep, args.json)
        return 0 if rep["pass"] else 1
    report = run_table(args, traces, runs)
    runs.save()
    fmt = format_markdown if args.markdown else format_table
    print(fmt(report, args.policies.split(",")),
          file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        dump_json(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
