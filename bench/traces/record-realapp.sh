#!/usr/bin/env bash
# Records the `realapp` and `realapp-install` workloads of tiercache-bench with the project's own tools (docs/bench.md,
# "The recorded trace"): a 1 GiB volume served by tiercached, attached with nbdfuse + losetup,
# ext4 on it.
#   session 1 (realapp-install.iolog): mkfs.ext4, mount, copy a Python installation in
#             (/usr/bin/python3.11, /usr/lib/python3.11, /usr/lib/python3/dist-packages), unmount.
#   session 2 (realapp.iolog): drop the page cache, mount again and start three Python
#             "applications" from the volume, one after another (a stdlib-heavy import set,
#             `pip list`, a dist-packages import set), unmount.
# Each session is one tiercached run with --record FILE, so each trace holds every request the
# volume saw, from the mount to the unmount. Needs root, /dev/fuse, nbdfuse, losetup, mkfs.ext4
# and a built tree (TIERCACHE_BUILD_DIR, default build/).
#
#   bench/traces/record-realapp.sh [OUTDIR]       (default OUTDIR: bench/traces)
set -euo pipefail
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH"

SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${TIERCACHE_BUILD_DIR:-$SRC/build}"
OUT="$(realpath "${1:-$SRC/bench/traces}")"
TIERCACHED="$BUILD/daemon/tiercached/tiercached"
TIERCACHE="$BUILD/tools/tiercache"
PY=/usr/bin/python3.11

die() { echo "record-realapp: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (losetup, mount)"
for t in "$TIERCACHED" "$TIERCACHE"; do [ -x "$t" ] || die "missing $t (build it first)"; done
for c in nbdfuse fusermount3 losetup mkfs.ext4; do
  command -v "$c" >/dev/null || die "missing $c"
done
[ -x "$PY" ] && [ -d /usr/lib/python3.11 ] && [ -d /usr/lib/python3/dist-packages ] ||
  die "needs Debian 12's python3.11 and /usr/lib/python3/dist-packages"

WORK="$(mktemp -d /tmp/record-realapp.XXXXXX)"
cd "$WORK"
mkdir fuse mnt run
DAEMON_PID="" FUSE_PID="" LOOP="" MOUNTED=0

detach() {
  if [ "$MOUNTED" = 1 ]; then umount mnt || umount -l mnt; fi
  MOUNTED=0
  if [ -n "$LOOP" ]; then
    losetup -d "$LOOP"
    local i
    for ((i = 0; i < 100; i++)); do  # losetup -d is asynchronous
      [ -e "/sys/block/${LOOP#/dev/}/loop/backing_file" ] || break
      sleep 0.1
    done
  fi
  LOOP=""
  if [ -n "$FUSE_PID" ]; then
    fusermount3 -u fuse 2>/dev/null || fusermount3 -uz fuse 2>/dev/null || true
    wait "$FUSE_PID" 2>/dev/null || true
  fi
  FUSE_PID=""
}

stop_daemon() {
  [ -n "$DAEMON_PID" ] || return 0
  "$TIERCACHE" stop --control run/ctl >/dev/null || kill -TERM "$DAEMON_PID"
  wait "$DAEMON_PID" || die "tiercached exited with status $?"
  DAEMON_PID=""
}

cleanup() {
  detach || true
  stop_daemon || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts tiercached recording to $1 and attaches its export as $LOOP.
attach() {
  "$TIERCACHED" --cache ssd.img --buffered --foreground --socket run/sock --control run/ctl \
    --pidfile run/pid --record "$1" 2>>daemon.log &
  DAEMON_PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [ "$(cat run/pid 2>/dev/null)" = "$DAEMON_PID" ] && break
    kill -0 "$DAEMON_PID" 2>/dev/null || die "tiercached exited: $(cat daemon.log)"
    sleep 0.1
  done
  rm -f fuse.pid
  nbdfuse -P fuse.pid fuse/nbd "nbd+unix:///?socket=$WORK/run/sock" &
  FUSE_PID=$!
  for ((i = 0; i < 300; i++)); do
    [ -s fuse.pid ] && break
    kill -0 "$FUSE_PID" 2>/dev/null || die "nbdfuse exited"
    sleep 0.1
  done
  LOOP="$(losetup -b 4096 -f --show fuse/nbd)"
}

mount_volume() {
  mount -t ext4 "$LOOP" mnt
  MOUNTED=1
}

# The three applications of the launch session, started from the volume's own interpreter
# (-I: only the volume's prefix is on sys.path).
launch_apps() {
  local py="$WORK/mnt/usr/bin/python3.11"
  (cd / && "$py" -I -c '
import asyncio, json, email.mime.multipart, http.client, http.server, urllib.request
import xml.etree.ElementTree, xml.dom.minidom, sqlite3, decimal, fractions, statistics, unittest
import argparse, logging.handlers, concurrent.futures, multiprocessing, subprocess, tarfile
import zipfile, gzip, bz2, lzma, csv, configparser, difflib, pydoc, inspect, dataclasses, typing
import ssl, hashlib, hmac, secrets, uuid, datetime, calendar, locale, gettext, curses, ctypes
import shelve, pickletools, ast, dis, tokenize, doctest, venv, ensurepip, smtplib, imaplib
import ftplib, xmlrpc.client, wsgiref.simple_server, html.parser, mailbox, trace, cProfile
import pstats, timeit, pdb')
  (cd / && "$py" -I -m pip list --disable-pip-version-check >/dev/null)
  (cd / && "$py" -I -c '
import yaml, pygments.lexers, pygments.formatters, jwt, httplib2, OpenSSL, oauthlib.oauth2
import cryptography.hazmat.primitives.ciphers, cryptography.x509, blinker, distro, gi, dbus, apt')
}

truncate -s 1G hdd.img
truncate -s 256M ssd.img
"$TIERCACHE" create --cache ssd.img --core hdd.img --mode wt >/dev/null

attach install.iolog
# Initialize inode tables and journal now, so that no lazy-init thread writes during launch.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
mount_volume
mkdir -p mnt/usr/bin mnt/usr/lib/python3
cp -a "$PY" mnt/usr/bin/
cp -a /usr/lib/python3.11 mnt/usr/lib/
cp -a /usr/lib/python3/dist-packages mnt/usr/lib/python3/
echo "installed: $(du -sm mnt/usr | cut -f1) MB, $(find mnt/usr | wc -l) entries"
detach
stop_daemon

sync
echo 3 >/proc/sys/vm/drop_caches
attach launch.iolog
mount_volume
launch_apps
detach
stop_daemon

for name in install launch; do
  reqs="$(grep -cE ' (read|write|trim|sync)' "$name.iolog")"
  echo "$name: $reqs requests"
done
mkdir -p "$OUT"
cp install.iolog "$OUT/realapp-install.iolog"
cp launch.iolog "$OUT/realapp.iolog"
ls -l "$OUT"/realapp*.iolog
