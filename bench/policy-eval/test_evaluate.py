"""evaluate.py: the table mode and the --compare judgement on a small made-up sim JSON."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import evaluate
import msr

KB4 = msr.BLOCK
CACHE = 3 * KB4  # 3 blocks


def engine(adm, repl, misses, accesses, written_blocks, **extra):
    r = {"cache_bytes": CACHE, "admission": adm, "replacement": repl,
         "block_accesses": accesses, "block_misses": misses, "miss_ratio": misses / accesses,
         "ssd_bytes_written": written_blocks * KB4, "hdd_bytes_read": misses * KB4}
    r.update(extra)
    return r


class EvaluateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        # loop: 1 2 3 4 three times. At 3 blocks (test_referee.py works these out by hand):
        # LRU, ARC and SIEVE miss all 12, S3-FIFO 10, LIRS 8 (the best), OPT 6.
        msr.write_msr(self.path("loop.csv"), [(False, b, 1) for b in [1, 2, 3, 4] * 3])
        # fits: 3 blocks twice -> every policy misses 3 of 6; the best is lru (first on ties).
        msr.write_msr(self.path("fits.csv"), [(i % 2 == 0, b, 1) for i, b in
                                              enumerate([7, 8, 9, 7, 8, 9])])

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def sim(self, mark_default=True):
        d = {"default": True} if mark_default else {}
        return {"traces": [
            {"trace": "loop", "file": "loop.csv", "results": [
                engine("always", "s3fifo", 10, 12, 10),
                engine("adaptive", "s3fifo", 8, 12, 3, **d),
                engine("adaptive", "lru", 12, 12, 6)]},
            {"trace": "fits", "file": "fits.csv", "results": [
                engine("always", "s3fifo", 3, 6, 3),
                engine("adaptive", "s3fifo", 3, 6, 1, **d),
                engine("adaptive", "lru", 4, 6, 2)]}]}

    def run_main(self, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = evaluate.main(argv)
        return code, out.getvalue()

    def write_sim(self, sim):
        with open(self.path("sim.json"), "w", encoding="utf-8") as f:
            json.dump(sim, f)
        return self.path("sim.json")

    def test_compare_judgement(self):
        code, text = self.run_main(["--compare", self.write_sim(self.sim()),
                                    "--json", self.path("rep.json")])
        self.assertEqual(code, 0, text)
        with open(self.path("rep.json"), encoding="utf-8") as f:
            rep = json.load(f)
        self.assertEqual(rep["checked"], ["adaptive/s3fifo"])
        loop, fits = rep["points"]
        self.assertEqual((loop["capacity_blocks"], loop["best"], loop["best_miss_ratio"],
                          loop["lru_miss_ratio"]), (3, "lirs", round(8 / 12, 6), 1.0))
        self.assertEqual({p: v["misses"] for p, v in loop["referee"].items()},
                         {"lru": 12, "arc": 12, "s3fifo": 10, "lirs": 8, "sieve": 12})
        self.assertEqual((fits["best"], fits["best_miss_ratio"]), ("lru", 0.5))
        verdicts = {(p["trace"], e["combo"]): (e["gap"], e["pass"], e["checked"])
                    for p in rep["points"] for e in p["engine"]}
        self.assertEqual(verdicts, {
            ("loop", "always/s3fifo"): (round(2 / 12, 6), False, False),
            ("loop", "adaptive/s3fifo"): (0.0, True, True),
            ("loop", "adaptive/lru"): (round(4 / 12, 6), False, False),
            ("fits", "always/s3fifo"): (0.0, True, False),
            ("fits", "adaptive/s3fifo"): (0.0, True, True),
            ("fits", "adaptive/lru"): (round(1 / 6, 6), False, False)})
        writes = {s["combo"]: s for s in rep["writes"]}
        # adaptive/s3fifo: (3 + 1) blocks written vs always's (10 + 3); hits 7/18 vs 5/18.
        s = writes["adaptive/s3fifo"]
        self.assertEqual((s["baseline"], s["written"], s["always_written"], s["ratio"],
                          s["hit_ratio"], s["always_hit_ratio"], s["pass"]),
                         ("engine", 4 * KB4, 13 * KB4, round(4 / 13, 6), round(7 / 18, 6),
                          round(5 / 18, 6), True))
        # adaptive/lru has no always/lru run: the referee's LRU inserts 12 + 3 blocks.
        s = writes["adaptive/lru"]
        self.assertEqual((s["baseline"], s["always_written"], s["ratio"], s["pass"]),
                         ("referee", 15 * KB4, round(8 / 15, 6), False))
        self.assertTrue(rep["pass"])
        self.assertIn("adaptive/s3fifo *", text)
        self.assertIn("overall: PASS", text)
        self.assertEqual((rep["access_mismatches"], rep["writes_missing"]), ([], []))

    def test_default_from_command_line_and_unmarked(self):
        sim_path = self.write_sim(self.sim(mark_default=False))
        code, text = self.run_main(["--compare", sim_path, "--default", "adaptive/lru"])
        self.assertEqual(code, 1)
        self.assertIn("overall: FAIL", text)
        # Nothing marked: every combination not admitting always is checked.
        code, text = self.run_main(["--compare", sim_path])
        self.assertEqual(code, 1)
        self.assertIn("adaptive/lru *", text)
        self.assertIn("adaptive/s3fifo *", text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(self.run_main(["--compare", sim_path, "--default", "x/y"])[0], 2)
        self.assertIn("--default x/y: not in the sim JSON", err.getvalue())
        # An admit-always default cannot halve the SSD writes.
        code, text = self.run_main(["--compare", sim_path, "--default", "always/s3fifo"])
        self.assertEqual(code, 1)
        self.assertIn("always/s3fifo *          no comparison", text)
        self.assertIn("miss ratio: FAIL   SSD writes: FAIL", text)

    def test_never_above_lru_even_within_tolerance(self):
        sim = self.sim()
        rep = evaluate.compare(sim, evaluate.make_resolver(evaluate.TraceSet(),
                                                           self.write_sim(sim)),
                               evaluate.RefereeRuns(evaluate.TraceSet()), tolerance=0.5)
        lru_fits = [e for p in rep["points"] if p["trace"] == "fits" for e in p["engine"]
                    if e["combo"] == "adaptive/lru"][0]
        self.assertEqual((lru_fits["gap"], lru_fits["pass"]), (round(1 / 6, 6), False))

    def test_access_count_mismatch_is_reported(self):
        sim = self.sim()
        sim["traces"][0]["results"][0]["block_accesses"] = 13
        code, text = self.run_main(["--compare", self.write_sim(sim)])
        self.assertIn("warning: loop at 12.0 KiB, always/s3fifo: block accesses differ", text)

    def test_table_mode(self):
        code, text = self.run_main([f"L={self.path('loop.csv')}", "--cache-blocks", "3,4",
                                    "--json", self.path("t.json")])
        self.assertEqual(code, 0)
        with open(self.path("t.json"), encoding="utf-8") as f:
            rows = json.load(f)["results"]
        self.assertEqual([(r["trace"], r["cache_blocks"], r["best"]) for r in rows],
                         [("L", 3, "lirs"), ("L", 4, "lru")])
        at3 = {p: v["misses"] for p, v in rows[0]["policies"].items()}
        self.assertEqual(at3, {"lru": 12, "arc": 12, "s3fifo": 10, "lirs": 8, "sieve": 12,
                               "fifo": 12, "opt": 6})
        self.assertEqual(rows[1]["policies"]["opt"]["misses"], 4)
        self.assertIn("L", text)
        code, text = self.run_main([f"L={self.path('loop.csv')}", "--cache-blocks", "3",
                                    "--policies", "lru,lirs", "--markdown"])
        self.assertEqual(text.splitlines()[2], "| L | 12.0 KiB | 12 | 1.0000 | 0.6667 | - |")

    def test_referee_cache_replays_each_trace_once(self):
        sim_path = self.write_sim(self.sim())
        cache = self.path("ref.json")
        argv = ["--compare", sim_path, "--json", self.path("rep1.json"), "--referee-cache", cache]
        self.assertEqual(self.run_main(argv)[0], 0)
        with open(cache, encoding="utf-8") as f:
            stored = json.load(f)
        # Two traces at 3 blocks, five target policies each.
        self.assertEqual((stored["version"], len(stored["runs"])), (1, 10))
        calls = []
        real = evaluate.referee.simulate

        def counting(name, blocks, capacity):
            calls.append((name, capacity))
            return real(name, blocks, capacity)
        evaluate.referee.simulate = counting
        try:
            argv[3] = self.path("rep2.json")
            self.assertEqual(self.run_main(argv)[0], 0)
            self.assertEqual(calls, [])  # every result came from the cache
            with open(self.path("rep1.json"), encoding="utf-8") as a, \
                    open(self.path("rep2.json"), encoding="utf-8") as b:
                self.assertEqual(json.load(a), json.load(b))
            # A changed trace is replayed; the unchanged one is not. loop is now 1 2 3 4 four
            # times: LIRS misses 10 of 16 (the 4 cold misses, then 2 per pass, as over the three
            # passes of setUp's loop), LRU all 16.
            msr.write_msr(self.path("loop.csv"), [(False, b, 1) for b in [1, 2, 3, 4] * 4])
            argv[3] = self.path("rep3.json")
            self.run_main(argv)
            self.assertEqual(sorted(calls),
                             sorted((p, 3) for p in evaluate.referee.TARGET_POLICIES))
            with open(self.path("rep3.json"), encoding="utf-8") as f:
                loop = json.load(f)["points"][0]
            self.assertEqual((loop["referee"]["lru"]["misses"], loop["referee"]["lirs"]["misses"]),
                             (16, 10))
        finally:
            evaluate.referee.simulate = real

    def test_unreadable_referee_cache_is_replayed_and_rewritten(self):
        sim_path = self.write_sim(self.sim())
        cache = self.path("ref.json")
        with open(cache, "w", encoding="utf-8") as f:
            f.write("{not json")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code, _ = self.run_main(["--compare", sim_path, "--referee-cache", cache])
        self.assertEqual(code, 0)
        self.assertIn(f"ignoring referee cache {cache}", err.getvalue())
        with open(cache, encoding="utf-8") as f:
            self.assertEqual(len(json.load(f)["runs"]), 10)

    def test_parse_size(self):
        self.assertEqual([evaluate.parse_size(s) for s in ("4096", "32M", "32MiB", "1G", "2k")],
                         [4096, 32 << 20, 32 << 20, 1 << 30, 2048])
        self.assertRaises(ValueError, evaluate.parse_size, "0")


if __name__ == "__main__":
    unittest.main()
