#include "cachelib/device/models/model_profiles.h"

#include <gtest/gtest.h>

#include "cachelib/device/models/hdd_model.h"
#include "cachelib/device/models/ssd_model.h"
#include "cachelib/device/memory_device.h"

namespace tiercache {
namespace {

TEST(ModelProfilesTest, BuiltinHasTheFiveProfiles) {
  auto set = ModelProfiles::Builtin();
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->names(),
            (std::vector<std::string>{"hdd10k", "hdd5400", "hdd7200", "nvme", "sata-ssd"}));
  auto hdd = set->find("hdd7200");
  ASSERT_TRUE(hdd.ok());
  EXPECT_EQ(hdd->kind, ModelProfile::Kind::kHdd);
  // The shipped hdd7200 is exactly the HddParams defaults.
  const HddParams d;
  EXPECT_EQ(hdd->hdd.capacity_bytes, d.capacity_bytes);
  EXPECT_EQ(hdd->hdd.avg_seek_read_ms, d.avg_seek_read_ms);
  EXPECT_EQ(hdd->hdd.full_stroke_write_ms, d.full_stroke_write_ms);
  EXPECT_EQ(hdd->hdd.write_cache_bytes, d.write_cache_bytes);
  EXPECT_EQ(hdd->hdd.ncq_depth, d.ncq_depth);
  EXPECT_EQ(hdd->hdd.name, "hdd7200");
  auto ssd = set->find("sata-ssd");
  ASSERT_TRUE(ssd.ok());
  EXPECT_EQ(ssd->kind, ModelProfile::Kind::kSsd);
  EXPECT_EQ(ssd->ssd.link_read_mb_s, 550);
  EXPECT_EQ(set->find("hdd10k")->hdd.rpm, 10000);
  EXPECT_TRUE(set->find("nvme")->ssd.full_duplex);
}

TEST(ModelProfilesTest, UnknownNameListsKnownOnes) {
  auto set = ModelProfiles::Builtin().value();
  auto p = set.find("floppy");
  EXPECT_EQ(p.status().code(), Status::Code::kNotFound);
  EXPECT_NE(p.status().message().find("hdd7200"), std::string::npos);
}

TEST(ModelProfilesTest, ParseRejectsTyposTypesAndBadValues) {
  auto bad_key = ModelProfiles::Parse(
      R"({"profiles": {"x": {"kind": "hdd", "rmp": 7200}}})", "t");
  EXPECT_EQ(bad_key.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(bad_key.status().message().find("'rmp'"), std::string::npos);
  auto bad_type = ModelProfiles::Parse(
      R"({"profiles": {"x": {"kind": "ssd", "units": "eight"}}})", "t");
  EXPECT_NE(bad_type.status().message().find("'units'"), std::string::npos);
  auto fraction = ModelProfiles::Parse(
      R"({"profiles": {"x": {"kind": "ssd", "units": 2.5}}})", "t");
  EXPECT_EQ(fraction.status().code(), Status::Code::kInvalidArgument);
  auto invalid = ModelProfiles::Parse(
      R"({"profiles": {"x": {"kind": "hdd", "avg_seek_read_ms": 30}}})", "t");
  EXPECT_NE(invalid.status().message().find("read seek times"), std::string::npos);
  auto kind = ModelProfiles::Parse(R"({"profiles": {"x": {"kind": "tape"}}})", "t");
  EXPECT_EQ(kind.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ModelProfiles::Parse("{not json", "t").status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ModelProfiles::Load("/nonexistent/profiles.json").status().code(),
            Status::Code::kNotFound);
}

TEST(ModelProfilesTest, MissingKeysKeepDefaultsAndOverridesApply) {
  auto set = ModelProfiles::Parse(
      R"({"profiles": {"slow": {"kind": "hdd", "rpm": 5400, "write_cache": false,
          "capacity_bytes": 2e12}}})", "t");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  auto p = set->find("slow").value();
  EXPECT_EQ(p.hdd.rpm, 5400);
  EXPECT_FALSE(p.hdd.write_cache);
  EXPECT_EQ(p.hdd.capacity_bytes, 2000000000000ull);
  EXPECT_EQ(p.hdd.avg_seek_read_ms, HddParams{}.avg_seek_read_ms);
}

TEST(ModelProfilesTest, MakeModelDevicePicksTheModelByKind) {
  auto set = ModelProfiles::Builtin().value();
  MemoryDevice mem("disk", 1ull << 30);
  auto hdd = MakeModelDevice(set.find("hdd5400").value(), mem, 3);
  ASSERT_TRUE(hdd.ok());
  EXPECT_NE(dynamic_cast<HddModel*>(hdd->get()), nullptr);
  EXPECT_EQ((*hdd)->size(), mem.size());
  EXPECT_EQ((*hdd)->name(), "hdd5400(disk)");
  auto ssd = MakeModelDevice(set.find("nvme").value(), mem);
  ASSERT_TRUE(ssd.ok());
  EXPECT_NE(dynamic_cast<SsdModel*>(ssd->get()), nullptr);
}

}  // namespace
}  // namespace tiercache
