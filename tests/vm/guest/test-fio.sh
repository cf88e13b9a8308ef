# fio 4 KiB random reads at queue depth FIO_IODEPTH (default 32) on /dev/ublkb0 (server in the
# guest) and /dev/nbd0 (server on the host), each beside the same workload on the guest's
# backing file. Prints figures and ratios, and for the ublk server its context switches per read
# (all threads, from /proc) and, with VM_STRACE=1, its system calls per read (strace -c -f, in a
# second run: tracing slows it), and with tiercached its SSD and HDD operations that went
# READ_FIXED/WRITE_FIXED per read, and its CPU time per read (/proc/PID/stat). Asserts only that every run completed without errors and that
# the server reports the ring UBLK_RING and its registrations (emulated CPUs are slow).
# Env: NBD_ADDR NBD_PORT ublk_prepare ublk_start ublk_ready FIO_BASELINE FIO_RUNTIME
# FIO_IODEPTH VM_STRACE UBLK_RING.
. /tests/lib.sh
QD=${FIO_IODEPTH:-32}

# run_fio NAME FILE DIRECT: runs the workload; the read IOPS go to /tmp/iops-NAME, the reads
# completed to /tmp/reads-NAME.
run_fio() {
  fio --name="$1" --filename="$2" --direct="$3" --rw=randread --bs=4k --iodepth="$QD" \
      --ioengine=libaio --size=128m --runtime="${FIO_RUNTIME:-3}" --time_based \
      --minimal > /tmp/fio-"$1".out 2>&1 || { cat /tmp/fio-"$1".out; fail "fio $1"; }
  errors=$(awk -F';' '{print $5}' /tmp/fio-"$1".out)
  [ "$errors" = 0 ] || { cat /tmp/fio-"$1".out; fail "fio $1 reported error '$errors'"; }
  awk -F';' '{print $8}' /tmp/fio-"$1".out > /tmp/iops-"$1"
  awk -F';' '{print int($6 / 4)}' /tmp/fio-"$1".out > /tmp/reads-"$1"
  [ "$(cat /tmp/iops-"$1")" -gt 0 ] || fail "fio $1: no reads completed"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# Voluntary + involuntary context switches of every thread of process $1.
ctxsw() {
  cat /proc/"$1"/task/*/status 2>/dev/null |
    awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# utime + stime of process $1 (every thread), in clock ticks (100 a second).
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }

# fixed_ops: the server's reads and writes into registered buffers so far (tiercached only).
fixed_ops() { if type ublk_fixed_buffers >/dev/null 2>&1; then ublk_fixed_buffers; else echo 0; fi; }

ublk_prepare || fail "ublk_prepare"
dd if=/dev/zero of="$FIO_BASELINE" bs=1M count=128 conv=notrunc 2>/dev/null
ublk_start > /tmp/ublk.log 2>&1 &
UBLK_PID=$!
wait_for 200 ublk_ready || { cat /tmp/ublk.log; fail "ublk server"; }
check_ring /tmp/ublk.log
nbd-client "$NBD_ADDR" "$NBD_PORT" /dev/nbd0 -b 4096 -C 1 >/dev/null 2>&1 || fail "nbd-client"
wait_for 50 nonzero /sys/block/nbd0/size || fail "nbd0 has no size"

run_fio file "$FIO_BASELINE" 0
fx0=$(fixed_ops)  # (a control request: before the counting starts)
cs0=$(ctxsw "$UBLK_PID")
cpu0=$(cpu_ticks "$UBLK_PID")
run_fio ublk /dev/ublkb0 1
cpu1=$(cpu_ticks "$UBLK_PID")
cs1=$(ctxsw "$UBLK_PID")
fx1=$(fixed_ops)
run_fio nbd /dev/nbd0 1
file=$(cat /tmp/iops-file) ublk=$(cat /tmp/iops-ublk) nbd=$(cat /tmp/iops-nbd)
echo "FIO 4k randread QD$QD IOPS: backing file $file, ublk $ublk, nbd $nbd (ublk ring=$UBLK_RING)"
echo "FIO ratios to the backing file: ublk $(ratio "$ublk" "$file"), nbd $(ratio "$nbd" "$file")"
echo "FIO ublk ring=$UBLK_RING QD$QD: context switches per read $(ratio $((cs1 - cs0)) "$(cat /tmp/reads-ublk)") ($((cs1 - cs0)) over $(cat /tmp/reads-ublk) reads)"
echo "FIO ublk ring=$UBLK_RING QD$QD: server CPU per read $(ratio $(((cpu1 - cpu0) * 10000)) "$(cat /tmp/reads-ublk)") us ($((cpu1 - cpu0)) ticks, fixed_file=$UBLK_FIXED_FILE fixed_buffers=$UBLK_FIXED_BUFFERS)"
type ublk_fixed_buffers >/dev/null 2>&1 &&
  echo "FIO ublk ring=$UBLK_RING QD$QD: fixed SSD/HDD operations per read $(ratio $((fx1 - fx0)) "$(cat /tmp/reads-ublk)")"

if [ "${VM_STRACE:-0}" = 1 ]; then
  strace -c -f -p "$UBLK_PID" -o /tmp/strace.out 2>/tmp/strace.err &
  STRACE_PID=$!
  wait_for 50 grep -q "Process $UBLK_PID attached" /tmp/strace.err || { cat /tmp/strace.err; fail "strace"; }
  run_fio ublk-strace /dev/ublkb0 1
  kill -INT "$STRACE_PID"
  wait "$STRACE_PID"
  calls=$(awk '$NF == "total" { print $4 }' /tmp/strace.out)
  echo "FIO ublk ring=$UBLK_RING QD$QD: system calls per read $(ratio "$calls" "$(cat /tmp/reads-ublk-strace)") ($calls over $(cat /tmp/reads-ublk-strace) reads, strace -c -f; $(cat /tmp/iops-ublk-strace) IOPS traced)"
  awk 'NR > 2 && $NF != "total" && $1 !~ /^-/ { print "FIO   strace: " $0 }' /tmp/strace.out | head -6
fi

nbd-client -d /dev/nbd0 >/dev/null 2>&1
kill -TERM "$UBLK_PID"
wait "$UBLK_PID" || fail "ublk server exit status"
# ublk_test_server's totals (its reads that went fixed: fixed_buffers=).
grep STOPPED /tmp/ublk.log | sed 's/^/FIO ublk server: /' || true
