"""families.py and msr.py: the CSV format tiercache's importer reads, determinism, variants,
and the shape of each family (at a small cache so the suite stays fast)."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import families
import msr
import referee

C = 256  # blocks


class MsrTest(unittest.TestCase):
    def test_block_accesses(self):
        reqs = [(False, 0, 4096), (True, 4096, 8192), (False, 1000, 5000), (False, 8192, 0),
                (False, 12287, 2)]
        # [0,4K) -> 0; [4K,12K) -> 1 2; [1000,6000) overlaps 0 and 1; empty; [12287,12289) -> 2 3
        self.assertEqual(msr.block_accesses(reqs), [0, 1, 2, 0, 1, 2, 3])

    def test_round_trip_and_order(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.csv")
            self.assertEqual(msr.write_msr(path, [(False, 5, 1), (True, 9, 2)]), 2)
            with open(path, encoding="ascii") as f:
                lines = f.read().splitlines()
            self.assertEqual(lines, [msr.HEADER,
                                     "128166372000000000,synth,0,Read,20480,4096,0",
                                     "128166372000000500,synth,0,Write,36864,8192,0"])
            self.assertEqual(msr.read_msr(path), [(False, 20480, 4096), (True, 36864, 8192)])
            # Out-of-order timestamps are sorted (stably), like the C++ importer does.
            with open(path, "w", encoding="ascii") as f:
                f.write("30,h,1,Write,0,4096,5\n10,h,1,read,8192,4096,5\n10,h,0,Read,4096,1,0\n")
            self.assertEqual(msr.trace_blocks(path), [2, 1, 0])

    def test_bad_lines(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.csv")
            for text, msg in (("1,h,0,Trim,0,4096,0\n", "Type must be Read or Write"),
                              ("1,h,0,Read,0,4096\n", "expected 7 fields"),
                              ("1,h,0,Read,0,4096,0\nx,h,0,Read,0,4096,0\n", ":2: bad number")):
                with open(path, "w", encoding="ascii") as f:
                    f.write(text)
                with self.assertRaisesRegex(msr.TraceError, msg):
                    msr.read_msr(path)


class FamiliesTest(unittest.TestCase):
    def test_deterministic(self):
        for f in families.FAMILIES:
            self.assertEqual(families.generate(f, C, 0), families.generate(f, C, 0), f)
        self.assertNotEqual(families.generate("hotset", C, 1)[1],
                            families.generate("hotset", C, 2)[1])

    def test_variants_stay_in_range(self):
        for f, spec in families.PARAMS.items():
            self.assertEqual(families.draw_params(f, 0), {k: v[0] for k, v in spec.items()})
            for variant in (1, 2, 7):
                params = families.draw_params(f, variant)
                self.assertNotEqual(params, families.draw_params(f, 0))
                for k, (default, lo, hi) in spec.items():
                    self.assertTrue(lo <= params[k] <= hi, (f, variant, k))
                    self.assertIs(type(params[k]), type(default))

    def test_shapes(self):
        for f in families.FAMILIES:
            params, reqs = families.generate(f, C, 0)
            blocks = sum(k for _, _, k in reqs)
            writes = sum(k for w, _, k in reqs if w) / blocks
            one_block = sum(1 for _, _, k in reqs if k == 1) / len(reqs)
            self.assertTrue(20 * C <= blocks <= 50 * C, (f, blocks / C))
            self.assertTrue(0.02 <= writes <= 0.3, (f, writes))
            self.assertTrue(all(b >= 0 and 1 <= k <= 32 for _, b, k in reqs), f)
            if f != "boot":
                self.assertGreater(one_block, 0.5, f)

    def test_loops_repeat_one_body(self):
        for f, factor in (("loop12", 1.2), ("loop2x", 2.0)):
            _, reqs = families.generate(f, C, 0)
            blocks = msr.block_accesses([(w, b * msr.BLOCK, k * msr.BLOCK) for w, b, k in reqs])
            size = round(factor * C)
            self.assertEqual(len(set(blocks)), size)
            self.assertEqual(blocks[:len(blocks) - size], blocks[size:])  # periodic
            self.assertEqual(referee.simulate("lru", blocks, C).miss_ratio, 1.0)

    def test_boot_core_recurs_but_lru_misses_it(self):
        params, reqs = families.generate("boot", C, 0)
        reads = [b + i for w, b, k in reqs if not w for i in range(k)]
        unique = len(set(reads))
        core = round(params["core"] * C)
        fresh = round(core * (1 - params["recur"]) / params["recur"])
        # Files are whole blocks, so each boot reads a little more than asked.
        self.assertAlmostEqual(unique / (core + params["boots"] * fresh), 1.0, delta=0.1)
        self.assertGreater(referee.simulate("lru", reads, C).miss_ratio, 0.95)
        self.assertLess(referee.simulate("opt", reads, C).miss_ratio, 0.9)

    def test_cli_writes_csv_and_merges_manifest(self):
        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                families.main(["--out", d, "--cache-blocks", "512", "--scale", "0.5",
                               "--families", "loop12,shift", "--variant", "2"])
                families.main(["--out", d, "--cache-blocks", "256", "--families", "hotset"])
            with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            names = [(t["name"], t["cache_blocks"]) for t in manifest["traces"]]
            self.assertEqual(names, [("hotset", 256), ("loop12-v2", 256), ("shift-v2", 256)])
            for t in manifest["traces"]:
                path = os.path.join(d, t["file"])
                with open(path, encoding="ascii") as f:
                    lines = f.read().splitlines()
                self.assertEqual(lines[0], msr.HEADER)
                ts = [int(line.split(",")[0]) for line in lines[1:]]
                self.assertTrue(all(a < b for a, b in zip(ts, ts[1:])))
                for line in lines[1:]:
                    _, host, disk, kind, off, size, resp = line.split(",")
                    self.assertIn(kind, ("Read", "Write"))
                    self.assertEqual((int(off) % 4096, int(size) % 4096, resp), (0, 0, "0"))
                self.assertEqual(len(msr.trace_blocks(path)), t["block_accesses"])
                self.assertEqual(len(lines) - 1, t["requests"])


if __name__ == "__main__":
    unittest.main()
