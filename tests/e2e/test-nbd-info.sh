#!/usr/bin/env bash
# nbdinfo against nbd_test_server: size, capabilities, block sizes, export list, and that
# the default export "" and the configured name both work while an unknown name fails.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdinfo --version
requires jq --version

start_nbd_test_server --memory 96M --export-name disk0 --description "test disk"

json="$(nbdinfo --json "$NBD_URI")"
check() {
  local got
  got="$(jq -r ".exports[0].$1" <<<"$json")"
  [ "$got" = "$2" ] || fail "$1: expected $2, got $got"
}
check '"export-size"' 100663296
check can_flush true
check can_fua true
check can_trim true
check can_zero true
check can_fast_zero true
check can_cache true
check can_df true
check can_multi_conn true
check is_read_only false
check block_size_minimum 512
check block_size_preferred 4096
check block_size_maximum 33554432
check 'contexts[0]' base:allocation
[ "$(jq -r .protocol <<<"$json")" = newstyle-fixed ] || fail "protocol"
[ "$(jq -r .structured <<<"$json")" = true ] || fail "structured replies"

# The configured name is an alias of the default export.
named="$(nbdinfo --json "nbd+unix:///disk0?socket=$NBD_SOCKET")"
[ "$(jq -r '.exports[0]."export-size"' <<<"$named")" = 100663296 ] || fail "named export"
[ "$(jq -r '.exports[0].description' <<<"$named")" = "test disk" ] || fail "description"

# NBD_OPT_LIST shows the one export with its description.
list="$(nbdinfo --list --json "$NBD_URI")"
[ "$(jq -r '.exports | length' <<<"$list")" = 1 ] || fail "list length"
[ "$(jq -r '.exports[0]."export-name"' <<<"$list")" = disk0 ] || fail "list name"

# An unknown export is refused (NBD_REP_ERR_UNKNOWN), and the server keeps serving.
if nbdinfo "nbd+unix:///nosuch?socket=$NBD_SOCKET" >"$TEST_TMP/out" 2>&1; then
  fail "unknown export accepted"
fi
grep -qi "unknown\|not found\|export" "$TEST_TMP/out" || { cat "$TEST_TMP/out"; fail "error text"; }
nbdinfo --size "$NBD_URI" | grep -qx 100663296 || fail "server stopped serving"

# A 4096-byte block device advertises 4096 as its minimum; TCP serves the same export.
stop_server "$SERVER_PID"
start_nbd_test_server --memory 16M --block-size 4096 --tcp 127.0.0.1:0 >"$TEST_TMP/server.out"
[ "$(nbdinfo --json "$NBD_URI" | jq -r '.exports[0].block_size_minimum')" = 4096 ] ||
  fail "4K minimum block size"
port="$(sed -n 's/.*listening on TCP port \([0-9]*\)/\1/p' "$TEST_TMP/server.out")"
[ -n "$port" ] || fail "no TCP port reported"
[ "$(nbdinfo --size "nbd://127.0.0.1:$port")" = 16777216 ] || fail "TCP export size"
echo "PASS: $0"
