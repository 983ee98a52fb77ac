// The fault "a kernel never ends" (docs/reliability.md, Waits): with
// TACK_WAIT_TIMEOUT_S set, the wait raises tack::BackendError naming the kernel
// last queued instead of hanging. After the timeout PoCL's worker threads stay
// busy forever, so the scenario runs in a child process (this test binary run
// again with a filter and TACK_TEST_WAIT_CHILD=1) that prints the outcome and
// leaves with _exit(0), running no destructor; the parent reads its output
// under a deadline of its own, kills it if need be, and checks the message.
#include "errors/error_helpers.hpp"

#include <tack/tack.hpp>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {
using namespace tack::lang;
using Clock = std::chrono::steady_clock;

constexpr const char* kChildMarker = "TACK_TEST_WAIT_CHILD";

// An endless loop the compiler cannot drop: the condition reads an array that
// stays zero, and the body does an atomic (a side effect, so no forward-progress
// assumption lets the loop be deleted).
const tack::Kernel endless = tack::kernel("endless_spin", [](Array flag, Array count) {
  parallel_for(count.size(), [&](Index i) { while_([&] { return flag[0] == 0; }, [&] { atomic_add(count, i, 1); }); });
});

// The child's side: one launch, one wait, the outcome on stdout, then _exit.
[[noreturn]] void run_child(const char* backend) {
  std::string outcome;
  try {
    tack::Device dev = tack::device(backend);
    tack::Array flag = dev.zeros(tack::DType::I32, {1});
    tack::Array count = dev.zeros(tack::DType::I32, {4});
    dev.synchronize();
    const auto start = Clock::now();
    endless(flag, count);
    try {
      dev.synchronize();
      outcome = "NO ERROR";
    } catch (const tack::BackendError& e) {
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      outcome = "BackendError after " + std::to_string(s) + " s: " + e.what();
    }
  } catch (const tack::BackendUnavailable& e) {
    outcome = std::string("UNAVAILABLE: ") + e.what();
  } catch (const std::exception& e) {
    outcome = std::string("OTHER: ") + e.what();
  }
  std::printf("%s\n", outcome.c_str());
  std::fflush(stdout);
  _exit(0);  // no destructor: a backend's would wait for the kernel that never ends
}

// Runs this binary's `test` in a child with extra environment; returns its
// stdout, or what went wrong. The child is killed after `limit`.
std::string run_in_child(const std::string& test, std::vector<std::string> env, std::chrono::seconds limit) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "(pipe failed)";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=" + test;
  char* argv[] = {exe.data(), filter.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return "(posix_spawn failed)";
  }
  std::string out;
  const auto deadline = Clock::now() + limit;
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the child closed its end (exited)
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(pipe_fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) out += "\n(the child was killed after " + std::to_string(limit.count()) + " s)";
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(WaitTimeout, EndlessOpenclKernelRaisesBackendErrorNamingIt) {
  if (std::getenv(kChildMarker)) run_child("opencl");
  const std::string out =
      run_in_child("WaitTimeout.EndlessOpenclKernelRaisesBackendErrorNamingIt",
                   {std::string(kChildMarker) + "=1", "TACK_WAIT_TIMEOUT_S=1"}, std::chrono::seconds(60));
  if (contains(out, "UNAVAILABLE: ")) GTEST_SKIP() << "opencl is unavailable here: " << out;
  EXPECT_TRUE(contains(out, "BackendError after ")) << out;
  EXPECT_TRUE(contains(out, "opencl: ")) << out;
  EXPECT_TRUE(contains(out, "kernel 'endless_spin'")) << out;
  EXPECT_TRUE(contains(out, "within 1 s (TACK_WAIT_TIMEOUT_S)")) << out;
  // Within a few seconds of the deadline (the build of the kernel comes before the launch).
  const std::size_t at = out.find("BackendError after ");
  if (at != std::string::npos) {
    const double seconds = std::strtod(out.c_str() + at + 19, nullptr);
    EXPECT_GE(seconds, 0.9) << out;
    EXPECT_LT(seconds, 10.0) << out;
  }
}

// A value that is not a number of seconds is refused by name at the first wait.
TEST(WaitTimeout, MalformedTimeoutIsRefusedByName) {
  if (std::getenv(kChildMarker)) {
    std::string outcome = "NO ERROR";
    try {
      tack::device("opencl").synchronize();
    } catch (const tack::InvalidArgument& e) {
      outcome = std::string("InvalidArgument: ") + e.what();
    } catch (const tack::BackendUnavailable& e) {
      outcome = std::string("UNAVAILABLE: ") + e.what();
    } catch (const std::exception& e) {
      outcome = std::string("OTHER: ") + e.what();
    }
    std::printf("%s\n", outcome.c_str());
    std::fflush(stdout);
    _exit(0);
  }
  const std::string out =
      run_in_child("WaitTimeout.MalformedTimeoutIsRefusedByName",
                   {std::string(kChildMarker) + "=1", "TACK_WAIT_TIMEOUT_S=soon"}, std::chrono::seconds(60));
  if (contains(out, "UNAVAILABLE: ")) GTEST_SKIP() << "opencl is unavailable here: " << out;
  EXPECT_TRUE(contains(out, "InvalidArgument: TACK_WAIT_TIMEOUT_S='soon' is not a number of seconds")) << out;
}

}  // namespace
