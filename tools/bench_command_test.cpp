#include "tools/bench_command.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(BenchCommandTest, LooksNextToTheCliThenInTheBuildTree) {
  EXPECT_EQ(BenchCandidates("/work/main/build/tools/tiercache"),
            (std::vector<std::string>{"/work/main/build/tools/tiercache-bench",
                                      "/work/main/build/bench/runner/tiercache-bench",
                                      "/work/main/build/bench/tiercache-bench"}));
  EXPECT_EQ(BenchCandidates("/usr/bin/tiercache")[0], "/usr/bin/tiercache-bench");
}

TEST(BenchCommandTest, ArgumentsPassThroughUnchanged) {
  EXPECT_EQ(BenchArgv({"--workload", "a b", "--help"}),
            (std::vector<std::string>{"tiercache-bench", "--workload", "a b", "--help"}));
  EXPECT_EQ(BenchArgv({}), std::vector<std::string>{"tiercache-bench"});
}

}  // namespace
}  // namespace tiercache
