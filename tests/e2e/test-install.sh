#!/usr/bin/env bash
# The install rules (cmake/install.cmake) into a fresh prefix, from an already built tree: exactly
# the expected files; the installed binaries run; both man pages render without warnings; the
# systemd units point into the prefix and pass `systemd-analyze verify`; `cpack -G DEB` makes a
# .deb with the same files under /usr, units pointing to /usr/sbin, and library dependencies.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires cmake --version
requires systemd-analyze --version
requires man --version
requires dpkg-deb --version
for t in tools/tiercache daemon/tiercached/tiercached bench/runner/tiercache-bench \
         man/tiercache.1.gz man/tiercached.8.gz; do
  [ -e "$TIERCACHE_BUILD_DIR/$t" ] || fail "$TIERCACHE_BUILD_DIR/$t is not built (build all targets)"
done

expected_files="bin/tiercache
bin/tiercache-bench
lib/systemd/system/tiercache-nbd@.service
lib/systemd/system/tiercached@.service
sbin/tiercached
share/doc/tiercache/operations.md
share/man/man1/tiercache.1.gz
share/man/man8/tiercached.8.gz"

cd "$TEST_TMP"
prefix="$TEST_TMP/prefix"
cmake --install "$TIERCACHE_BUILD_DIR" --prefix "$prefix" >install.log 2>&1 ||
  fail "cmake --install: $(cat install.log)"
installed="$(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | sort)"
[ "$installed" = "$expected_files" ] || fail "installed files:
$installed
expected:
$expected_files"

"$prefix/bin/tiercache" --help >/dev/null || fail "installed tiercache --help"
"$prefix/sbin/tiercached" --help >/dev/null || fail "installed tiercached --help"
"$prefix/bin/tiercache-bench" --help >/dev/null || fail "installed tiercache-bench --help"
# `tiercache bench` runs the tiercache-bench installed beside it.
# (Outputs are read whole before grep -q, which exits at the first match: a writer still writing
# would die of SIGPIPE, and pipefail would call that a failure.)
list="$("$prefix/bin/tiercache" bench --list)" || fail "installed tiercache bench --list"
grep -q "^boot" <<<"$list" || fail "installed tiercache bench --list: no boot workload: $list"

# The pages render with groff's warnings on (-ww), and say what their NAME section says.
check_man() {  # FILE NAME-LINE
  local out
  out="$(MANWIDTH=100 man --warnings -l "$1" 2>man.err)" || fail "man -l $1: $(cat man.err)"
  [ ! -s man.err ] || fail "man -l $1 warns: $(cat man.err)"
  grep -qx "NAME" <<<"$out" || fail "no NAME section in $1: $out"
  grep -qxF "       $2" <<<"$out" || fail "no '$2' in the NAME section of $1: $out"
  # mandb's parser finds the same NAME line (for whatis and apropos).
  [ "$(lexgrog "$1")" = "$1: \"$2\"" ] || fail "lexgrog $1: $(lexgrog "$1" 2>&1)"
}
check_man "$prefix/share/man/man1/tiercache.1.gz" \
  "tiercache - create, inspect and control SSD caches in front of HDDs"
check_man "$prefix/share/man/man8/tiercached.8.gz" \
  "tiercached - the tiercache daemon: serves an SSD-cached HDD as one block device"
page="$(zcat "$prefix/share/man/man8/tiercached.8.gz")" || fail "zcat tiercached.8.gz"
grep -q '^\.TH "TIERCACHED" "8"' <<<"$page" || fail "tiercached.8.gz has no .TH TIERCACHED 8 line"
# gzip -n: no name or time stamp in the header (bytes 3-7, flags and mtime: all zero).
[ "$(od -An -tx1 -j3 -N5 "$prefix/share/man/man1/tiercache.1.gz" | tr -d ' ')" = 0000000000 ] ||
  fail "tiercache.1.gz carries a name or a time stamp (gzip without -n)"

units="$prefix/lib/systemd/system"
grep -qxF "ExecStart=$prefix/sbin/tiercached --foreground --config /etc/tiercache/%i.conf" \
  "$units/tiercached@.service" || fail "ExecStart of tiercached@.service: $(grep Exec "$units"/*)"
! grep -q "@[A-Z_]*@" "$units"/* || fail "unconfigured @VARIABLE@ in $(grep -l "@[A-Z_]*@" "$units"/*)"
# systemd-analyze verifies a template as its instance "i" (tiercache-nbd@i finds tiercached@i in
# the prefix); the Documentation=man: pages are looked up in the prefix too.
MANPATH="$prefix/share/man:" SYSTEMD_UNIT_PATH="$units:" \
  systemd-analyze verify "$units/tiercached@.service" "$units/tiercache-nbd@.service" \
  >verify.log 2>&1 || fail "systemd-analyze verify: $(cat verify.log)"
[ ! -s verify.log ] || fail "systemd-analyze verify warns: $(cat verify.log)"

# The .deb, built in a scratch directory (CPack stages its files there too).
(cd "$TIERCACHE_BUILD_DIR" && cpack -G DEB -B "$TEST_TMP/package") >cpack.log 2>&1 ||
  fail "cpack -G DEB: $(cat cpack.log)"
deb="$(ls "$TEST_TMP"/package/*.deb)"
packaged="$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./usr/||' | sort)"
[ "$packaged" = "$expected_files" ] || fail "files in $deb:
$packaged
expected:
$expected_files"
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libaio1 liburing2 libxxhash0 libsystemd0 libblkid1 libstdc++6; do
  grep -q "\b$lib\b" <<<"$depends" || fail "$deb does not depend on $lib: $depends"
done
unit="$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/tiercached@.service)" ||
  fail "no tiercached@.service in $deb"
grep -qxF "ExecStart=/usr/sbin/tiercached --foreground --config /etc/tiercache/%i.conf" <<<"$unit" ||
  fail "the packaged tiercached@.service does not start /usr/sbin/tiercached: $unit"
