#include "tools/control_locator.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/control/unix_socket.h"
#include "tests/support/temp_dir.h"
#include "tools/process_exit.h"

namespace tiercache {
namespace {

class ControlLocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    setenv("TIERCACHE_RUN_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TIERCACHE_RUN_DIR");
  }
  testing::TempDir tmp_{"tc-locate"};
  std::string dir_;
};

TEST_F(ControlLocatorTest, ExplicitPathWinsThenCacheName) {
  CliOptions o;
  o.control = "/somewhere/x.ctl";
  o.cache = "/dev/nvme0n1p2";
  EXPECT_EQ(ResolveControlPath(o).value(), "/somewhere/x.ctl");
  o.control.clear();
  EXPECT_EQ(ResolveControlPath(o).value(), dir_ + "/nvme0n1p2.ctl");
}

TEST_F(ControlLocatorTest, TheOnlySocketIsPicked) {
  CliOptions o;
  Result<std::string> none = ResolveControlPath(o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().ToString(), "NotFound: no control socket in " + dir_ +
                                          ": tiercached is not running (or pass --control PATH)");
  std::ofstream(dir_ + "/ssd.img.ctl") << "";
  std::ofstream(dir_ + "/ssd.img.sock") << "";
  EXPECT_EQ(ResolveControlPath(o).value(), dir_ + "/ssd.img.ctl");
  std::ofstream(dir_ + "/nvme.ctl") << "";
  Result<std::string> two = ResolveControlPath(o);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().ToString(), "InvalidArgument: several caches are running (" + dir_ +
                                         "/nvme.ctl, " + dir_ +
                                         "/ssd.img.ctl): choose one with --control PATH or "
                                         "--cache SSD");
}

// Two caches whose files share a name share the default sockets: a daemon found there for one
// may serve the other (QA, 2026-12-07: `tiercache stop --cache nb/ssd.img` stopped na's daemon).
TEST_F(ControlLocatorTest, TheServedCacheMustBeTheOneAskedFor) {
  std::filesystem::create_directories(dir_ + "/na");
  std::filesystem::create_directories(dir_ + "/nb");
  std::ofstream(dir_ + "/na/ssd.img") << "a";
  std::ofstream(dir_ + "/nb/ssd.img") << "b";
  std::filesystem::create_symlink(dir_ + "/na/ssd.img", dir_ + "/link.img");
  const std::string ctl = dir_ + "/ssd.img.ctl";
  EXPECT_TRUE(CheckServedCache(dir_ + "/na/ssd.img", dir_ + "/na/ssd.img", ctl).ok());
  EXPECT_TRUE(CheckServedCache(dir_ + "/link.img", dir_ + "/na/ssd.img", ctl).ok());
  EXPECT_TRUE(CheckServedCache(dir_ + "/na/../na/ssd.img", dir_ + "/na/ssd.img", ctl).ok());
  EXPECT_TRUE(CheckServedCache(dir_ + "/gone/x.img", dir_ + "/gone/./x.img", ctl).ok());
  Status other = CheckServedCache(dir_ + "/nb/ssd.img", dir_ + "/na/ssd.img", ctl);
  EXPECT_EQ(other.ToString(),
            "NotFound: no tiercached serves " + dir_ + "/nb/ssd.img: the one at " + ctl +
                " serves " + dir_ + "/na/ssd.img (caches whose files share a name share the "
                "default sockets: start one of them with --control PATH and --socket PATH, and "
                "reach it with --control PATH)");
  EXPECT_FALSE(CheckServedCache(dir_ + "/gone/x.img", dir_ + "/na/ssd.img", ctl).ok());
}

TEST_F(ControlLocatorTest, FindsItsOwnProcess) {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  std::vector<int64_t> pids = FindProcesses(name);
  EXPECT_NE(std::find(pids.begin(), pids.end(), int64_t(getpid())), pids.end());
  EXPECT_TRUE(FindProcesses("no-such-process-name").empty());
  // A child that exited and is not reaped yet (a zombie) runs nothing: it is not found.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  while (!ProcessGone(child)) usleep(1000);
  pids = FindProcesses(name);
  EXPECT_EQ(std::find(pids.begin(), pids.end(), int64_t(child)), pids.end());
  EXPECT_NE(std::find(pids.begin(), pids.end(), int64_t(getpid())), pids.end());
  int wstatus = 0;
  EXPECT_EQ(waitpid(child, &wstatus, 0), child);
}

// Whether a tiercached runs on this machine is not up to the test: check both forms.
void ExpectDaemonClause(const std::string& message, const std::string& prefix) {
  ASSERT_EQ(message.substr(0, prefix.size()), prefix) << message;
  std::string rest = message.substr(prefix.size());
  bool none = rest == "no tiercached process is running";
  bool some = rest.rfind("tiercached is running (pid ", 0) == 0;
  EXPECT_TRUE(none || some) << rest;
}

TEST_F(ControlLocatorTest, ConnectFailureSaysWhatWasTried) {
  std::string missing = dir_ + "/gone.ctl";
  Result<int> fd = ConnectUnix(missing);
  ASSERT_FALSE(fd.ok());
  ExpectDaemonClause(DescribeConnectFailure(missing, fd.status()),
                     "cannot connect to tiercached at " + missing + ": no such socket; ");

  std::string stale = dir_ + "/stale.ctl";
  Result<ListeningSocket> listening = ListenUnix(stale);
  ASSERT_TRUE(listening.ok());
  ::close(listening->fd);
  fd = ConnectUnix(stale);
  ASSERT_FALSE(fd.ok());
  ExpectDaemonClause(DescribeConnectFailure(stale, fd.status()),
                     "cannot connect to tiercached at " + stale + ": Connection refused; ");

  std::string regular = dir_ + "/file.ctl";
  std::ofstream(regular) << "x";
  fd = ConnectUnix(regular);
  ASSERT_FALSE(fd.ok());
  ExpectDaemonClause(DescribeConnectFailure(regular, fd.status()),
                     "cannot connect to tiercached at " + regular + ": not a socket; ");
}

}  // namespace
}  // namespace tiercache
