"""across.py: failing rows per family and size over made-up judgements."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import across

MIB = 1 << 20


def point(trace, size, gap, passed, checked=True):
    other = {"checked": False, "pass": False, "gap": 0.5}  # an unchecked combination: ignored
    return {"trace": trace, "cache_bytes": size,
            "engine": [{"checked": checked, "pass": passed, "gap": gap}, other]}


class AcrossTest(unittest.TestCase):
    def test_family_drops_the_variant_suffix_only(self):
        self.assertEqual(across.family("shift-v13"), "shift")
        self.assertEqual(across.family("shift"), "shift")
        self.assertEqual(across.family("loop2x-v3"), "loop2x")
        self.assertEqual(across.family("v3-trace"), "v3-trace")

    def test_tally_counts_failing_sets_and_keeps_the_worst_gap(self):
        reports = [
            {"points": [point("shift", 16 * MIB, 0.036, False),
                        point("shift", 32 * MIB, 0.001, True),
                        point("boot", 16 * MIB, 0.037, False)]},
            {"points": [point("shift-v7", 16 * MIB, 0.028, False),
                        point("shift-v7", 32 * MIB, 0.009, False),
                        point("boot-v7", 16 * MIB, 0.050, False),
                        point("hotset-v7", 16 * MIB, 0.4, False, checked=False)]},
        ]
        rows = across.tally(reports)
        self.assertEqual(rows[("shift", 16 * MIB)],
                         {"sets": 2, "fails": 2, "worst_gap": 0.036, "worst_trace": "shift"})
        self.assertEqual(rows[("shift", 32 * MIB)],
                         {"sets": 2, "fails": 1, "worst_gap": 0.009, "worst_trace": "shift-v7"})
        self.assertEqual(rows[("boot", 16 * MIB)]["worst_trace"], "boot-v7")
        self.assertNotIn(("hotset", 16 * MIB), rows)  # no checked combination there
        self.assertEqual(across.format_tally(rows).splitlines()[-1], "failing rows: 5 of 6")

    def test_main_prints_the_table_and_refuses_other_json(self):
        with tempfile.TemporaryDirectory() as d:
            good, bad = os.path.join(d, "good.json"), os.path.join(d, "bad.json")
            with open(good, "w", encoding="utf-8") as f:
                json.dump({"points": [point("boot-v3", 32 * MIB, 0.0095, True)]}, f)
            with open(bad, "w", encoding="utf-8") as f:
                json.dump({"traces": []}, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.assertEqual(across.main([good]), 0)
                self.assertEqual(across.main([bad]), 2)
            self.assertEqual(out.getvalue().splitlines()[1],
                             "boot          32.0 MiB    0 of 1    +0.0095 (boot-v3)")
            self.assertIn("not an evaluate.py --compare judgement: missing 'points'",
                          err.getvalue())


if __name__ == "__main__":
    unittest.main()
