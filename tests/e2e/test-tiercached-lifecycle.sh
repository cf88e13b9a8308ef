#!/usr/bin/env bash
# The daemon's life cycle: a detached start returns once it serves and lets go of the caller's
# stderr; a second daemon on the same cache is refused (by any path to it) and the first keeps
# serving, as it does through SIGHUP,
# SIGUSR1 and SIGUSR2; SIGTERM with writes in flight exits 0, keeps every acknowledged write and
# marks the cache clean; the restart is warm (re-reads are exact hits); a wrong core is refused;
# `tiercache create` refuses a cache without --force and a served cache even with --force;
# kill -9 in wb keeps everything written before a FLUSH; two caches whose files share a name
# never reach each other's daemon; a cache file deleted while served has its dirty data written
# back within seconds, and at the stop.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires nbdinfo --version
requires jq --version

cd "$TEST_TMP"
SIZE=$((256 << 20))
make_cache ssd.img 64M hdd.img "$SIZE" --mode wt
TC_CONTROL="$TIERCACHE_RUN_DIR/ssd.img.ctl"
DEFAULT_URI="nbd+unix:///?socket=$TIERCACHE_RUN_DIR/ssd.img.sock"

# Waits for process $1 (not our child) to be gone.
wait_gone() {
  local i
  for ((i = 0; i < SHUTDOWN_TIMEOUT * 10; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
    sleep 0.1
  done
  fail "process $1 still running"
}

# --- detached start, second daemon refused ------------------------------------------------
# Captured through a pipe: the start returns (its start event printed) and lets go of stderr, or
# the capture would wait for the daemon to exit (timeout: 124).
rc=0
started="$(timeout 60 sh -c '"$0" --cache ssd.img --pidfile daemon.pid 2>&1 | cat' \
  "$TIERCACHED")" || rc=$?
pid="$(cat daemon.pid 2>/dev/null || true)"
[ -n "$pid" ] && cleanup_fn "kill $pid 2>/dev/null || true"
[ "$rc" = 0 ] || fail "detached start through a pipe: exit $rc (stderr kept open?)"
grep -q "event=start .*pid=$pid" <<<"$started" || fail "no start event on stderr: $started"
[ "$(readlink "/proc/$pid/fd/2")" = /dev/null ] || fail "the daemon still holds the caller's stderr"
# No waiting: the start returned once both sockets listen.
[ "$(nbdinfo --size "$DEFAULT_URI")" = "$SIZE" ] || fail "not serving after a detached start"
[ "$(tc_cli status --json | jq -r .status.pid)" = "$pid" ] || fail "status pid"
# The default: the sockets on each loop's io_uring (this machine allows io_uring).
[ "$(tc_cli status --json | jq -r .status.export_io)" = io_uring ] || fail "sockets not on the ring"

expect_refused "second daemon (foreground)" "in use" "$TIERCACHED" --cache ssd.img --foreground
expect_refused "second daemon (detached)" "in use" "$TIERCACHED" --cache ssd.img
ln -s ssd.img link.img
expect_refused "second daemon (other path and sockets)" "in use" "$TIERCACHED" \
    --cache "$TEST_TMP/link.img" --socket "$TEST_TMP/b.sock" --control "$TEST_TMP/b.ctl" --foreground
[ ! -e "$TEST_TMP/b.sock" ] && [ ! -e "$TEST_TMP/b.ctl" ] || fail "refused daemon left sockets"
# The first one still serves, on its own sockets.
[ "$(nbdinfo --size "$DEFAULT_URI")" = "$SIZE" ] || fail "first daemon stopped serving"
[ "$(tc_cli status --json | jq -r .status.pid)" = "$pid" ] || fail "status pid after refusals"
expect_refused "create --force on a served cache" "in use" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force
# Signals other daemons take to reopen logs (and a terminal's hangup) do not stop it.
kill -HUP "$pid" && kill -USR1 "$pid" && kill -USR2 "$pid" || fail "cannot signal $pid"
[ "$(nbdinfo --size "$DEFAULT_URI")" = "$SIZE" ] || fail "stopped serving after SIGHUP/USR1/USR2"
[ "$(tc_cli status --json | jq -r .status.pid)" = "$pid" ] || fail "status pid after the signals"

tc_cli stop >/dev/null || fail "tiercache stop"
wait_gone "$pid"
[ ! -e daemon.pid ] || fail "pidfile left behind"
[ ! -e "$TIERCACHE_RUN_DIR/ssd.img.sock" ] || fail "NBD socket left behind"
rc=0
tc_cli status >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "tiercache status without a daemon: exit $rc, expected 3"

# --- SIGTERM with writes in flight; warm restart ------------------------------------------
start_tiercached ssd.img
# 64 lines of random data, each read once; a second read of each is an exact hit.
head -c $((4 << 20)) /dev/urandom >warm.bin
nbdsh -u "$TC_URI" -c "
data = open('warm.bin', 'rb').read()
h.pwrite(data, 0)
for i in range(64):
    assert h.pread(65536, i * 65536) == data[i * 65536:(i + 1) * 65536]
"
reread_warm() {
  nbdsh -u "$TC_URI" -c "
data = open('warm.bin', 'rb').read()
for i in range(64):
    assert h.pread(65536, i * 65536) == data[i * 65536:(i + 1) * 65536], 'line %d' % i
"
}
hits0="$(tc_stat read_hits)"
misses0="$(tc_stat read_misses)"
reread_warm
[ "$(($(tc_stat read_hits) - hits0))" = 64 ] || fail "re-read before restart: not 64 hits"
[ "$(tc_stat read_misses)" = "$misses0" ] || fail "re-read before restart: misses"

python3 - "$TC_SOCKET" "$TC_PID" acked <<'EOF'
import nbd, sys
from nbd_helpers import sigterm_after_first_ack
sock, pid, acked_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
CHUNK, BASE = 256 * 1024, 16 << 20
h = nbd.NBD()
h.connect_unix(sock)
cookies = {h.aio_pwrite(bytes([i + 1]) * CHUNK, BASE + i * CHUNK): i for i in range(64)}
acked = sigterm_after_first_ack(h, cookies, pid)  # the rest still under way
open(acked_path, 'w').write(' '.join(map(str, acked)))
print('SIGTERM after the first of %d acknowledged writes (of 64)' % len(acked))
EOF
wait_exit_status "$TC_PID" || fail "tiercached still running after SIGTERM"
TC_PID=""
[ "$EXIT_STATUS" = 0 ] || fail "tiercached exited with status $EXIT_STATUS after SIGTERM"
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check: $check"
[ "$(jq -r '.ok, .clean_shutdown' <<<"$check" | tr '\n' ' ')" = "true true " ] ||
  fail "not marked clean after SIGTERM: $check"

start_tiercached ssd.img
[ "$(tc_cli status --json | jq -r .status.clean_shutdown_at_open)" = true ] || fail "unclean at open"
[ "$(tc_stat read_hits)" = 0 ] || fail "counters not fresh"
reread_warm
[ "$(tc_stat read_hits)" = 64 ] || fail "restart is not warm: $(tc_cli stats --json)"
[ "$(tc_stat read_misses)" = 0 ] || fail "misses after a warm restart: $(tc_cli stats --json)"
[ "$(tc_stat bytes_read_core)" = 0 ] || fail "core reads after a warm restart"
nbdsh -u "$TC_URI" -c "
CHUNK, BASE = 256 * 1024, 16 << 20
for i in map(int, open('acked').read().split()):
    assert h.pread(CHUNK, BASE + i * CHUNK) == bytes([i + 1]) * CHUNK, 'write %d lost' % i
"
kill -INT "$TC_PID"
wait_exit_status "$TC_PID" || fail "tiercached still running after SIGINT"
TC_PID=""
[ "$EXIT_STATUS" = 0 ] || fail "tiercached exited with status $EXIT_STATUS after SIGINT"

# --- wrong core ---------------------------------------------------------------------------
truncate -s 128M other.img
expect_refused "a smaller core" "other.img.*created for" \
    "$TIERCACHED" --cache ssd.img --core other.img --foreground
expect_refused "a smaller core (detached)" "other.img.*created for" \
    "$TIERCACHED" --cache ssd.img --core other.img
truncate -s "$SIZE" same-size.img
expect_refused "another core of the same size" "same-size.img.*created for.*hdd.img" \
    "$TIERCACHED" --cache ssd.img --core same-size.img --foreground
[ -z "$(ls -A "$TIERCACHE_RUN_DIR")" ] || fail "refused daemon left files: $(ls "$TIERCACHE_RUN_DIR")"

# --- create refuses an existing cache -------------------------------------------------------
cp ssd.img ssd.before
expect_refused "create over a cache" "already holds a tiercache.*--force" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img
expect_refused "create over a cache, other core" "already holds a tiercache" \
    "$TIERCACHE_CLI" create --cache ssd.img --core other.img --mode wb
cmp ssd.before ssd.img || fail "refused create changed the SSD"
rm ssd.before

# --- kill -9 in wb after a FLUSH ------------------------------------------------------------
start_tiercached ssd.img
tc_cli mode wb >/dev/null
# A small write's FLUSH is one record-journal round (docs/on-disk-format.md "Record journal").
nbdsh -u "$TC_URI" -c "h.pwrite(bytes([7]) * 4096, 80 << 20); h.flush()"
md="$(tc_cli status --json | jq -c .status.metadata)"
[ "$(jq -r '.journal_rounds, .steps, .checkpoints' <<<"$md" | tr '\n' ' ')" = "1 0 0 " ] ||
  fail "a FLUSH after a clean open is not one journal round: $md"
# Foreground reads every 50 ms keep the idle cleaner away, so the data is still dirty (only on
# the SSD) when the daemon is killed.
start_trickle "$TC_URI"
head -c $((8 << 20)) /dev/urandom >flushed.bin
head -c $((4 << 20)) /dev/urandom >after.bin
nbdsh -u "$TC_URI" -c "
h.pwrite(open('flushed.bin', 'rb').read(), 64 << 20)
h.flush()
h.pwrite(open('after.bin', 'rb').read(), 72 << 20)  # not flushed: old or new, per sector
"
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "wb: no dirty lines before kill -9"
kill -KILL "$TC_PID"
wait_exit_status "$TC_PID" || true
TC_PID=""
wait "$TRICKLE_PID" 2>/dev/null || true
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check after kill: $check"
[ "$(jq -r .clean_shutdown <<<"$check")" = false ] || fail "marked clean after kill -9: $check"
[ "$(jq -r .lines_dirty <<<"$check")" -gt 0 ] || fail "no dirty lines after kill -9: $check"

start_tiercached ssd.img
[ "$(tc_cli status --json | jq -r .status.clean_shutdown_at_open)" = false ] ||
  fail "restart after kill -9 did not report an unclean shutdown"
nbdsh -u "$TC_URI" -c "
assert h.pread(8 << 20, 64 << 20) == open('flushed.bin', 'rb').read(), 'flushed data lost'
after = open('after.bin', 'rb').read()
got = h.pread(4 << 20, 72 << 20)
for s in range(0, 4 << 20, 4096):
    assert got[s:s + 4096] in (after[s:s + 4096], bytes(4096)), 'sector %d torn' % (s // 4096)
"
tc_cli flush >/dev/null || fail "tiercache flush after restart"
stop_tiercached
cmp <(tail -c +$(((64 << 20) + 1)) hdd.img | head -c $((8 << 20))) flushed.bin ||
  fail "HDD does not hold the flushed data after tiercache flush"

# --- create --force over a cache a daemon serves on other sockets ----------------------------
# The refusal must not depend on where the daemon's sockets are.
"$TIERCACHED" --cache ssd.img --socket "$TEST_TMP/c.sock" --control "$TEST_TMP/c.ctl" \
    --pidfile daemon.pid || fail "detached start on custom sockets"
pid="$(cat daemon.pid)"
cleanup_fn "kill $pid 2>/dev/null || true"
uuid="$("$TIERCACHE_CLI" check --cache ssd.img --json | jq -r .uuid)"
rc=0
"$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force >create.out 2>&1 || rc=$?
"$TIERCACHE_CLI" stop --control "$TEST_TMP/c.ctl" >/dev/null || fail "stop on custom sockets"
wait_gone "$pid"
[ "$rc" != 0 ] || fail "create --force reformatted a cache served on other sockets: $(cat create.out)"
[ "$("$TIERCACHE_CLI" check --cache ssd.img --json | jq -r .uuid)" = "$uuid" ] || fail "uuid changed"

# With the daemon gone, --force does reformat: a new, empty cache.
"$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force >/dev/null || fail "create --force"
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)"
[ "$(jq -r .uuid <<<"$check")" != "$uuid" ] || fail "create --force kept the uuid"
[ "$(jq -r .lines_used <<<"$check")" = 0 ] || fail "create --force left lines: $check"

# --- two caches whose files share a name ------------------------------------------------------
# They share the default sockets: the second daemon is refused naming the way out, and a verb
# given the other cache never reaches the first (QA, 2026-12-07: `stop --cache` of an idle cache
# stopped the daemon of another one, whose volume may be mounted).
mkdir other
make_cache other/ssd.img 16M other/hdd.img 32M
start_tiercached ssd.img
way_out="the default control socket of every cache named ssd.img; give this one its own"
way_out+=" with --control PATH and --socket PATH"
expect_refused "a second cache of the same name on the default sockets" "$way_out" \
    "$TIERCACHED" --cache other/ssd.img --foreground
rc=0
"$TIERCACHE_CLI" stop --cache other/ssd.img >stop.out 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "stop --cache of an idle cache of the same name: exit $rc: $(cat stop.out)"
grep -q "no tiercached serves other/ssd.img: the one at $TC_CONTROL serves $TEST_TMP/ssd.img" \
    stop.out || fail "stop --cache of the other cache: $(cat stop.out)"
[ "$(tc_cli status --json | jq -r .status.pid)" = "$TC_PID" ] || fail "the served cache stopped"
"$TIERCACHE_CLI" status --cache ssd.img >/dev/null || fail "status --cache of the served cache"
"$TIERCACHE_CLI" create --cache other/ssd.img --core other/hdd.img --force >/dev/null ||
  fail "create --force on the idle cache of the same name (refused as in use?)"
stop_tiercached

# --- the cache file deleted while served -----------------------------------------------------
# Its data goes when the daemon closes it: the stop writes the dirty data back first (QA,
# 2026-12-07: `rm ssd.img; tiercache stop` lost every acknowledged write-back write).
make_cache gone.img 16M gone-hdd.img 32M --mode wb
start_tiercached gone.img --cleaning nop
head -c $((2 << 20)) /dev/urandom >gone.bin
nbdsh -u "$TC_URI" -c "h.pwrite(open('gone.bin', 'rb').read(), 1 << 20); h.flush()"
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "wb with cleaning nop: no dirty lines"
rm gone.img
stop_tiercached
cmp <(tail -c +$(((1 << 20) + 1)) gone-hdd.img | head -c $((2 << 20))) gone.bin ||
  fail "the dirty data of a deleted cache file did not reach the HDD at the stop"
# And without a stop: within seconds the daemon sees the file gone, switches to wt and writes the
# dirty data back, so a kill -9 afterwards loses nothing.
make_cache gone.img 16M gone-hdd.img 32M --mode wb
start_tiercached gone.img --cleaning nop
nbdsh -u "$TC_URI" -c "h.pwrite(open('gone.bin', 'rb').read(), 4 << 20); h.flush()"
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "wb with cleaning nop: no dirty lines (second cache)"
rm gone.img
drained() {
  [ "$(tc_cli status --json | jq -r '.status.mode, .status.lines_dirty' | xargs)" = "wt 0" ]
}
for ((i = 0; i < 600; i++)); do
  drained && break
  sleep 0.1
done
[ "$(tc_cli status --json | jq -r .status.mode)" = wt ] || fail "a deleted cache file stays in wb"
[ "$(tc_stat lines_dirty)" = 0 ] || fail "a deleted cache file keeps dirty data"
kill -KILL "$TC_PID"
wait_exit_status "$TC_PID" || true
TC_PID=""
cmp <(tail -c +$(((4 << 20) + 1)) gone-hdd.img | head -c $((2 << 20))) gone.bin ||
  fail "the dirty data of a deleted cache file did not reach the HDD before the kill"
echo "PASS: $0"
