# Kernel NBD client against the server on the host (reached through qemu's guestfwd, which
# runs `socat` to the host's Unix socket for each connection), with nbd-client's default options
# (no -b: the kernel sends 512- and 1024-byte requests): a GPT with 512-byte sectors, 512-byte raw
# writes at odd sectors, ext4 with 1 KiB blocks in a partition; then ext4 with 4 KiB blocks on
# the whole device: mkfs, mount, write, drop caches, remount, compare checksums; with one and two
# connections (-C 2) and with a sync after every file. Env: NBD_ADDR NBD_PORT NBD_SERVER.
. /tests/lib.sh

connect() {
  nbd-client "$NBD_ADDR" "$NBD_PORT" /dev/nbd0 -C "$1" >/tmp/nbd-client.log 2>&1 ||
    { cat /tmp/nbd-client.log; fail "nbd-client -C $1"; }
  wait_for 50 nonzero /sys/block/nbd0/size || fail "nbd0 has no size"
  step "connected with $1 connection(s): $(($(cat /sys/block/nbd0/size) / 2048)) MiB"
}

disconnect() {
  nbd-client -d /dev/nbd0 >/dev/null 2>&1 || fail "nbd-client -d"
  wait_for 50 is_zero /sys/block/nbd0/size || fail "nbd0 still connected"
}

step "host server: $NBD_SERVER"
connect 1
step "logical block size $(cat /sys/block/nbd0/queue/logical_block_size)"

# A GPT in 512-byte sectors, one partition from sector 2048; raw 512-byte writes at odd sectors.
echo 'label: gpt
start=2048, size=40960, type=linux' | sfdisk -q /dev/nbd0 >/tmp/sfdisk.log 2>&1 ||
  { cat /tmp/sfdisk.log; fail "sfdisk"; }
blockdev --rereadpt /dev/nbd0 2>/dev/null
wait_for 50 test -b /dev/nbd0p1 || fail "no /dev/nbd0p1 after writing the GPT"
sfdisk -d /dev/nbd0 | grep -q 'start=        2048, size=       40960' ||
  { sfdisk -d /dev/nbd0; fail "GPT read back differs"; }
dd if=/dev/urandom of=/tmp/odd bs=512 count=7 2>/dev/null
dd if=/tmp/odd of=/dev/nbd0 bs=512 seek=43013 oflag=direct conv=fsync 2>/dev/null || fail "512-byte writes"
drop_caches
dd if=/dev/nbd0 bs=512 skip=43013 count=7 iflag=direct 2>/dev/null | cmp -s - /tmp/odd ||
  fail "512-byte sectors read back differ"
step "GPT with 512-byte sectors written and read back; 7 sectors at sector 43013 byte for byte"
mkfs.ext4 -q -F -b 1024 /dev/nbd0p1 || fail "mkfs.ext4 -b 1024"
mount -t ext4 /dev/nbd0p1 /mnt || fail "mount 1 KiB-block ext4"
write_files /mnt/k 12 /tmp/k.log || fail "write on 1 KiB-block ext4"
remount_verify /dev/nbd0p1 /mnt /tmp/k.log || fail "verify 1 KiB-block ext4 after remount"
umount /mnt
e2fsck -fn /dev/nbd0p1 >/tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck 1 KiB-block ext4"; }
step "ext4 with 1 KiB blocks in the partition: 12 files written, remounted, verified, e2fsck clean"

mkfs.ext4 -q -F /dev/nbd0 || fail "mkfs.ext4"
step "mkfs.ext4 done"
mount -t ext4 /dev/nbd0 /mnt || fail "mount"
write_files /mnt/p1 32 /tmp/p1.log || fail "write p1"
remount_verify /dev/nbd0 /mnt /tmp/p1.log || fail "verify p1 after remount"
umount /mnt
disconnect
step "one connection: 32 files written, unmounted, caches dropped, remounted, verified"

connect 2
mount -t ext4 /dev/nbd0 /mnt || fail "mount with -C 2"
verify_files /tmp/p1.log || fail "p1 after reconnect"
write_files /mnt/p2 32 /tmp/p2.log || fail "write p2"
cat /tmp/p1.log /tmp/p2.log > /tmp/all.log
remount_verify /dev/nbd0 /mnt /tmp/all.log || fail "verify p1+p2 with -C 2"
umount /mnt
disconnect
step "two connections: 32 more files, remounted, all 64 verified"

connect 2
mount -t ext4 /dev/nbd0 /mnt || fail "mount for the sync pattern"
write_files /mnt/p3 24 /tmp/p3.log sync || fail "write p3 with sync after each file"
umount /mnt
disconnect
cat /tmp/p3.log >> /tmp/all.log
step "sync after each of 24 files done"

connect 1
mount -t ext4 -o ro /dev/nbd0 /mnt || fail "mount after reconnect"
verify_files /tmp/all.log || fail "all 88 files after reconnect"
umount /mnt
e2fsck -fn /dev/nbd0 >/tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck"; }
disconnect
step "reconnected: all 88 files verified, e2fsck clean"
