"""across-variants.sh: its options checked before any work, and the sizes it hands the engine."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "across-variants.sh")


def run(*args):
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=120)


class AcrossVariantsTest(unittest.TestCase):
    def test_bad_cache_blocks_are_refused_before_anything_is_written(self):
        with tempfile.TemporaryDirectory() as out:
            for bad in ("abc", "15", "17", "0", "", "8k"):
                r = run("--out", out, "--cache-blocks", bad, "0")
                self.assertEqual(r.returncode, 2, bad)
                self.assertIn("--cache-blocks wants an even number of blocks >= 16", r.stderr)
            self.assertEqual(os.listdir(out), [])

    def test_no_variant_prints_the_usage(self):
        r = run("--cache-blocks", "16")
        self.assertEqual(r.returncode, 2)
        self.assertIn("[--cache-blocks C] [--replacement NAME] [--set KNOB=VALUE]... VARIANT...",
                      r.stderr)

    def engine_args(self, tmp, *options):
        """The arguments the script gives a fake engine (which fails the run) for variant 0."""
        tools = os.path.join(tmp, "build", "tools")
        os.makedirs(tools)
        args_file = os.path.join(tmp, "args")
        fake = os.path.join(tools, "tiercache")
        with open(fake, "w") as f:  # records its arguments, then fails the run
            f.write(f'#!/bin/sh\necho "$@" > {args_file}\nexit 3\n')
        os.chmod(fake, 0o755)
        r = run("--build", os.path.join(tmp, "build"), "--out", os.path.join(tmp, "out"),
                *options, "0")
        self.assertEqual(r.returncode, 3)  # the engine's failure ends the run
        with open(args_file) as f:
            return f.read().split()

    def test_knobs_reach_the_engine(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = self.engine_args(tmp, "--cache-blocks", "16", "--set", "margin=0.1",
                                    "--set", "young_bar=0")
            self.assertEqual(args[args.index("--set") + 1], "margin=0.1")
            self.assertEqual(args[args.index("--set", args.index("--set") + 1) + 1], "young_bar=0")

    def test_the_replacement_reaches_the_engine(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = self.engine_args(tmp, "--cache-blocks", "16")
            self.assertEqual(args[args.index("--replacement") + 1], "epoch-lru")
        with tempfile.TemporaryDirectory() as tmp:
            args = self.engine_args(tmp, "--cache-blocks", "16", "--replacement", "clock")
            self.assertEqual(args[args.index("--replacement") + 1], "clock")

    def test_the_engine_is_run_at_half_and_all_of_the_cache_blocks(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = self.engine_args(tmp, "--cache-blocks", "64")
            out = os.path.join(tmp, "out")
            self.assertEqual(args[0], "sim")
            self.assertEqual(args[args.index("--cache-size") + 1], "128K,256K")
            traces = [a for a in args if a.endswith(".csv")]
            self.assertEqual(len(traces), 6)  # the six traces of variant 0, built for 64 blocks
            with open(os.path.join(out, "v0", "manifest.json")) as f:
                self.assertIn('"cache_blocks": 64', f.read())


if __name__ == "__main__":
    unittest.main()
