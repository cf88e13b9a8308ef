#!/usr/bin/env bash
# tiercached --config FILE: a daemon started from a config file alone serves its volume; a flag
# on the command line overrides the file's value; `tiercache config check` says "FILE: ok" for a
# good file and, for a broken one, every problem as FILE:LINE: why (exit 1); tiercached refuses
# to start on the broken file with the same lines (exit 2).
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdinfo --version
requires jq --version
requires test -x "$TIERCACHED"

cd "$TEST_TMP"
SIZE=$((256 << 20))
make_cache ssd.img 64M hdd.img "$SIZE" --mode wt --seq-cutoff 1M

# --- a daemon from the file alone, a flag over it ------------------------------------------
cat >data.conf <<CONF
# /etc/tiercache/data.conf
cache = "$TEST_TMP/ssd.img"
socket = "$TEST_TMP/file.sock"
control = "$TEST_TMP/data.ctl"
pidfile = "$TEST_TMP/data.pid"
foreground = true
threads = 2
seq-cutoff = "2M"
socket-io = "epoll"
journal-steps = "7/8,15/16"
CONF
"$TIERCACHE_CLI" config check data.conf >check.out || fail "config check on a good file"
[ "$(cat check.out)" = "data.conf: ok" ] || fail "config check said: $(cat check.out)"

"$TIERCACHED" --config data.conf --socket "$TEST_TMP/flag.sock" &
TC_PID=$!
TC_CONTROL="$TEST_TMP/data.ctl"
for ((i = 0; i < 300; i++)); do
  [ "$(cat data.pid 2>/dev/null)" != "$TC_PID" ] || break
  kill -0 "$TC_PID" 2>/dev/null || { TC_PID=""; fail "tiercached --config exited during startup"; }
  sleep 0.1
done
[ "$(cat data.pid 2>/dev/null)" = "$TC_PID" ] || fail "tiercached --config did not become ready"
[ "$(nbdinfo --size "nbd+unix:///?socket=$TEST_TMP/flag.sock")" = "$SIZE" ] ||
    fail "the volume is not served on the socket the flag named"
[ ! -e file.sock ] || fail "the file's socket is used although a flag overrode it"
status="$(tc_cli status --json)" || fail "tiercache status --json"
# The file's seq-cutoff overrides the recorded 1M.
[ "$(jq .status.policies.sequential.read_cutoff_bytes <<<"$status")" = $((2 << 20)) ] ||
    fail "seq-cutoff from the file not in use: $status"
[ "$(jq -r .status.export_io <<<"$status")" = epoll ] ||
    fail "socket-io from the file not in use: $status"
stop_tiercached
[ ! -e data.pid ] || fail "pidfile left behind"

# --- a broken file: line-numbered errors, from both the checker and the daemon -------------
cat >broken.conf <<CONF
cache = "$TEST_TMP/ssd.img"
# tiercached options, misspelled and mistyped
thread = 4
poll-us = "fast"
seq-cutoff = "4Q"
journal-steps = "15/16,7/8"
CONF
expected="broken.conf:3: unknown key 'thread' (did you mean 'threads'?)
broken.conf:4: poll-us: expected an integer, not a string
broken.conf:5: seq-cutoff: invalid size '4Q': unknown suffix 'Q' (use K, M, G or T; powers of 1024)
broken.conf:6: journal-steps: one_step_above 15/16 and four_steps_above 7/8 must satisfy one_step_above <= four_steps_above < 1"
rc=0
out="$("$TIERCACHE_CLI" config check broken.conf 2>&1)" || rc=$?
[ "$rc" = 1 ] || fail "config check on a broken file: exit $rc, expected 1"
[ "$out" = "$expected" ] || fail "config check said:
$out
expected:
$expected"

rc=0
out="$("$TIERCACHED" --config broken.conf 2>&1)" || rc=$?
[ "$rc" = 2 ] || fail "tiercached on a broken file: exit $rc, expected 2"
[ "$out" = "$(sed 's/^/tiercached: /' <<<"$expected")
Run tiercached --help for usage." ] || fail "tiercached on a broken file said: $out"

# A TOML syntax error names its line too.
printf 'cache = "%s"\n\nthreads = \n' "$TEST_TMP/ssd.img" >syntax.conf
rc=0
out="$("$TIERCACHE_CLI" config check syntax.conf 2>&1)" || rc=$?
[ "$rc" = 1 ] || fail "config check on a syntax error: exit $rc, expected 1"
[ "$out" = "syntax.conf:3: Error while parsing key-value pair: expected value, saw '\\n'" ] ||
    fail "syntax error without its line: $out"
echo "PASS: $0"
