#include "tools/process_exit.h"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <thread>

namespace tiercache {

bool ProcessGone(int64_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) return true;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, STATE follows the last ')'.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // gone between the two looks
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

bool WaitForProcessExit(int64_t pid, std::chrono::milliseconds limit) {
  if (pid <= 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ProcessGone(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace tiercache
