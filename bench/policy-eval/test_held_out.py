"""held_out.py: determinism, the shape of the sequential loops and backups, the manifest, and
errors (at a small cache so the suite stays fast)."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import held_out
import msr

C = 256  # blocks


def blocks(reqs):
    return sum(k for _, _, k in reqs)


class HeldOutTest(unittest.TestCase):
    def test_deterministic_and_sized_by_the_cache(self):
        for shape in held_out.SHAPES:
            a = held_out.generate(shape, C)
            self.assertEqual(a, held_out.generate(shape, C), shape)
            # Every shape runs for at least 25 C block accesses and at most 50 C (zrescan2).
            self.assertGreaterEqual(blocks(a), 25 * C, shape)
            self.assertLessEqual(blocks(a), 50 * C, shape)

    def test_sequential_loop_reads_block_after_block(self):
        reqs = held_out.generate("seqloop15_64k", C)
        loop = round(1.5 * C)  # 384 blocks: 24 requests of 16 a pass
        self.assertTrue(all(not w for w, _, _ in reqs))
        self.assertEqual([b for _, b, _ in reqs[:25]], [16 * i for i in range(24)] + [0])
        self.assertEqual({k for _, _, k in reqs}, {16})
        self.assertEqual(max(b + k for _, b, k in reqs), loop)
        # A 1 MiB loop of 1.2 C = 307 blocks: requests of 256 and the 51 left, then again.
        reqs = held_out.generate("seqloop12_1m", C)
        self.assertEqual(reqs[:3], [(False, 0, 256), (False, 256, 51), (False, 0, 256)])

    def test_hot_set_beside_the_loop(self):
        reqs = held_out.generate("hotseq15", C)
        hot = [b for _, b, k in reqs if k == 1]
        self.assertTrue(all(100 * C <= b < 100 * C + round(0.3 * C) for b in hot))
        share = len(hot) / len(reqs)
        self.assertAlmostEqual(share, 0.5, delta=0.05)

    def test_backup_reads_each_area_once(self):
        reqs = held_out.generate("backup", C)
        scans = [(b, k) for _, b, k in reqs if k == 256]
        self.assertEqual(len(scans), 6 * 3)  # 3 C in 1 MiB reads, six times
        self.assertEqual(len({b for b, _ in scans}), len(scans))

    def test_rescan_reads_the_same_area_each_round(self):
        reqs = held_out.generate("zrescan1", C)
        scans = [(b, k) for _, b, k in reqs if k == 32]
        self.assertEqual(len(scans), 10 * C // 32)
        self.assertEqual(len({b for b, _ in scans}), C // 32)  # one area, read ten times
        self.assertTrue(all(50 * C <= b < 51 * C for b, _ in scans))

    def test_stack_model_reuses_four_in_five(self):
        reqs = held_out.generate("stack03", C)
        seen, reused = set(), 0
        for _, b, _ in reqs:
            reused += b in seen
            seen.add(b)
        self.assertAlmostEqual(reused / len(reqs), 0.8, delta=0.02)

    def test_main_writes_csv_and_manifest(self):
        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(held_out.main(["--out", d, "--cache-blocks", str(C),
                                                "--shapes", "unif15,backup"]), 0)
            with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            self.assertEqual([t["name"] for t in manifest["traces"]], ["unif15", "backup"])
            self.assertEqual(manifest["traces"][0]["cache_blocks"], C)
            got = msr.read_msr(os.path.join(d, "backup.csv"))
            self.assertEqual(len(got), len(held_out.generate("backup", C)))

    def test_unknown_shape_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            with self.assertRaises(SystemExit) as e:
                held_out.main(["--out", d, "--shapes", "zipf06,nope"])
        self.assertEqual(e.exception.code, 2)
        self.assertIn("unknown shape 'nope'", err.getvalue())


if __name__ == "__main__":
    unittest.main()
