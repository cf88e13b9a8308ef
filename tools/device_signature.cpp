#include "tools/device_signature.h"

#include <blkid/blkid.h>

#include <cerrno>
#include <memory>
#include <string_view>

namespace tiercache {
namespace {

std::string Lookup(blkid_probe probe, const char* name) {
  const char* value = nullptr;
  return blkid_probe_lookup_value(probe, name, &value, nullptr) == 0 && value ? value : "";
}

// "a" or "an" before `word`, by its first letter.
std::string Article(const std::string& word) {
  return !word.empty() && std::string_view("aeiouAEIOU").find(word[0]) != std::string_view::npos
             ? "an " + word
             : "a " + word;
}

std::string Describe(const std::string& type, const std::string& usage) {
  if (usage == "filesystem") return Article(type) + " filesystem";
  if (usage == "raid") return Article(type) + " raid member";
  if (usage == "crypto") return Article(type) + " encrypted volume";
  return Article(type) + " signature";
}

}  // namespace

Result<std::string> FindForeignSignature(const std::string& path) {
  std::unique_ptr<blkid_struct_probe, decltype(&blkid_free_probe)> probe(
      blkid_new_probe_from_filename(path.c_str()), &blkid_free_probe);
  if (!probe) return Status::FromErrno(errno, "blkid probe of " + path);
  blkid_probe_enable_superblocks(probe.get(), 1);
  blkid_probe_set_superblocks_flags(probe.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
  blkid_probe_enable_partitions(probe.get(), 1);
  blkid_probe_set_partitions_flags(probe.get(), BLKID_PARTS_MAGIC);
  const int found = blkid_do_safeprobe(probe.get());
  if (found == 1) return std::string();
  if (found == -2) return std::string("several signatures");
  if (found < 0) return Status::IoError("blkid could not probe " + path);
  const std::string type = Lookup(probe.get(), "TYPE");
  if (!type.empty()) return Describe(type, Lookup(probe.get(), "USAGE"));
  const std::string table = Lookup(probe.get(), "PTTYPE");
  return table.empty() ? std::string("a signature") : Article(table) + " partition table";
}

}  // namespace tiercache
