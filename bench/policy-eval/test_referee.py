"""Hand-computed traces for every referee policy, cross-checks against naive list-based
versions, invariants, and OPT as a lower bound. Run: python3 -m unittest discover -s ."""
import random
import unittest

import referee

# Silberschatz's reference string (the one that shows Belady's anomaly for FIFO).
BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]


def hits(policy, trace):
    """'H'/'M' per access."""
    return "".join("H" if policy.access(x) else "M" for x in trace)


def random_traces(count, seed=1):
    for i in range(count):
        r = random.Random(seed * 1000 + i)
        universe = r.randint(2, 40)
        hot = r.randint(1, universe)
        trace = [r.randrange(hot) if r.random() < 0.6 else r.randrange(universe)
                 for _ in range(r.randint(1, 400))]
        yield r.randint(2, 16), trace


class LruTest(unittest.TestCase):
    def test_textbook_belady_string(self):
        # 3 frames, cache shown LRU..MRU:
        # 1 M [1]  2 M [1 2]  3 M [1 2 3]  4 M [2 3 4]  1 M [3 4 1]  2 M [4 1 2]  5 M [1 2 5]
        # 1 H [2 5 1]  2 H [5 1 2]  3 M [1 2 3]  4 M [2 3 4]  5 M [3 4 5]  -> 10 faults
        p = referee.Lru(3)
        self.assertEqual(hits(p, BELADY), "MMMMMMMHHMMM")
        self.assertEqual((p.accesses, p.misses, p.insertions), (12, 10, 10))
        # 4 frames: 1-4 M [1 2 3 4]  1 H  2 H [3 4 1 2]  5 M [4 1 2 5]  1 H  2 H [4 5 1 2]
        # 3 M [5 1 2 3]  4 M [1 2 3 4]  5 M [2 3 4 5]  -> 8 faults (LRU has no anomaly)
        self.assertEqual(hits(referee.Lru(4), BELADY), "MMMMHHMHHMMM")

    def test_capacity_3_short_trace(self):
        # 1 M  2 M  3 M [1 2 3]  1 H [2 3 1]  4 M [3 1 4]  2 M [1 4 2]  5 M [4 2 5]
        # 1 M [2 5 1]  2 H [5 1 2]  3 M [1 2 3]
        p = referee.Lru(3)
        self.assertEqual(hits(p, [1, 2, 3, 1, 4, 2, 5, 1, 2, 3]), "MMMHMMMMHM")
        self.assertEqual(list(p.cache), [1, 2, 3])


class FifoTest(unittest.TestCase):
    def test_belady_anomaly(self):
        # 3 frames: 1 2 3 M; 4 M evicts 1; 1 M evicts 2; 2 M evicts 3; 5 M evicts 4; 1 H; 2 H;
        # 3 M evicts 1; 4 M evicts 2; 5 H -> 9 faults
        self.assertEqual(hits(referee.Fifo(3), BELADY), "MMMMMMMHHMMH")
        # 4 frames: 1-4 M; 1 H; 2 H; then 5 1 2 3 4 5 each evict the oldest -> 10 faults
        self.assertEqual(hits(referee.Fifo(4), BELADY), "MMMMHHMMMMMM")


class OptTest(unittest.TestCase):
    def test_textbook_belady_string(self):
        # 3 frames: 4 evicts 3 (next use latest), 5 evicts 4, 3 and 4 evict blocks never used
        # again -> 7 faults; 4 frames: 5 evicts 4, 4 evicts one of 1 2 3 -> 6 faults.
        for cap, misses in ((3, 7), (4, 6)):
            p = referee.Opt(cap).run(BELADY)
            self.assertEqual((p.accesses, p.misses, p.insertions), (12, misses, misses))

    def test_opt_is_a_lower_bound(self):
        for cap, trace in random_traces(150):
            opt = referee.simulate("opt", trace, cap).misses
            for name in ("lru", "fifo", "arc", "s3fifo", "lirs", "sieve"):
                self.assertLessEqual(opt, referee.simulate(name, trace, cap).misses,
                                     f"{name} cap {cap} trace {trace}")


class ArcTest(unittest.TestCase):
    def state(self, p):
        return list(p.t1), list(p.t2), list(p.b1), list(p.b2), p.p

    def test_p_moves_on_ghost_hits(self):
        p = referee.Arc(3)
        # a a, b b, c c: each second access moves the block from T1 to T2 -> T2 = [a b c].
        # d: IV-B, |L1| = 0, total 3 >= c: REPLACE with T1 empty takes T2's LRU a -> B2.
        # d: T1 -> T2 = [b c d].  e: REPLACE again, T1 empty: b -> B2 = [a b]; T1 = [e].
        # f: IV-B total 5: |T1| = 1 > p = 0, so e -> B1; T1 = [f].
        self.assertEqual(hits(p, "aabbccddef"), "MHMHMHMHMM")
        self.assertEqual(self.state(p), (["f"], ["c", "d"], ["e"], ["a", "b"], 0.0))
        # e in B1 (Case II): |B1| = 1 < |B2| = 2 so delta = 2/1 -> p = 2. REPLACE: |T1| = 1 is
        # not > 2 -> T2's LRU c -> B2; e -> T2.
        self.assertFalse(p.access("e"))
        self.assertEqual(self.state(p), (["f"], ["d", "e"], [], ["a", "b", "c"], 2.0))
        # g: IV-B, total = 2c: drop B2's LRU a; REPLACE (|T1| = 1 <= p) moves d -> B2.
        self.assertFalse(p.access("g"))
        self.assertEqual(self.state(p), (["f", "g"], ["e"], [], ["b", "c", "d"], 2.0))
        # a was forgotten: IV-B again, drop b from B2; |T1| = 2 = p but a is not from B2 -> T2's
        # e goes to B2.
        self.assertFalse(p.access("a"))
        self.assertEqual(self.state(p), (["f", "g", "a"], [], [], ["c", "d", "e"], 2.0))
        # c in B2 (Case III): |B2| >= |B1| so delta = 1 -> p = 1; |T1| = 3 > 1: f -> B1.
        self.assertFalse(p.access("c"))
        self.assertEqual(self.state(p), (["g", "a"], ["c"], ["f"], ["d", "e"], 1.0))
        self.assertTrue(p.access("a"))  # T1 hit -> T2
        self.assertEqual(self.state(p), (["g"], ["c", "a"], ["f"], ["d", "e"], 1.0))
        # f in B1: |B1| = 1 < |B2| = 2, delta 2 -> p = 3; T2's c -> B2.
        self.assertFalse(p.access("f"))
        self.assertEqual(self.state(p), (["g"], ["a", "f"], [], ["d", "e", "c"], 3.0))
        # h: total = 2c drops d; |T1| = 1 <= p -> T2's a -> B2.
        self.assertFalse(p.access("h"))
        self.assertEqual(self.state(p), (["g", "h"], ["f"], [], ["e", "c", "a"], 3.0))
        # e in B2: p = 2 = |T1|, and the request came from B2 -> T1's g goes (the tie rule).
        self.assertFalse(p.access("e"))
        self.assertEqual(self.state(p), (["h"], ["f", "e"], ["g"], ["c", "a"], 2.0))
        self.assertEqual((p.accesses, p.misses, p.insertions), (18, 13, 13))

    def test_case_a_drops_t1_lru_when_b1_is_empty(self):
        # c = 2, a b c: L1 = T1 = [a b] holds c pages, so c deletes a outright (not into B1).
        p = referee.Arc(2)
        self.assertEqual(hits(p, "abc"), "MMM")
        self.assertEqual(self.state(p), (["b", "c"], [], [], [], 0.0))

    def test_invariants(self):
        for cap, trace in random_traces(100, seed=2):
            p = referee.Arc(cap)
            for x in trace:
                p.access(x)
                t1, t2, b1, b2 = len(p.t1), len(p.t2), len(p.b1), len(p.b2)
                self.assertLessEqual(t1 + t2, cap)
                self.assertLessEqual(t1 + b1, cap)
                self.assertLessEqual(t1 + t2 + b1 + b2, 2 * cap)
                self.assertTrue(0 <= p.p <= cap)
                if t1 + t2 < cap:
                    self.assertEqual(b1 + b2, 0)


class S3FifoTest(unittest.TestCase):
    def state(self, p):
        return list(p.small), list(p.main), list(p.ghost)

    def test_ghost_promotion_and_main_reinsertion(self):
        # capacity 4: S holds 1 block, M 3, the ghost 3 ids. Lists are oldest first.
        p = referee.S3Fifo(4)
        self.assertEqual((p.small_cap, p.main_cap, p.ghost_cap), (1, 3, 3))
        # a b c d fill S; a b c hit once each (freq 1).
        self.assertEqual(hits(p, "abcdabc"), "MMMMHHH")
        # e: full, M (0) <= 3 -> evict from S: a b c were reused -> M with freq 0; d was not ->
        # ghost, which frees the slot.
        self.assertFalse(p.access("e"))
        self.assertEqual(self.state(p), (["e"], ["a", "b", "c"], ["d"]))
        # a four times: freq 1 2 3 3 (capped); b once: freq 1.
        self.assertEqual(hits(p, "aaaab"), "HHHHH")
        self.assertEqual((p.freq["a"], p.freq["b"], p.freq["c"]), (3, 1, 0))
        # f: evict from S: e unused -> ghost.
        self.assertFalse(p.access("f"))
        self.assertEqual(self.state(p), (["f"], ["a", "b", "c"], ["d", "e"]))
        # d: ghost hit -> leaves the ghost and goes straight to M; S's f makes room (-> ghost).
        self.assertFalse(p.access("d"))
        self.assertEqual(self.state(p), ([], ["a", "b", "c", "d"], ["e", "f"]))
        # g: M (4) > 3 -> evict from M: a (freq 3) back to the head with 2, b (1) with 0,
        # c (0) evicted, not remembered. g enters S.
        self.assertFalse(p.access("g"))
        self.assertEqual(self.state(p), (["g"], ["d", "a", "b"], ["e", "f"]))
        self.assertEqual((p.freq["a"], p.freq["b"], p.freq["d"]), (2, 0, 0))
        # h: g -> ghost. c: a plain miss (M does not feed the ghost): h -> ghost, which now
        # holds 4 ids > 3, so e is forgotten. e: a plain miss into S again.
        self.assertEqual(hits(p, "hce"), "MMM")
        self.assertEqual(self.state(p), (["e"], ["d", "a", "b"], ["g", "h", "c"]))
        self.assertEqual((p.accesses, p.misses, p.insertions), (19, 11, 11))

    def test_loop_of_four_in_three(self):
        # S 1, M 2. 1 2 3 M (S = [1 2 3]); 4 M: 1 -> ghost. 1 2 3 4 each come back from the
        # ghost into M: 1 (2 -> ghost), 2 (3 -> ghost), 3 (4 -> ghost), 4 (M = [1 2 3] > 2:
        # 1 evicted). Third round: 1 M (M over: 2 evicted), 2 M (1 -> ghost), 3 H, 4 H.
        self.assertEqual(hits(referee.S3Fifo(3), [1, 2, 3, 4] * 3), "MMMMMMMMMMHH")

    def test_invariants(self):
        for cap, trace in random_traces(100, seed=3):
            p = referee.S3Fifo(cap)
            for x in trace:
                p.access(x)
                self.assertEqual(len(p.small) + len(p.main), len(p.freq))
                self.assertLessEqual(len(p.freq), cap)
                self.assertLessEqual(len(p.ghost), p.ghost_cap)
                self.assertFalse(set(p.ghost) & set(p.freq))
                self.assertTrue(all(0 <= f <= 3 for f in p.freq.values()))


class LirsTest(unittest.TestCase):
    def test_loop_resistance(self):
        # capacity 3: 2 LIR blocks, 1 resident HIR. Loop 1 2 3 4, three times.
        # 1 2 M -> LIR (warm-up). 3 M -> resident HIR (S = [1 2 3], Q = [3]).
        # 4 M: evict Q's 3 (stays in S, non-resident); S = [1 2 3 4], Q = [4].
        # 1 H (LIR): S = [2 3 4 1].  2 H: S = [3 4 1 2], pruning drops 3 and 4 -> [1 2].
        # 3 M evicts 4 (gone: not in S); 4 M evicts 3; then 1 H 2 H 3 M 4 M again.
        p = referee.Lirs(3)
        self.assertEqual((p.lir_cap, p.hir_cap), (2, 1))
        self.assertEqual(hits(p, [1, 2, 3, 4] * 3), "MMMMHHMMHHMM")
        # LRU misses everything; OPT (lower bound) keeps two of the four.
        self.assertEqual(referee.simulate("lru", [1, 2, 3, 4] * 3, 3).misses, 12)
        self.assertEqual(referee.simulate("opt", [1, 2, 3, 4] * 3, 3).misses, 6)

    def test_hir_hit_in_stack_becomes_lir(self):
        p = referee.Lirs(3)
        # 1 2 LIR; 3 resident HIR (S = [1 2 3], Q = [3]).
        # 3 H: in S -> LIR; the bottom LIR 1 becomes resident HIR at Q's end: S = [2 3], Q = [1].
        self.assertEqual(hits(p, [1, 2, 3, 3]), "MMMH")
        self.assertEqual((list(p.s), list(p.q), p.lir), ([2, 3], [1], {2, 3}))
        # 4 M: evict 1 (not in S: forgotten); S = [2 3 4], Q = [4].
        # 1 M: evict 4 (stays in S, non-resident); S = [2 3 4 1], Q = [1].
        # 4 M: non-resident HIR in S -> LIR after evicting 1; bottom LIR 2 -> Q; S = [3 1 4].
        self.assertEqual(hits(p, [4, 1, 4]), "MMM")
        self.assertEqual((list(p.s), list(p.q), p.lir), ([3, 1, 4], [2], {3, 4}))
        # 2 H: resident HIR not in S -> stays HIR, pushed on S and to Q's end.
        self.assertTrue(p.access(2))
        self.assertEqual((list(p.s), list(p.q), p.lir), ([3, 1, 4, 2], [2], {3, 4}))

    def test_demoted_lir_joins_the_end_of_q(self):
        p = referee.Lirs(4, hir_share=0.5)  # 2 LIR, 2 resident HIR
        # 1 2 LIR; 3 4 resident HIR: S = [1 2 3 4], Q = [3 4].
        # 4 H: in S -> LIR; the bottom LIR 1 goes to Q's end: Q = [3 1], S = [2 3 4].
        self.assertEqual(hits(p, [1, 2, 3, 4, 4]), "MMMMH")
        self.assertEqual((list(p.s), list(p.q), p.lir), ([2, 3, 4], [3, 1], {2, 4}))
        # 5 M evicts Q's front 3, which stays in S as non-resident; 1 is still cached.
        self.assertEqual(hits(p, [5, 1]), "MH")
        self.assertEqual((list(p.s), list(p.q)), ([2, 3, 4, 5, 1], [5, 1]))

    def test_invariants(self):
        for cap, trace in random_traces(100, seed=4):
            p = referee.Lirs(cap)
            for x in trace:
                p.access(x)
                self.assertLessEqual(len(p.lir) + len(p.q), cap)
                self.assertLessEqual(len(p.lir), p.lir_cap)
                self.assertFalse(p.lir & set(p.q))
                self.assertTrue(p.lir <= set(p.s))
                if p.s:
                    self.assertIn(next(iter(p.s)), p.lir)  # bottom of S is LIR


class SieveTest(unittest.TestCase):
    def queue(self, p):
        out, x = [], p.tail
        while x is not None:
            out.append(x)
            x = p.newer[x]
        return out  # tail (oldest) first

    def test_hand_walkthrough(self):
        p = referee.Sieve(4)
        # a b c d M; a b H mark a and b visited.
        self.assertEqual(hits(p, "abcdab"), "MMMMHH")
        # e: the hand starts at the tail a: visited -> cleared, keeps its place; b likewise;
        # c unvisited -> evicted. The hand rests on d; e enters at the head.
        self.assertFalse(p.access("e"))
        self.assertEqual((self.queue(p), p.hand), (list("abde"), "d"))
        # d H. f: d visited -> cleared; e (new, unvisited) is evicted: the hand was near the
        # head. It passes the head, so the next search starts again at the tail.
        self.assertTrue(p.access("d"))
        self.assertFalse(p.access("f"))
        self.assertEqual((self.queue(p), p.hand), (list("abdf"), None))
        # g: from the tail: a (cleared earlier) evicted; hand -> b. b H. h: b cleared, d evicted.
        self.assertEqual(hits(p, "gbh"), "MHM")
        self.assertEqual((self.queue(p), p.hand), (list("bfgh"), "f"))
        self.assertEqual((p.visited["b"], p.accesses, p.misses), (False, 12, 8))

    def test_matches_naive_list_version(self):
        for cap, trace in random_traces(150, seed=5):
            q, visited, hand, misses = [], {}, None, 0
            for x in trace:
                if x in visited:
                    visited[x] = True
                    continue
                misses += 1
                if len(q) == cap:
                    i = 0 if hand is None else hand
                    while visited[q[i]]:
                        visited[q[i]] = False
                        i = (i + 1) % len(q)
                    del visited[q.pop(i)]
                    hand = i if i < len(q) else None
                q.append(x)
                visited[x] = False
            self.assertEqual(referee.simulate("sieve", trace, cap).misses, misses)


class CrossCheckTest(unittest.TestCase):
    def test_lru_and_fifo_match_naive_lists(self):
        for cap, trace in random_traces(150, seed=6):
            lru, fifo, lru_m, fifo_m = [], [], 0, 0
            for x in trace:
                if x in lru:
                    lru.remove(x)
                else:
                    lru_m += 1
                    if len(lru) == cap:
                        lru.pop(0)
                lru.append(x)
                if x not in fifo:
                    fifo_m += 1
                    if len(fifo) == cap:
                        fifo.pop(0)
                    fifo.append(x)
            self.assertEqual(referee.simulate("lru", trace, cap).misses, lru_m)
            self.assertEqual(referee.simulate("fifo", trace, cap).misses, fifo_m)

    def test_counters_and_warm_cache(self):
        # A trace that fits: every policy misses only the first touch of each block.
        trace = [1, 2, 3, 1, 2, 3, 3, 2, 1]
        for name in referee.POLICIES:
            r = referee.simulate(name, trace, 4)
            self.assertEqual((r.accesses, r.misses, r.insertions), (9, 3, 3), name)
            self.assertAlmostEqual(r.miss_ratio, 3 / 9)


if __name__ == "__main__":
    unittest.main()
