# Host-side helpers for the real-kernel VM tests (source it; see docs/vm-tests.md).
#
#   vm_require_tools            install the VM packages if missing (root), else skip (exit 77)
#   vm_fetch_kernel             Debian bookworm-backports kernel, unpacked once into $VM_CACHE;
#                               sets KERNEL_IMAGE, KERNEL_MODULES (dir), KERNEL_VERSION
#   vm_build_initramfs OUT TEST BIN[=DEST]...
#                               busybox + kernel modules + BINs (with their libraries) + the
#                               guest scripts; the guest runs guest/test-TEST.sh
#   vm_boot INITRD LOG [QEMU_ARG...]
#                               boots qemu TCG under a timeout, console to LOG (and filtered
#                               to stdout); returns 0 only if the guest printed "RESULT: PASS"
#                               and the kernel printed no warning or oops
#   vm_log MSG                  "[host  12.3s] MSG"
#
# VM_GUEST_ENV: shell assignments (one per line) the guest scripts source from /tests/env.
# Environment: TIERCACHE_VM_CACHE (default ~/.cache/tiercache-vm), VM_TIMEOUT (s, default 240),
# VM_MEM (MiB, default 1024), VM_SMP (default 2).

VM_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_SRC_DIR="$(cd "$VM_LIB_DIR/../.." && pwd)"
VM_CACHE="${TIERCACHE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/tiercache-vm}"
VM_T0=$(date +%s.%N)
# The guest's kernel modules, in the order modprobe resolves their dependencies.
VM_MODULES="nbd ublk_drv virtio_net ext4"

vm_log() {
  awk -v a="$VM_T0" -v b="$(date +%s.%N)" -v m="$*" 'BEGIN{printf "[host %6.1fs] %s\n", b-a, m}'
}

vm_require_tools() {
  local missing=0 c
  for c in qemu-system-x86_64 busybox nbd-client mke2fs e2fsck cpio xz depmod modprobe \
           dpkg-deb apt-get socat flock timeout; do
    command -v "$c" >/dev/null 2>&1 || PATH="$PATH:/sbin:/usr/sbin" command -v "$c" \
      >/dev/null 2>&1 || missing=1
  done
  [ -x /bin/busybox ] || missing=1
  if [ "$missing" = 1 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "SKIP: VM test tools missing and not root: run scripts/install-deps.sh" >&2
      exit 77
    fi
    vm_log "installing the VM test packages (scripts/install-deps.sh)"
    "$VM_SRC_DIR/scripts/install-deps.sh" >/dev/null || { echo "FAIL: install-deps" >&2; exit 1; }
  fi
  export PATH="$PATH:/sbin:/usr/sbin"
}

# apt-get/apt-cache run against a private configuration under $VM_CACHE/apt: the machine's own
# apt sources and state are neither read nor changed.
vm_apt() {
  local tool="$1"
  shift
  "$tool" -q -o Dir::Etc::SourceList="$VM_CACHE/apt/sources.list" \
    -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$VM_CACHE/apt/lists" \
    -o Dir::Cache="$VM_CACHE/apt/cache" -o Debug::NoLocking=1 \
    -o APT::Sandbox::User=root "$@"
}

vm_mirror() {
  local m=""
  m=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$m" ] || m=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' \
                     /etc/apt/sources.list 2>/dev/null || true)
  echo "${m:-http://deb.debian.org/debian}"
}

vm_download_kernel() {
  mkdir -p "$VM_CACHE/apt/lists/partial" "$VM_CACHE/apt/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(vm_mirror)" \
       "bookworm-backports main" > "$VM_CACHE/apt/sources.list"
  vm_apt apt-get update >/dev/null 2>&1 || return 1
  local pkg
  pkg=$(vm_apt apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  [ -n "$pkg" ] || return 1
  local tmp="$VM_CACHE/download.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$tmp" && vm_apt apt-get download "$pkg" >/dev/null 2>&1) || { rm -rf "$tmp"; return 1; }
  rm -rf "$VM_CACHE/$pkg" && mkdir -p "$VM_CACHE/$pkg"
  dpkg-deb -x "$tmp"/*.deb "$VM_CACHE/$pkg" && rm -rf "$tmp" || return 1
  local kv
  kv=$(ls "$VM_CACHE/$pkg/lib/modules" | head -1)
  depmod -b "$VM_CACHE/$pkg" "$kv" || return 1
  # Keep only what the tests use: the image and the modules tree (about 100 MiB less).
  rm -rf "$VM_CACHE/$pkg/usr/share/doc" "$VM_CACHE/$pkg/usr/lib/linux"*
  echo "$pkg" > "$VM_CACHE/current"
}

vm_fetch_kernel() {
  mkdir -p "$VM_CACHE"
  (
    flock 9
    if [ ! -s "$VM_CACHE/current" ] || [ ! -d "$VM_CACHE/$(cat "$VM_CACHE/current")/boot" ]; then
      vm_log "downloading the bookworm-backports kernel into $VM_CACHE"
      vm_download_kernel || exit 1
    fi
  ) 9>"$VM_CACHE/.lock" || {
    echo "SKIP: cannot download the Debian bookworm-backports kernel (offline?)" >&2
    exit 77
  }
  local dir="$VM_CACHE/$(cat "$VM_CACHE/current")"
  KERNEL_VERSION=$(ls "$dir/lib/modules" | head -1)
  KERNEL_IMAGE="$dir/boot/vmlinuz-$KERNEL_VERSION"
  KERNEL_MODULES="$dir"
  vm_log "kernel $KERNEL_VERSION ($dir)"
}

# Copies BIN (resolved through symlinks) to ROOT/DEST and every library ldd names.
vm_copy_binary() {
  local root="$1" bin="$2" dest="$3" lib
  mkdir -p "$root$(dirname "$dest")"
  cp -L "$bin" "$root$dest"
  for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

vm_copy_modules() {
  local root="$1" m f b
  mkdir -p "$root/lib/modules"
  : > "$root/lib/modules/order"
  for m in $VM_MODULES; do
    modprobe -d "$KERNEL_MODULES" -S "$KERNEL_VERSION" --show-depends "$m" |
      awk '$1=="insmod"{print $2}'
  done | awk '!seen[$0]++' | while read -r f; do
    b=$(basename "${f%.xz}")
    case "$f" in *.xz) xz -dc "$f" > "$root/lib/modules/$b" ;; *) cp "$f" "$root/lib/modules/$b" ;; esac
    echo "$b" >> "$root/lib/modules/order"
  done
}

# vm_build_initramfs OUT TEST [BIN...]: each BIN is a path (kept in the guest) or SRC=DEST.
# busybox ash prefers its own applets, so e2fsprogs' mkfs.ext4 and e2fsck go to /usr/sbin
# explicitly; put project binaries in /usr/local/bin (first on the guest's PATH).
vm_build_initramfs() {
  local out="$1" test="$2"
  shift 2
  local root="$out.root" a bin
  rm -rf "$root"
  mkdir -p "$root"/{bin,dev,proc,sys,tmp,mnt,data,etc,usr/sbin,usr/local/bin,tests}
  cp /bin/busybox "$root/bin/"
  for a in $(/bin/busybox --list); do
    [ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
  done
  vm_copy_modules "$root"
  vm_copy_binary "$root" /sbin/mke2fs /usr/sbin/mkfs.ext4
  vm_copy_binary "$root" /sbin/e2fsck /usr/sbin/e2fsck
  cp /etc/mke2fs.conf "$root/etc/" 2>/dev/null || true
  for bin in "$@"; do  # SRC, or SRC=DEST
    vm_copy_binary "$root" "${bin%%=*}" "${bin#*=}"
  done
  cp "$VM_LIB_DIR"/guest/*.sh "$root/tests/"
  cp "$VM_LIB_DIR/guest/init" "$root/init"
  chmod +x "$root/init"
  echo "$test" > "$root/tests/name"
  printf '%s\n' "${VM_GUEST_ENV:-}" > "$root/tests/env"
  (cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
  rm -rf "$root"
  vm_log "initramfs for '$test' built ($(du -h "$out" | cut -f1))"
}

# vm_boot INITRD LOG [QEMU_ARG...]: KVM does not work on these hosts (paravirtual KVM), so TCG.
# Under TCG the guest kernel now and then oopses while it boots, before the test's init runs
# (an int3 of its own text patching, seen in sched_init_debug): such a boot, and only such a
# boot, is retried, twice at most. Anything after init started counts.
vm_boot() {
  local initrd="$1" log="$2"
  shift 2
  local rc attempt
  for attempt in 1 2 3; do
    rc=0
    timeout "${VM_TIMEOUT:-240}" qemu-system-x86_64 -accel tcg -cpu max -m "${VM_MEM:-1024}" \
      -smp "${VM_SMP:-2}" -nographic -no-reboot -kernel "$KERNEL_IMAGE" -initrd "$initrd" \
      -append "console=ttyS0 quiet panic=-1 oops=panic" "$@" </dev/null >"$log" 2>&1 || rc=$?
    if grep -aq '^GUEST ' "$log" || ! grep -aqE 'Oops|Kernel panic' "$log" || [ "$attempt" = 3 ]; then
      break
    fi
    cp "$log" "$log.boot-$attempt"
    vm_log "the guest kernel failed while booting, before the test started (see $log.boot-$attempt): booting again"
  done
  grep -aE '^(GUEST|RESULT|FIO)|Kernel panic|BUG:|WARNING:|Call Trace' "$log" || true
  if [ "$rc" = 124 ]; then
    vm_log "VM timed out after ${VM_TIMEOUT:-240}s (see $log)"
    return 1
  fi
  vm_log "VM exited"
  # A kernel warning or oops (e.g. a ublk WARN_ON provoked by the server) fails the test too.
  if grep -aqE 'BUG:|WARNING:|Call Trace|Oops' "$log"; then
    vm_log "the guest kernel reported a problem (see $log)"
    return 1
  fi
  grep -aq '^RESULT: PASS' "$log"
}
