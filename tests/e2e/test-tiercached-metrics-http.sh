#!/usr/bin/env bash
# tiercached --metrics: GET /metrics serves the `stats --prometheus` text over HTTP, parsed by the
# Prometheus Python client's parser, with exact request counts; another path is 404, another
# method 405. Also the structured log: start, mode switch and stop events, one key=value line
# each, on stderr (the start event with the TCP port --listen 127.0.0.1:0 got); --log-level warn
# hides them; a bad --metrics, --listen or --log-level is a usage error.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires nbdinfo --version
requires /usr/bin/python3 -c 'import prometheus_client.parser'

K=4096
cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wt --admission always

for bad in "--metrics nope" "--metrics 127.0.0.1:70000" "--log-level loud" \
  "--listen 127.0.0.1:99999"; do
  rc=0
  # shellcheck disable=SC2086
  "$TIERCACHED" --cache ssd.img --foreground $bad >/dev/null 2>usage.txt || rc=$?
  [ "$rc" = 2 ] || fail "tiercached $bad: exit $rc, expected 2 ($(cat usage.txt))"
done

# A free port: bound then released (the daemon binds it right after).
port="$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
exec 3>&2 2>daemon.log
start_tiercached ssd.img --metrics "$port" --listen 127.0.0.1:0
exec 2>&3 3>&-
# --listen HOST:0: the start event names the port the kernel picked, and NBD answers there.
tcp="$(grep -oE 'event=start .* tcp=127\.0\.0\.1:[0-9]+ ' daemon.log | grep -oE '[0-9]+ $')" ||
  fail "no tcp address in the start event: $(cat daemon.log)"
[ "$(nbdinfo --size "nbd://127.0.0.1:${tcp% }")" = $((256 << 20)) ] || fail "no NBD on port $tcp"
# Sends METHOD TARGET to the metrics port; prints "STATUS CONTENT-TYPE", the body goes to OUT.
http() {  # METHOD TARGET OUT
  /usr/bin/python3 - "$port" "$@" <<'PY'
import http.client, sys
port, method, target, out = sys.argv[1:5]
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
conn.request(method, target, body="x" if method == "POST" else None)
reply = conn.getresponse()
open(out, "wb").write(reply.read())
print(reply.status, reply.getheader("Content-Type"))
PY
}

# Four reads (two cold, then the same again: hits once the fills are done) and one write.
nbdsh -u "$TC_URI" -c "
for offset in [0, $((10 * K))]:
    h.pread($K, offset)
h.pwrite(bytearray($K), $((20 * K)))
" || fail "nbdsh"
nbdsh -u "$TC_URI" -c "
for offset in [0, $((10 * K))]:
    h.pread($K, offset)
" || fail "nbdsh"

http GET /metrics metrics.txt >head.txt || fail "GET /metrics"
[ "$(cat head.txt)" = "200 text/plain; version=0.0.4; charset=utf-8" ] ||
  fail "GET /metrics: $(cat head.txt)"
/usr/bin/python3 - metrics.txt >parsed.txt <<'PY' || fail "parser rejected: $(cat metrics.txt)"
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in family.samples:
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
        print(f"{s.name}{{{labels}}} {int(s.value)}")
PY
expect_sample() {  # SAMPLE VALUE
  grep -qxF "$1 $2" parsed.txt || fail "no '$1 $2' in: $(cat parsed.txt)"
}
C='cache="ssd.img"'
value() { awk -v sample="$1" '$1 == sample { print $2 }' parsed.txt; }
reads() { value "tiercache_requests_total{$C,op=\"read\",result=\"$1\"}"; }
hits="$(reads hit)"
misses=$(($(reads miss) + $(reads partial_hit) + $(reads bypass)))
[ $((hits + misses)) = 4 ] || fail "reads: $hits hits + $misses misses, expected 4"
expect_sample "tiercache_latency_seconds_count{$C,path=\"hit\"}" "$hits"
expect_sample "tiercache_latency_seconds_count{$C,path=\"miss\"}" "$misses"
expect_sample "tiercache_latency_seconds_count{$C,path=\"write\"}" 1
expect_sample "tiercache_latency_seconds_bucket{$C,le=\"+Inf\",path=\"write\"}" 1
expect_sample "tiercache_health{$C,state=\"ok\"}" 1
# The same text as the CLI's, but for what moved in between (none: no I/O since).
tc_cli stats --prometheus >cli.txt || fail "tiercache stats --prometheus"
diff <(grep -v oldest_dirty_age cli.txt) <(grep -v oldest_dirty_age metrics.txt) >/dev/null ||
  fail "HTTP and CLI texts differ: $(diff cli.txt metrics.txt)"

code() { http "$1" "$2" body.txt | cut -d' ' -f1; }
[ "$(code GET /)" = 404 ] || fail "GET / is not 404"
[ "$(code GET /other)" = 404 ] || fail "GET /other is not 404"
[ "$(code POST /metrics)" = 405 ] || fail "POST /metrics is not 405"
[ "$(code DELETE /metrics)" = 405 ] || fail "DELETE /metrics is not 405"
[ "$(code GET '/metrics?name[]=x')" = 200 ] || fail "GET /metrics?query is not 200"

tc_cli mode wb >/dev/null || fail "mode wb"
stop_tiercached

# One key=value event per line: start (with the cache and core), the mode switch, a clean stop.
ts='ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z'
grep -qE "^$ts level=info event=start cache=ssd.img core=\\S*hdd.img .*metrics=127.0.0.1:$port " \
  daemon.log || fail "no start event: $(cat daemon.log)"
grep -qE "^$ts level=info event=mode_switch from=wt to=wb drain=false$" daemon.log ||
  fail "no mode_switch event: $(cat daemon.log)"
grep -qE "^$ts level=info event=stop cache=ssd.img clean=true$" daemon.log ||
  fail "no stop event: $(cat daemon.log)"

# --log-level warn: no info events.
exec 3>&2 2>quiet.log
start_tiercached ssd.img --log-level warn
exec 2>&3 3>&-
stop_tiercached
if grep -q 'level=info' quiet.log; then fail "--log-level warn printed: $(cat quiet.log)"; fi
