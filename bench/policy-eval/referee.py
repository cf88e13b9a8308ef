"""Textbook replacement policies over 4 KiB block ids: the referee for tiercache's policies.

Independent of the engine's code on purpose. Every cache is fully associative, holds
`capacity` blocks and admits every missed block (so insertions = misses = SSD block writes).
Each policy's access(block) returns True on a hit and counts accesses, misses and insertions.
Standard library only; single-threaded.
"""
from collections import OrderedDict, deque, namedtuple
import heapq


class Policy:
    """Counters shared by every policy; run() feeds a whole block sequence."""
    name = "?"

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError(f"{self.name}: capacity must be >= 1 block")
        self.capacity = capacity
        self.accesses = 0
        self.misses = 0
        self.insertions = 0

    def run(self, blocks):
        access = self.access
        for b in blocks:
            access(b)
        return self


class Lru(Policy):
    name = "lru"

    def __init__(self, capacity):
        super().__init__(capacity)
        self.cache = OrderedDict()  # first = least recently used

    def access(self, x):
        self.accesses += 1
        cache = self.cache
        if x in cache:
            cache.move_to_end(x)
            return True
        self.misses += 1
        self.insertions += 1
        if len(cache) >= self.capacity:
            cache.popitem(last=False)
        cache[x] = None
        return False


class Fifo(Policy):
    name = "fifo"

    def __init__(self, capacity):
        super().__init__(capacity)
        self.queue = deque()  # left = oldest
        self.members = set()

    def access(self, x):
        self.accesses += 1
        if x in self.members:
            return True
        self.misses += 1
        self.insertions += 1
        if len(self.queue) >= self.capacity:
            self.members.discard(self.queue.popleft())
        self.queue.append(x)
        self.members.add(x)
        return False


class Arc(Policy):
    """ARC, Megiddo & Modha (FAST'03), Figure 4 line by line. T1/T2 hold cached blocks,
    B1/B2 are ghosts; each list's first entry is its LRU end. p is real-valued as in the paper
    (the B1/B2 deltas are ratios)."""
    name = "arc"

    def __init__(self, capacity):
        super().__init__(capacity)
        self.t1, self.t2 = OrderedDict(), OrderedDict()
        self.b1, self.b2 = OrderedDict(), OrderedDict()
        self.p = 0.0

    def access(self, x):
        self.accesses += 1
        t1, t2, b1, b2 = self.t1, self.t2, self.b1, self.b2
        if x in t1:  # Case I
            del t1[x]
            t2[x] = None
            return True
        if x in t2:  # Case I
            t2.move_to_end(x)
            return True
        self.misses += 1
        self.insertions += 1
        c = self.capacity
        if x in b1:  # Case II: recency was evicted too early, grow T1's target
            delta = 1.0 if len(b1) >= len(b2) else len(b2) / len(b1)
            self.p = min(self.p + delta, float(c))
            self._replace(False)
            del b1[x]
            t2[x] = None
        elif x in b2:  # Case III: frequency was evicted too early, shrink T1's target
            delta = 1.0 if len(b2) >= len(b1) else len(b1) / len(b2)
            self.p = max(self.p - delta, 0.0)
            self._replace(True)
            del b2[x]
            t2[x] = None
        else:  # Case IV
            l1 = len(t1) + len(b1)
            if l1 == c:  # Case A
                if len(t1) < c:
                    b1.popitem(last=False)
                    self._replace(False)
                else:
                    t1.popitem(last=False)
            else:  # Case B
                total = l1 + len(t2) + len(b2)
                if total >= c:
                    if total == 2 * c:
                        b2.popitem(last=False)
                    self._replace(False)
            t1[x] = None
        return False

    def _replace(self, x_in_b2):
        t1 = self.t1
        if t1 and (len(t1) > self.p or (x_in_b2 and len(t1) == self.p)):
            y, _ = t1.popitem(last=False)
            self.b1[y] = None
        else:
            y, _ = self.t2.popitem(last=False)
            self.b2[y] = None


class S3Fifo(Policy):
    """S3-FIFO, Yang et al. (SOSP'23): small FIFO S (10%), main FIFO M (90%) with a 2-bit
    frequency (cap 3, CLOCK-like reinsertion), ghost FIFO G of ids (as many as M holds).
    A block leaves S for M when freq >= promote_threshold (default 1: "reused since insertion",
    as the authors describe it; libCacheSim's current default is 2); it enters M with freq 0.
    Whether to evict from S or M follows libCacheSim's S3FIFOv0 (the paper's version)."""
    name = "s3fifo"

    def __init__(self, capacity, small_ratio=0.10, promote_threshold=1):
        super().__init__(capacity)
        # + 1e-9: a float product such as 0.1 * n may land a hair below the integer
        self.small_cap = max(1, int(capacity * small_ratio + 1e-9)) if capacity > 1 else 0
        self.main_cap = capacity - self.small_cap
        self.ghost_cap = self.main_cap
        self.threshold = promote_threshold
        self.small, self.main = deque(), deque()  # left = tail (oldest)
        self.freq = {}  # cached blocks only
        self.ghost = OrderedDict()  # first = oldest

    def access(self, x):
        self.accesses += 1
        freq = self.freq
        f = freq.get(x)
        if f is not None:
            if f < 3:
                freq[x] = f + 1
            return True
        self.misses += 1
        self.insertions += 1
        ghost_hit = x in self.ghost
        if ghost_hit:
            del self.ghost[x]
        while len(freq) >= self.capacity:
            if len(self.main) > self.main_cap or not self.small:
                self._evict_main()
            else:
                self._evict_small()
        (self.main if ghost_hit or self.small_cap == 0 else self.small).append(x)
        freq[x] = 0
        return False

    def _evict_small(self):
        small, freq = self.small, self.freq
        while small:
            t = small.popleft()
            if freq[t] >= self.threshold:
                self.main.append(t)
                freq[t] = 0
            else:
                del freq[t]
                ghost = self.ghost
                ghost[t] = None
                if len(ghost) > self.ghost_cap:
                    ghost.popitem(last=False)
                return

    def _evict_main(self):
        main, freq = self.main, self.freq
        while main:
            t = main.popleft()
            f = freq[t]
            if f > 0:
                main.append(t)
                freq[t] = f - 1
            else:
                del freq[t]
                return


class Lirs(Policy):
    """LIRS, Jiang & Zhang (SIGMETRICS'02), Section 3.3. Stack S holds LIR blocks and HIR
    blocks (resident or not) in recency order, first entry = bottom; list Q holds the resident
    HIR blocks, first entry = front (next victim). HIR blocks get hir_share of the cache
    (at least one block). S is not bounded, as in the paper."""
    name = "lirs"

    def __init__(self, capacity, hir_share=0.01):
        super().__init__(capacity)
        if capacity < 2:
            raise ValueError("lirs: capacity must be >= 2 blocks")
        self.hir_cap = max(1, int(capacity * hir_share + 1e-9))
        self.lir_cap = capacity - self.hir_cap
        self.s = OrderedDict()
        self.q = OrderedDict()
        self.lir = set()

    def access(self, x):
        self.accesses += 1
        s, q, lir = self.s, self.q, self.lir
        if x in lir:
            s.move_to_end(x)
            self._prune()  # x may have been the bottom
            return True
        if x in q:  # resident HIR
            if x in s:
                s.move_to_end(x)
                del q[x]
                lir.add(x)
                self._demote_bottom()
            else:
                s[x] = None
                q.move_to_end(x)
            return True
        self.misses += 1
        self.insertions += 1
        if len(lir) < self.lir_cap:  # warm-up: the first blocks become LIR
            lir.add(x)
            s[x] = None
            return False
        if len(lir) + len(q) >= self.capacity:
            q.popitem(last=False)  # stays in S, if there, as non-resident HIR
        if x in s:  # non-resident HIR with a short reuse distance
            s.move_to_end(x)
            lir.add(x)
            self._demote_bottom()
        else:
            s[x] = None
            q[x] = None
        return False

    def _demote_bottom(self):
        y, _ = self.s.popitem(last=False)  # the bottom of S is always LIR
        self.lir.discard(y)
        self.q[y] = None
        self._prune()

    def _prune(self):
        s, lir = self.s, self.lir
        while s:
            y = next(iter(s))
            if y in lir:
                return
            del s[y]


class Sieve(Policy):
    """SIEVE, Zhang et al. (NSDI'24), Algorithm 1: one FIFO queue, a visited bit per block and
    a hand that walks from the tail (oldest) toward the head, clearing bits, and evicts the
    first unvisited block; retained blocks keep their place and new blocks enter at the head."""
    name = "sieve"

    def __init__(self, capacity):
        super().__init__(capacity)
        self.visited = {}
        self.newer, self.older = {}, {}  # queue links; None past the head / tail
        self.head = self.tail = self.hand = None

    def access(self, x):
        self.accesses += 1
        visited = self.visited
        if x in visited:
            visited[x] = True
            return True
        self.misses += 1
        self.insertions += 1
        if len(visited) >= self.capacity:
            self._evict()
        self.older[x] = self.head
        self.newer[x] = None
        if self.head is None:
            self.tail = x
        else:
            self.newer[self.head] = x
        self.head = x
        visited[x] = False
        return False

    def _evict(self):
        visited, newer = self.visited, self.newer
        o = self.tail if self.hand is None else self.hand
        while visited[o]:
            visited[o] = False
            o = newer[o]
            if o is None:
                o = self.tail
        self.hand = newer[o]
        n, p = newer.pop(o), self.older.pop(o)
        if n is None:
            self.head = p
        else:
            self.older[n] = p
        if p is None:
            self.tail = n
        else:
            newer[p] = n
        del visited[o]


class Opt(Policy):
    """Belady's MIN for demand paging: on a miss with a full cache, evict the cached block whose
    next use is farthest in the future (never = farthest). Needs the whole sequence up front, so
    only run() is supported. A lower bound on the misses of every policy here."""
    name = "opt"

    def run(self, blocks):
        n = len(blocks)
        next_use = [n] * n
        last = {}
        for i in range(n - 1, -1, -1):
            b = blocks[i]
            next_use[i] = last.get(b, n)
            last[b] = i
        cache = {}  # block -> its next use
        heap = []  # (-next use, block); stale entries are skipped
        push, pop = heapq.heappush, heapq.heappop
        misses = 0
        for i in range(n):
            b = blocks[i]
            nu = next_use[i]
            if b not in cache:
                misses += 1
                if len(cache) >= self.capacity:
                    while True:
                        neg, y = pop(heap)
                        if cache.get(y) == -neg:
                            del cache[y]
                            break
            cache[b] = nu
            push(heap, (-nu, b))
        self.accesses += n
        self.misses += misses
        self.insertions += misses
        return self

    def access(self, x):
        raise NotImplementedError("opt needs the whole trace: use run()")


POLICIES = {p.name: p for p in (Lru, Arc, S3Fifo, Lirs, Sieve, Fifo, Opt)}
# The policies the target compares the engine's default with.
TARGET_POLICIES = ("lru", "arc", "s3fifo", "lirs", "sieve")

Result = namedtuple("Result", "policy capacity accesses misses insertions miss_ratio")


def simulate(name, blocks, capacity):
    """Runs policy `name` over `blocks` with `capacity` blocks; returns a Result."""
    p = POLICIES[name](capacity).run(blocks)
    ratio = p.misses / p.accesses if p.accesses else 0.0
    return Result(name, capacity, p.accesses, p.misses, p.insertions, ratio)
