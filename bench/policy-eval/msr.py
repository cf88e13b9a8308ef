"""MSR Cambridge CSV traces for the policy referee: writing (families.py) and reading into
4 KiB block accesses (evaluate.py). Same layout tiercache-bench's msr importer reads:
"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", Timestamp and ResponseTime in
100 ns ticks, Type Read or Write, Offset and Size in bytes. Standard library only.
"""

BLOCK = 4096
HEADER = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
# A Windows filetime in 2007, like the MSR traces' own timestamps; the importers only use gaps.
START_TICKS = 128166372000000000
STEP_TICKS = 500  # 50 us between requests


class TraceError(ValueError):
    """A malformed trace file (message names the line)."""


def write_msr(path, requests, hostname="synth", disk=0):
    """Writes `requests`, an iterable of (is_write, first_block, n_blocks), one CSV line each,
    with strictly increasing timestamps. Returns the number of requests written."""
    count = 0
    with open(path, "w", encoding="ascii", newline="\n") as out:
        out.write(HEADER + "\n")
        lines = []
        for is_write, block, nblocks in requests:
            ts = START_TICKS + count * STEP_TICKS
            kind = "Write" if is_write else "Read"
            lines.append(f"{ts},{hostname},{disk},{kind},{block * BLOCK},{nblocks * BLOCK},0\n")
            count += 1
            if len(lines) >= 65536:
                out.writelines(lines)
                lines.clear()
        out.writelines(lines)
    return count


def read_msr(path):
    """Returns the requests of an MSR CSV file as (is_write, offset, size) tuples in timestamp
    order (stable, as the C++ importer sorts). An optional header line is skipped."""
    rows = []
    with open(path, "r", encoding="ascii", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            fields = line.split(",")
            if len(fields) != 7:
                raise TraceError(f"{path}:{lineno}: expected 7 fields")
            try:
                ts, offset, size = int(fields[0]), int(fields[4]), int(fields[5])
                int(fields[6])
            except ValueError:
                if lineno == 1:
                    continue  # the header
                raise TraceError(f"{path}:{lineno}: bad number") from None
            kind = fields[3].lower()
            if kind not in ("read", "write"):
                raise TraceError(f"{path}:{lineno}: Type must be Read or Write")
            rows.append((ts, kind == "write", offset, size))
    rows.sort(key=lambda r: r[0])  # stable
    return [(w, off, size) for _, w, off, size in rows]


def block_accesses(requests):
    """Expands requests into 4 KiB block ids: a request touches every block that overlaps
    [offset, offset + size), one access each; reads and writes alike."""
    blocks = []
    extend = blocks.extend
    for _, offset, size in requests:
        if size <= 0:
            continue
        extend(range(offset // BLOCK, (offset + size + BLOCK - 1) // BLOCK))
    return blocks


def trace_blocks(path):
    """Block accesses of one MSR CSV file."""
    return block_accesses(read_msr(path))
