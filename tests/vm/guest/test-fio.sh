# fio 4 KiB random reads at QD32 on /dev/ublkb0 (server in the guest) and /dev/nbd0 (server on
# the host), each beside the same workload on the guest's backing file. Prints figures and
# ratios; asserts only that every run completed without errors (emulated CPUs are slow).
# Env: NBD_ADDR NBD_PORT ublk_prepare ublk_start ublk_ready FIO_BASELINE FIO_RUNTIME.
. /tests/lib.sh

# run_fio NAME FILE DIRECT: runs the workload; the read IOPS go to /tmp/iops-NAME.
run_fio() {
  fio --name="$1" --filename="$2" --direct="$3" --rw=randread --bs=4k --iodepth=32 \
      --ioengine=libaio --size=128m --runtime="${FIO_RUNTIME:-3}" --time_based \
      --minimal > /tmp/fio-"$1".out 2>&1 || { cat /tmp/fio-"$1".out; fail "fio $1"; }
  errors=$(awk -F';' '{print $5}' /tmp/fio-"$1".out)
  [ "$errors" = 0 ] || { cat /tmp/fio-"$1".out; fail "fio $1 reported error '$errors'"; }
  awk -F';' '{print $8}' /tmp/fio-"$1".out > /tmp/iops-"$1"
  [ "$(cat /tmp/iops-"$1")" -gt 0 ] || fail "fio $1: no reads completed"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

ublk_prepare || fail "ublk_prepare"
dd if=/dev/zero of="$FIO_BASELINE" bs=1M count=128 conv=notrunc 2>/dev/null
ublk_start > /tmp/ublk.log 2>&1 &
UBLK_PID=$!
wait_for 200 ublk_ready || { cat /tmp/ublk.log; fail "ublk server"; }
nbd-client "$NBD_ADDR" "$NBD_PORT" /dev/nbd0 -b 4096 -C 1 >/dev/null 2>&1 || fail "nbd-client"
wait_for 50 nonzero /sys/block/nbd0/size || fail "nbd0 has no size"

run_fio file "$FIO_BASELINE" 0
run_fio ublk /dev/ublkb0 1
run_fio nbd /dev/nbd0 1
file=$(cat /tmp/iops-file) ublk=$(cat /tmp/iops-ublk) nbd=$(cat /tmp/iops-nbd)
echo "FIO 4k randread QD32 IOPS: backing file $file, ublk $ublk, nbd $nbd"
echo "FIO ratios to the backing file: ublk $(ratio "$ublk" "$file"), nbd $(ratio "$nbd" "$file")"

nbd-client -d /dev/nbd0 >/dev/null 2>&1
kill -TERM "$UBLK_PID"
wait "$UBLK_PID" || fail "ublk server exit status"
