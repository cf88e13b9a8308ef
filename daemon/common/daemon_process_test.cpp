#include "daemon/common/daemon_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cachelib/common/epoll_event_loop.h"

namespace tiercache {
namespace {

bool Pending(int sig) {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, sig) == 1;
}

// Consumes a pending `sig` so the next test starts clean.
void Drain(int sig) {
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  const timespec zero{0, 0};
  sigtimedwait(&one, nullptr, &zero);
}

// The pid a pidfile holds (0 if none).
pid_t PidIn(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

TEST(DaemonProcessTest, PidfileHoldsThePidUntilRemoved) {
  const std::string path = ::testing::TempDir() + "daemon_process_test.pid";
  DaemonProcess process;
  ASSERT_TRUE(process.WritePidfile(path).ok());
  EXPECT_EQ(PidIn(path), getpid());
  process.RemovePidfile();
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A second daemon given a running one's --pidfile (QA, 2026-12-07: it overwrote the file, and
// removed it at its stop) is refused and leaves the file as it was.
TEST(DaemonProcessTest, APidfileHeldByAnotherProcessIsRefused) {
  const std::string path = ::testing::TempDir() + "daemon_process_test_held.pid";
  DaemonProcess first;
  ASSERT_TRUE(first.WritePidfile(path).ok());
  const pid_t child = fork();  // another process: flock is per open file, shared within one
  ASSERT_GE(child, 0);
  if (child == 0) {
    DaemonProcess second;
    Status s = second.WritePidfile(path);
    _exit(s.ToString() == "Busy: pidfile " + path + " is held by running process " +
                              std::to_string(getppid()) +
                              " (another daemon): give this one its own --pidfile"
              ? 0
              : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(PidIn(path), getpid());
  first.RemovePidfile();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DaemonProcessTest, UnwritablePidfileIsAnError) {
  DaemonProcess process;
  Status s = process.WritePidfile("/nonexistent-dir/x.pid");
  EXPECT_EQ(s.ToString(), "IoError: cannot write pidfile /nonexistent-dir/x.pid");
}

TEST(DaemonProcessTest, SigtermEndsTheWait) {
  DaemonProcess process;
  std::atomic<bool> never{false};
  ASSERT_EQ(raise(SIGTERM), 0);  // blocked: stays pending until the wait takes it
  process.WaitForStop(never);
  EXPECT_FALSE(Pending(SIGTERM));
}

TEST(DaemonProcessTest, HangupIsBlockedAndDoesNotStop) {
  DaemonProcess process;
  ASSERT_EQ(raise(SIGHUP), 0);  // would end the process were it not blocked
  std::atomic<bool> requested{true};
  process.WaitForStop(requested);  // returns for the request, not the signal
  EXPECT_TRUE(Pending(SIGHUP));
  Drain(SIGHUP);
}

TEST(DaemonProcessTest, UserSignalsDoNotEndTheProcess) {
  // In a child: were they not ignored, their default action would end it by the signal.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DaemonProcess process;
    raise(SIGUSR1);
    raise(SIGUSR2);
    _exit(7);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(DaemonProcessTest, StopOnSignalRunsStopOnceOnTheLoop) {
  DaemonProcess process;
  auto loop = EpollEventLoop::Create();
  ASSERT_TRUE(loop.ok());
  int stops = 0;
  ASSERT_TRUE(process.StopOnSignal(**loop, [&] {
    ++stops;
    (*loop)->stop();
  }).ok());
  EXPECT_EQ(process.StopOnSignal(**loop, [] {}).ToString(),
            "InvalidArgument: StopOnSignal: already watching");
  ASSERT_EQ(raise(SIGINT), 0);
  (*loop)->run();
  EXPECT_EQ(stops, 1);
  EXPECT_FALSE(Pending(SIGINT));
}

}  // namespace
}  // namespace tiercache
