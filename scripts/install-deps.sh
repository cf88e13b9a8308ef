#!/usr/bin/env bash
# Installs (idempotently) every Debian package tiercache needs to build, test and demo.
# Usage: scripts/install-deps.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config clang libclang-rt-14-dev
  # engine libraries
  libaio-dev libxxhash-dev libboost-dev liburing-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  # tiercache create: filesystems and other signatures it must not overwrite (blkid)
  libblkid-dev
  # tiercached --config FILE: TOML config files (daemon/config/)
  libtomlplusplus-dev
  # clients the tests drive tiercached with
  libnbd-bin python3-libnbd nbdkit qemu-utils fio jq
  # parses `tiercache stats --prometheus` in tests/e2e/test-tiercached-prometheus.sh
  python3-prometheus-client
  # refuses io_uring to tiercached in tests/e2e/test-tiercached-without-io-uring.sh (seccomp)
  python3-seccomp
  # mount test
  fuse3 e2fsprogs util-linux
  # real-kernel VM tests (tests/vm/): qemu TCG, busybox initramfs, guest nbd-client, unpacking
  # the backports kernel and its modules, per-connection guestfwd relay to the host Unix socket
  qemu-system-x86 busybox-static nbd-client cpio xz-utils kmod socat
  # the GPT with 512-byte sectors the guest writes on /dev/nbd0
  fdisk
  # instruction counts per request of bench/micro/hit_path_benchmark (callgrind; docs/performance.md)
  valgrind
  # install and boot (cmake/install.cmake, systemd/): man pages built with pandoc and rendered by
  # man/groff in tests/e2e/test-install.sh; sd_notify from libsystemd; systemd-analyze verify on
  # the units; dpkg-shlibdeps for the CPack .deb's dependencies
  pandoc libsystemd-dev systemd man-db groff-base dpkg-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
