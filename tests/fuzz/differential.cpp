// Differential fuzzing (DESIGN §7): for each seed, a random well-typed kernel
// (kernel_generator.hpp) and random inputs full of edge values run on the
// reference interpreter and on every other backend of this build; the outputs
// must agree under DESIGN §4: integers bit for bit, floats bit for bit except
// that any NaN equals any NaN (§4 leaves NaN payloads open). No tolerance is
// needed anywhere, because the generator avoids what §4 leaves to the backend
// (contraction, transcendentals, order-dependent atomics).
//
// A third of the seeds make workgroup kernels (barriers, shared memory, group
// reductions) where every backend taking part runs workgroups.
//
// On a mismatch the kernel is shrunk while the mismatch persists and printed
// as C++, with the inputs and both outputs; the run then fails. A kernel that
// never ends is a hang, caught by bounded waits and a watchdog, and shrunk in
// child processes (see "hangs" below and README.md).
//
//   tack_fuzz                  seeds 1..200 (TACK_FUZZ_START, TACK_FUZZ_SEEDS); OpenCL
//                              on every 5th seed (TACK_FUZZ_EVERY_OPENCL=1: all)
//   tack_fuzz --seed=N         one seed, printing its kernel
//   tack_fuzz --start=S --seeds=K
//   tack_fuzz --no-contract    kernels made with KernelOptions::fp_contract off, float
//                              products anywhere (in sums above all): still bit for bit
//   tack_fuzz --check=N --backend=B [--edits=...]   one shrinker candidate (a child's job)
#include "fuzz/autodiff_check.hpp"
#include "fuzz/kernel_generator.hpp"

#include <tack/tack.hpp>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {
using tack::DType;
using namespace tack::fuzz;

using Bits = std::vector<std::uint64_t>;  // one array's elements, as bits of its dtype

// ---- inputs -------------------------------------------------------------------

struct Inputs {
  Bits arrays[5];
};

std::uint64_t mask_to(DType t, std::uint64_t v) {
  int w = tack::dtype_bits(t);
  return w >= 64 ? v : v & ((std::uint64_t{1} << w) - 1);
}
std::uint64_t fbits(DType t, double v) {
  return t == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v)) : std::bit_cast<std::uint64_t>(v);
}

Inputs make_inputs(const Program& p) {
  std::mt19937_64 rng(p.seed ^ 0xD1B54A32D192ED03ull);
  auto u = [&](std::uint64_t n) { return rng() % n; };
  Inputs in;
  for (int a = 0; a < 5; ++a) {
    DType t = p.arrays[a];
    for (std::int64_t j = 0; j < p.n; ++j) {
      std::uint64_t b;
      if (a == 4 && tack::is_float(t)) {
        b = fbits(t, static_cast<double>(static_cast<int>(u(17)) - 8));  // float atomics: small integers
      } else if (tack::is_float(t) && !p.fp_contract && u(100) < 50) {
        // The no-contract mode: half the elements with every mantissa bit set at random, so a product is
        // inexact and a fused a*b + c would round differently from the interpreter's.
        const double m = 1.0 + static_cast<double>(rng() >> 11) * 0x1p-53;
        b = fbits(t, std::ldexp(u(2) ? m : -m, static_cast<int>(u(9)) - 4));
      } else if (tack::is_float(t)) {
        bool f32 = t == DType::F32;
        const double edges[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0, 0.5,
                                f32 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min(),
                                f32 ? -std::numeric_limits<float>::min() * 0.75 : -std::numeric_limits<double>::min() * 0.75,
                                f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max(),
                                f32 ? std::numeric_limits<float>::lowest() : std::numeric_limits<double>::lowest(),
                                3e9, -2.5, 300.5, 65536.0};
        if (u(100) < 40) b = fbits(t, edges[u(std::size(edges))]);
        else if (u(2)) b = fbits(t, static_cast<double>(static_cast<int>(u(41)) - 20));
        else b = fbits(t, std::ldexp(static_cast<double>(u(1u << 24)) - (1 << 23), static_cast<int>(u(60)) - 40));
      } else {
        int w = tack::dtype_bits(t);
        std::uint64_t smin = std::uint64_t{1} << (w - 1);
        const std::uint64_t edges[] = {0, 1, ~std::uint64_t{0}, smin, smin - 1, 2, 7};
        if (u(100) < 40) b = edges[u(std::size(edges))];
        else if (u(2)) b = static_cast<std::uint64_t>(static_cast<std::int64_t>(u(41)) - 20);
        else b = rng();
        b = mask_to(t, b);
      }
      in.arrays[a].push_back(b);
    }
  }
  return in;
}

// ---- moving bits to and from devices ----------------------------------------------

template <class F>
decltype(auto) with_type(DType t, F&& f) {
  switch (t) {
    case DType::I8: return f(std::int8_t{});
    case DType::U8: return f(std::uint8_t{});
    case DType::I16: return f(std::int16_t{});
    case DType::U16: return f(std::uint16_t{});
    case DType::I32: return f(std::int32_t{});
    case DType::U32: return f(std::uint32_t{});
    case DType::I64: return f(std::int64_t{});
    case DType::U64: return f(std::uint64_t{});
    case DType::F32: return f(float{});
    default: return f(double{});
  }
}

template <class T>
T from_bits(std::uint64_t b) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(static_cast<std::uint32_t>(b));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(b);
  else return static_cast<T>(b);
}
template <class T>
std::uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(v);
  else return mask_to(tack::dtype_of<T>, static_cast<std::uint64_t>(v));
}

tack::Array upload(const tack::Device& d, DType t, const Bits& bits) {
  return with_type(t, [&]<class T>(T) {
    std::vector<T> v;
    for (auto b : bits) v.push_back(from_bits<T>(b));
    return d.from_host(v);
  });
}
Bits download(const tack::Array& a) {
  return with_type(a.dtype(), [&]<class T>(T) {
    Bits out;
    for (T v : a.to_host<T>()) out.push_back(to_bits(v));
    return out;
  });
}

std::string show(DType t, std::uint64_t b) {
  if (!tack::is_float(t)) return value_text(t, b);
  char buf[80];
  double v = t == DType::F32 ? std::bit_cast<float>(static_cast<std::uint32_t>(b)) : std::bit_cast<double>(b);
  std::snprintf(buf, sizeof buf, "%.17g (%a)", v, v);
  return buf;
}

// ---- running and comparing -------------------------------------------------------

struct Outcome {
  std::optional<std::string> error;  // the exception a backend raised, if any
  bool hang = false;                 // error is a wait that ran past TACK_WAIT_TIMEOUT_S
  Bits arrays[5];
};

Outcome run_on(const tack::Device& d, const tack::Kernel& k, const Program& p, const Inputs& in) {
  Outcome o;
  try {
    tack::Array arr[5];
    for (int a = 0; a < 5; ++a) arr[a] = upload(d, p.arrays[a], in.arrays[a]);
    with_type(p.scalar, [&]<class T>(T) {
      const tack::KernelArg args[] = {arr[0], arr[1], arr[2], arr[3], arr[4], tack::KernelArg(from_bits<T>(p.scalar_bits))};
      k.launch(args);
    });
    for (int a = 0; a < 5; ++a) o.arrays[a] = download(arr[a]);
  } catch (const tack::BackendError& e) {
    o.error = e.what();
    // docs/reliability.md, Waits: the one BackendError a kernel that never ends gives.
    o.hang = o.error->find("(TACK_WAIT_TIMEOUT_S)") != std::string::npos;
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

bool same(DType t, std::uint64_t a, std::uint64_t b) {
  if (t == DType::F32) {
    float x = std::bit_cast<float>(static_cast<std::uint32_t>(a)), y = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  } else if (t == DType::F64) {
    double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  }
  return a == b;
}

const char* kArrayNames[5] = {"out0", "out1", "in0", "in1", "at0"};

// Empty when the two agree; else a description of the differences. (A hang is
// told apart before: it is no difference of results.)
std::string differences(const Program& p, const Outcome& ref, const Outcome& got, const std::string& backend) {
  if (ref.error || got.error) {
    if (ref.error && got.error) return {};  // both refused the kernel alike
    return "interp: " + ref.error.value_or("ran") + "\n" + backend + ": " + got.error.value_or("ran") + "\n";
  }
  std::string msg;
  for (int a = 0; a < 5; ++a)
    for (std::size_t j = 0; j < ref.arrays[a].size(); ++j)
      if (!same(p.arrays[a], ref.arrays[a][j], got.arrays[a][j]))
        msg += "  " + std::string(kArrayNames[a]) + "[" + std::to_string(j) + "]: interp " + show(p.arrays[a], ref.arrays[a][j]) +
               ", " + backend + " " + show(p.arrays[a], got.arrays[a][j]) + "\n";
  return msg;
}

struct Backend {
  std::string name;
  tack::Device dev;
  std::int64_t every = 1;  // runs seeds divisible by this (see main)
  double seconds = 0;
  int runs = 0;
};

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}
double env_seconds(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : fallback;
}

// ---- edits: the shrinker's steps, replayable in another process -----------------

// The k-th candidate edit of one kind, applied in place; false when there are
// fewer than k + 1 candidates. Kinds: 0 drop a statement; 1 replace an
// if_/for_range/while_ by its body; 2 replace an expression by a zero constant;
// 3 replace an expression by one of its operands of the same dtype.
struct Edit {
  int kind;
  int k;
  int seen = 0;
};

// The edits a shrunk program is made of, in order, from the seed's program:
// a child process (--check) rebuilds a candidate from its seed and these.
using Path = std::vector<std::pair<int, int>>;

Expr zero_of(DType t) {
  Expr z;
  z.type = t;
  if (t == DType::Bool) {  // false: 0 != 0
    Expr c;
    c.type = DType::I32;
    z.op = Op::Ne;
    z.kids = {c, c};
  }
  return z;
}

bool edit_expr(Expr& x, Edit& ed) {
  bool is_zero_const = x.op == Op::Const && x.bits == 0;
  if (ed.kind == 2 && !is_zero_const && !(x.type == DType::Bool && x.op == Op::Ne && x.kids[0].op == Op::Const) &&
      ed.seen++ == ed.k) {
    x = zero_of(x.type);
    return true;
  }
  if (ed.kind == 3) {
    for (auto& kid : x.kids)  // each operand in turn: a | b may keep b
      if (kid.type == x.type && ed.seen++ == ed.k) {
        Expr keep = kid;
        x = std::move(keep);
        return true;
      }
  }
  for (auto& kid : x.kids)
    if (edit_expr(kid, ed)) return true;
  return false;
}

bool edit_stmts(std::vector<Stmt>& b, Edit& ed) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (ed.kind == 0 && ed.seen++ == ed.k) {
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    Stmt& s = b[i];
    bool compound = s.kind == StmtKind::If || s.kind == StmtKind::For || s.kind == StmtKind::While;
    if (ed.kind == 1 && compound && ed.seen++ == ed.k) {
      std::vector<Stmt> inner = std::move(s.body);
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(i), inner.begin(), inner.end());
      return true;
    }
    if (ed.kind >= 2) {
      bool uses_b = s.kind == StmtKind::AtomicShared || s.kind == StmtKind::AtomicPrivate;
      bool uses_c = s.kind == StmtKind::AtomicPrivate && s.aop == AtomicOp::Cas;
      bool uses_a = s.kind != StmtKind::AtomicPrivate;
      if ((uses_a && edit_expr(s.a, ed)) || (uses_b && edit_expr(s.b, ed)) || (uses_c && edit_expr(s.c, ed))) return true;
    }
    if (edit_stmts(s.body, ed) || edit_stmts(s.else_body, ed)) return true;
  }
  return false;
}

bool apply_path(Program& p, const Path& path) {
  for (auto [kind, k] : path) {
    Edit ed{kind, k};
    if (!edit_stmts(p.body, ed)) return false;
  }
  return true;
}

std::string path_text(const Path& path) {
  std::string s;
  for (auto [kind, k] : path) s += (s.empty() ? "" : ",") + std::to_string(kind) + ":" + std::to_string(k);
  return s;
}

std::optional<Path> parse_path(const std::string& s) {
  Path path;
  for (std::size_t at = 0; at < s.size();) {
    char* end = nullptr;
    const long kind = std::strtol(s.c_str() + at, &end, 10);
    if (*end != ':') return std::nullopt;
    const long k = std::strtol(end + 1, &end, 10);
    path.emplace_back(static_cast<int>(kind), static_cast<int>(k));
    at = static_cast<std::size_t>(end - s.c_str());
    if (at < s.size() && s[at++] != ',') return std::nullopt;
  }
  return path;
}

// Greedy: each candidate edit of each kind, kept while the failure persists,
// until no edit is kept or `limit_s` has passed. `path` grows by the kept edits.
Program shrink(Program cur, Path& path, const std::function<bool(const Program&, const Path&)>& still_fails,
               double limit_s) {
  auto start = std::chrono::steady_clock::now();
  int tries = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (int kind = 0; kind < 4; ++kind) {
      for (int k = 0;; ++k) {
        if (++tries > 600 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s)
          return cur;
        Program c = cur;
        Edit ed{kind, k};
        if (!edit_stmts(c.body, ed)) break;
        Path cp = path;
        cp.emplace_back(kind, k);
        if (!well_formed(c) || !still_fails(c, cp)) continue;
        cur = std::move(c);
        path = std::move(cp);
        progress = true;
        --k;  // the next candidate now has this number
      }
    }
  }
  return cur;
}

std::string show_inputs(const Program& p, const Inputs& in) {
  std::string s;
  for (int a = 0; a < 5; ++a) {
    s += "  " + std::string(kArrayNames[a]) + " (" + short_type(p.arrays[a]) + ") = {";
    for (std::size_t j = 0; j < in.arrays[a].size(); ++j) s += (j ? ", " : "") + value_text(p.arrays[a], in.arrays[a][j]);
    s += "}\n";
  }
  return s;
}

// ---- hangs ------------------------------------------------------------------------
//
// A kernel that never ends must fail its seed, not stop the run. The queued
// backends' waits (opencl, cuda, hip, level_zero, metal) are bounded by
// TACK_WAIT_TIMEOUT_S, which main sets to kDefaultWaitS when the environment
// leaves it unset; a wait past it is a hang. interp and cpu run a launch on the
// calling thread, which no wait bounds, so a watchdog thread declares a hang
// when one run (its compilation included) lasts past run_limit_s(). After a
// hang this process is spent: PoCL's worker threads stay in the kernel for
// good, a cpu launch never returns. So a hang is shrunk by running each
// candidate in a child process (this program with --check, killed at a
// deadline), and the seeds after it run in another child.

constexpr double kDefaultWaitS = 10;

// Seconds a queued wait may take here (TACK_WAIT_TIMEOUT_S; 0: unbounded).
double wait_bound_s() { return std::max(0.0, env_seconds("TACK_WAIT_TIMEOUT_S", 0)); }

// The most one run (upload, compile, launch, download) may take before the
// watchdog calls it a hang (TACK_FUZZ_RUN_S): by default well past the wait
// bound, since compiling comes on top.
double run_limit_s() {
  const double w = wait_bound_s();
  return env_seconds("TACK_FUZZ_RUN_S", 60 + 3 * (w > 0 ? w : kDefaultWaitS));
}

// The options of the run, to start this program again with.
struct Options {
  std::int64_t start = 1, count = 200;
  bool verbose = false, single = false, all_backends = false, fp_contract = true;
  bool autodiff = false;  // --autodiff: the differentiation mode (autodiff_check.hpp)
};

struct Child {
  int status = -1;      // the exit status, -1 when killed or not started
  bool killed = false;  // ran past its deadline
  std::string out;      // stdout and stderr, when captured
};

// Runs this program with `args`. capture: its output is read into Child::out
// and it is killed after limit_s; else it shares this process's stdout and
// stderr and is waited for without a limit (each of its runs is bounded).
Child run_self(const std::vector<std::string>& args, bool capture, double limit_s) {
  Child c;
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2] = {-1, -1};
  if (capture && pipe(fds) != 0) return c;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture) {
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
  }
  std::string exe = "/proc/self/exe";
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (capture) close(fds[1]);
  if (spawned != 0) {
    if (capture) close(fds[0]);
    c.out = "(posix_spawn failed)";
    return c;
  }
  if (capture) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        c.killed = true;
        kill(pid, SIGKILL);
        break;
      }
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // the child closed its end: it has exited
      c.out.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!c.killed && WIFEXITED(status)) c.status = WEXITSTATUS(status);
  return c;
}

// --check's exit statuses.
enum CheckStatus { kAgree = 0, kDiffer = 1, kHang = 2, kRefused = 3 };

std::vector<std::string> check_args(const Options& o, std::int64_t seed, const std::string& backend, const Path& path) {
  std::vector<std::string> a{"--check=" + std::to_string(seed), "--backend=" + backend};
  if (!path.empty()) a.push_back("--edits=" + path_text(path));
  if (!o.fp_contract) a.push_back("--no-contract");
  return a;
}

// Whether the candidate hangs in a fresh process; `message` gets what it said.
bool hangs_in_child(const Options& o, std::int64_t seed, const std::string& backend, const Path& path,
                    std::string& message) {
  // A backstop: the child's own watchdog ends a run past run_limit_s(); it also starts its devices.
  const double limit = 2 * run_limit_s() + 60;
  Child c = run_self(check_args(o, seed, backend, path), true, limit);
  while (!c.out.empty() && c.out.back() == '\n') c.out.pop_back();
  char buf[96];
  std::snprintf(buf, sizeof buf, "(the child process was killed after %g s)", limit);
  message = c.killed ? (c.out.empty() ? "" : c.out + "\n") + buf : c.out;
  return c.killed || c.status == kHang;
}

std::atomic<int> g_failures{0};
GeneratorLimits g_limits;  // what every backend of the run accepts (set up once, before any seed)

// Reports a hang found in this process: confirms it in a fresh one, shrinks it
// (each candidate in a child), prints the kernel, then runs the seeds after
// `seed` in a child, and ends this process, whose backend is still busy.
[[noreturn]] void report_hang(const Options& o, std::int64_t seed, const Path& path, const std::string& backend,
                              const std::string& message) {
  // One report per process: the watchdog may fire while the main thread reports (its run still counts).
  static std::atomic<bool> entered{false};
  if (entered.exchange(true))
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  std::printf("[fuzz] seed %lld: %s hangs%s:\n  %s\n", static_cast<long long>(seed), backend.c_str(),
              path.empty() ? "" : " (a candidate of the shrinker)", message.c_str());
  std::string last;
  const bool reproduced = hangs_in_child(o, seed, backend, path, last);
  if (!reproduced) {
    // The bound is generous (the kernels run in microseconds), but a machine can be loaded past it.
    std::printf(
        "[fuzz] seed %lld: it finished in a fresh process, so this was no hang (a machine loaded past "
        "TACK_WAIT_TIMEOUT_S=%g?); not counted as a failure. The fresh process said:\n%s\n",
        static_cast<long long>(seed), wait_bound_s(), last.empty() ? "  (nothing)" : last.c_str());
  } else {
    ++g_failures;
    const double limit = env_seconds("TACK_FUZZ_SHRINK_S", 300);
    std::printf(
        "[fuzz] seed %lld: the hang persists in a fresh process; shrinking it, each candidate in a child "
        "process (at most %g s)...\n",
        static_cast<long long>(seed), limit);
    std::fflush(stdout);
    Program p = generate(static_cast<std::uint64_t>(seed), g_limits, o.fp_contract);
    apply_path(p, path);
    Path small_path = path;
    Program small = shrink(
        p, small_path,
        [&](const Program&, const Path& cp) {
          std::string said;
          if (!hangs_in_child(o, seed, backend, cp, said)) return false;
          last = said;
          return true;
        },
        limit);
    std::printf(
        "---- shrunk kernel that hangs on %s (reproduce with: tack_fuzz --seed=%lld%s; the shrinker's edits: "
        "--edits=%s) ----\n%s",
        backend.c_str(), static_cast<long long>(seed), o.fp_contract ? "" : " --no-contract",
        path_text(small_path).c_str(), to_cpp(small).c_str());
    std::printf("---- inputs ----\n%s", show_inputs(small, make_inputs(small)).c_str());
    std::printf("---- the hang ----\n%s\n", last.c_str());
  }
  std::fflush(stdout);
  int rest = 0;
  const std::int64_t next = seed + 1, end = o.start + o.count;
  if (!o.single && next < end) {
    std::printf(
        "[fuzz] seeds %lld..%lld continue in a fresh process (this one's %s is still busy with the hung "
        "kernel)\n",
        static_cast<long long>(next), static_cast<long long>(end - 1), backend.c_str());
    std::vector<std::string> args{"--start=" + std::to_string(next), "--seeds=" + std::to_string(end - next)};
    if (o.verbose) args.push_back("--print");
    if (o.all_backends) args.push_back("--all");
    if (!o.fp_contract) args.push_back("--no-contract");
    rest = run_self(args, false, 0).status;
  }
  std::fflush(stdout);
  _exit(g_failures > 0 || rest != 0 ? 1 : 0);
}

// Declares a hang when one run in this process lasts past run_limit_s(): the
// only bound of interp's and cpu's launches, and of any compilation.
class Watchdog {
 public:
  struct Run {
    std::int64_t seed = 0;
    Path path;
    std::string backend;
  };
  // on_hang is called on the watchdog's thread, while the run still hangs; it must end the process.
  Watchdog(double limit_s, std::function<void(const Run&)> on_hang)
      : limit_s_(limit_s), on_hang_(std::move(on_hang)), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Watches the run for as long as the returned guard lives.
  auto watch_run(Run r) {
    {
      std::lock_guard<std::mutex> lock(m_);
      run_ = std::move(r);
      since_ = std::chrono::steady_clock::now();
      active_ = true;
    }
    auto stop = [this](void*) {
      std::lock_guard<std::mutex> lock(m_);
      active_ = false;
    };
    return std::unique_ptr<void, decltype(stop)>(this, stop);
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!quit_) {
      cv_.wait_for(lock, std::chrono::milliseconds(500));
      if (!active_ || std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count() <= limit_s_)
        continue;
      Run r = run_;
      lock.unlock();
      on_hang_(r);
      return;
    }
  }

  double limit_s_;
  std::function<void(const Run&)> on_hang_;
  std::mutex m_;
  std::condition_variable cv_;
  bool quit_ = false;
  bool active_ = false;
  Run run_;
  std::chrono::steady_clock::time_point since_;
  std::thread thread_;  // last: starts after the members it reads
};

// What the run checks: the interpreter, the other backends, and what all accept.
struct Setup {
  tack::Device ref;
  std::vector<Backend> backends;
  std::vector<std::string> skipped;  // "[fuzz] skipping ..." lines
};

Setup set_up(bool all_backends) {
  Setup s;
  s.ref = tack::device("interp");
  GeneratorLimits& limits = g_limits;
  limits = GeneratorLimits{s.ref.capabilities().supported_dtypes, s.ref.capabilities().supported_atomic_dtypes,
                           s.ref.capabilities().supports_workgroups};
  // The generator makes numeric arrays and scalars (bool is only the type of its conditions);
  // bool arrays are checked across backends by conformance/bool_arrays.cpp.
  std::erase(limits.dtypes, DType::Bool);
  auto keep_common = [](std::vector<DType>& mine, const std::vector<DType>& theirs) {
    std::erase_if(mine, [&](DType t) { return std::find(theirs.begin(), theirs.end(), t) == theirs.end(); });
  };
  for (const std::string& name : tack::backend_names()) {
    if (name == "interp") continue;
    try {
      tack::Device d = tack::device(name);
      keep_common(limits.dtypes, d.capabilities().supported_dtypes);
      keep_common(limits.atomic_dtypes, d.capabilities().supported_atomic_dtypes);
      limits.workgroups = limits.workgroups && d.capabilities().supports_workgroups;
      // PoCL builds take most of the run (~0.1-0.7 s per kernel uncached on
      // 2 cores), so by default OpenCL checks every 5th seed and the CPU every
      // seed; TACK_FUZZ_EVERY_<NAME>=1 (e.g. TACK_FUZZ_EVERY_OPENCL) checks all.
      std::string var = "TACK_FUZZ_EVERY_";
      for (char c : name) var += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::int64_t every = std::max<std::int64_t>(1, env_int(var.c_str(), name == "opencl" && !all_backends ? 5 : 1));
      s.backends.push_back({name, d, every});
    } catch (const tack::BackendUnavailable& e) {
      s.skipped.push_back("[fuzz] skipping backend '" + name + "': " + e.what());
    }
  }
  std::erase(limits.atomic_dtypes, DType::Bool);
  return s;
}

// --check: one candidate (the seed's program with the shrinker's edits) on
// interp and one backend, in a child process; the verdict is the exit status.
[[noreturn]] void check_main(const Options& o, std::int64_t seed, const std::string& backend, const Path& path) {
  int status = kRefused;
  try {
    Setup s = set_up(true);
    Program p = generate(static_cast<std::uint64_t>(seed), g_limits, o.fp_contract);
    const Backend* b = nullptr;
    for (const Backend& c : s.backends)
      if (c.name == backend) b = &c;
    if (!apply_path(p, path)) {
      std::printf("the edits %s do not apply to seed %lld\n", path_text(path).c_str(), static_cast<long long>(seed));
    } else if (backend != "interp" && !b) {
      std::printf("no backend '%s' here\n", backend.c_str());
    } else {
      Inputs in = make_inputs(p);
      tack::Kernel k = make_kernel(p);
      // The parent kills this process at a later deadline; this watchdog says so sooner, and what ran.
      Watchdog watchdog(run_limit_s(), [](const Watchdog::Run& run) {
        std::printf("%s: one run has taken more than %g s (TACK_FUZZ_RUN_S)\n", run.backend.c_str(), run_limit_s());
        std::fflush(stdout);
        _exit(kHang);
      });
      Outcome r;
      {
        auto guard = watchdog.watch_run({seed, path, "interp"});
        r = run_on(s.ref, k, p, in);
      }
      if (r.error) {
        std::printf("interp: %s\n", r.error->c_str());
      } else if (!b) {
        status = kAgree;
      } else {
        auto guard = watchdog.watch_run({seed, path, b->name});
        Outcome got = run_on(b->dev, k, p, in);
        const std::string diff = got.hang ? "" : differences(p, r, got, b->name);
        std::printf("%s", got.hang ? (*got.error + "\n").c_str() : diff.c_str());
        status = got.hang ? kHang : diff.empty() ? kAgree : kDiffer;
      }
    }
  } catch (const std::exception& e) {
    std::printf("%s\n", e.what());
  }
  std::fflush(stdout);
  _exit(status);  // no destructor: a backend's may wait for the kernel that hangs
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.start = env_int("TACK_FUZZ_START", 1);
  o.count = env_int("TACK_FUZZ_SEEDS", 200);
  std::optional<std::int64_t> check_seed;  // --check=SEED (internal: a child of the shrinker)
  std::string check_backend;
  Path check_path;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    auto value = [&](const char* prefix) { return std::strtoll(arg.c_str() + std::strlen(prefix), nullptr, 10); };
    if (arg.rfind("--seed=", 0) == 0) { o.start = value("--seed="); o.count = 1; o.verbose = true; o.single = true; }
    else if (arg.rfind("--start=", 0) == 0) o.start = value("--start=");
    else if (arg.rfind("--seeds=", 0) == 0) o.count = value("--seeds=");
    else if (arg == "--print") o.verbose = true;
    else if (arg == "--all") o.all_backends = true;
    else if (arg == "--no-contract") o.fp_contract = false;
    else if (arg == "--autodiff") o.autodiff = true;
    else if (arg.rfind("--check=", 0) == 0) check_seed = value("--check=");
    else if (arg.rfind("--backend=", 0) == 0) check_backend = arg.substr(10);
    else if (arg.rfind("--edits=", 0) == 0 && parse_path(arg.substr(8))) check_path = *parse_path(arg.substr(8));
    else {
      std::fprintf(stderr,
                   "usage: %s [--seed=N | --start=S --seeds=K] [--print] [--all] [--no-contract | --autodiff]\n"
                   "       %s --check=SEED --backend=NAME [--edits=KIND:K,...] [--no-contract]   (one shrinker "
                   "candidate: exit 0 agree, 1 differ, 2 hang, 3 refused)\n",
                   argv[0], argv[0]);
      return 2;
    }
  }
  // Every queued wait is bounded (see "hangs" above); children inherit the bound.
  if (!std::getenv("TACK_WAIT_TIMEOUT_S") || !*std::getenv("TACK_WAIT_TIMEOUT_S")) {
    char v[32];
    std::snprintf(v, sizeof v, "%g", kDefaultWaitS);
    setenv("TACK_WAIT_TIMEOUT_S", v, 1);
  }
  if (check_seed) check_main(o, *check_seed, check_backend, check_path);
  if (o.autodiff) return run_autodiff(o.start, o.count, o.verbose);

  Setup s = set_up(o.all_backends);
  const tack::Device& ref = s.ref;
  std::vector<Backend>& backends = s.backends;
  for (const std::string& line : s.skipped) std::printf("%s\n", line.c_str());
  if (backends.empty()) {
    // Comparing interp with itself would check nothing: ctest shows 77 as skipped.
    std::printf("[fuzz] skipped: no backend besides interp can run here\n");
    return 77;
  }
  std::printf("[fuzz] seeds %lld..%lld against interp on:", static_cast<long long>(o.start),
              static_cast<long long>(o.start + o.count - 1));
  for (const auto& b : backends)
    std::printf(b.every == 1 ? " %s" : " %s (every %lld. seed)", b.name.c_str(), static_cast<long long>(b.every));
  std::printf(g_limits.workgroups ? "; workgroup kernels at seeds divisible by 3" : "; no workgroup kernels");
  std::printf(o.fp_contract ? "" : "; no contraction (float products anywhere)");
  if (wait_bound_s() > 0) std::printf("; waits bounded at %g s", wait_bound_s());
  std::printf("; runs bounded at %g s\n", run_limit_s());

  Watchdog watchdog(run_limit_s(), [&](const Watchdog::Run& r) {
    char what[200];
    std::snprintf(what, sizeof what,
                  "one run (upload, compilation, launch, download) has taken more than %g s (the fuzzer's watchdog)",
                  run_limit_s());
    report_hang(o, r.seed, r.path, r.backend, what);
  });
  // Runs the program on a device under the watchdog; a hang does not return.
  auto run_watched = [&](const Backend* b, const tack::Kernel& k, const Program& p, const Inputs& in, std::int64_t seed,
                         const Path& path) {
    auto guard = watchdog.watch_run({seed, path, b ? b->name : "interp"});
    Outcome out = run_on(b ? b->dev : ref, k, p, in);
    if (out.hang) report_hang(o, seed, path, b ? b->name : "interp", *out.error);
    return out;
  };

  auto t0 = std::chrono::steady_clock::now();
  double interp_seconds = 0;
  for (std::int64_t seed = o.start; seed < o.start + o.count; ++seed) {
    Program p = generate(static_cast<std::uint64_t>(seed), g_limits, o.fp_contract);
    Inputs in = make_inputs(p);
    if (o.verbose) std::printf("%s", to_cpp(p).c_str());
    tack::Kernel k = make_kernel(p);
    auto ti = std::chrono::steady_clock::now();
    Outcome r = run_watched(nullptr, k, p, in, seed, {});
    interp_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - ti).count();
    if (r.error) {
      std::printf("[fuzz] seed %lld: the interpreter refused a generated kernel (a generator bug):\n%s\n%s",
                  static_cast<long long>(seed), r.error->c_str(), to_cpp(p).c_str());
      ++g_failures;
      continue;
    }
    for (Backend& b : backends) {
      if (!o.single && seed % b.every != 0) continue;
      auto tb = std::chrono::steady_clock::now();
      Outcome got = run_watched(&b, k, p, in, seed, {});
      b.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
      ++b.runs;
      std::string diff = differences(p, r, got, b.name);
      if (diff.empty()) continue;
      ++g_failures;
      std::printf("[fuzz] seed %lld: %s disagrees with interp; shrinking...\n", static_cast<long long>(seed),
                  b.name.c_str());
      std::fflush(stdout);
      // A candidate that hangs ends the shrinking: the hang is reported instead, after the mismatch.
      Path path;
      Program small = shrink(
          p, path,
          [&](const Program& c, const Path& cp) {
            tack::Kernel ck = make_kernel(c);
            Outcome cr = run_watched(nullptr, ck, c, in, seed, cp);
            if (cr.error) return false;  // a shrunk candidate the interpreter refuses is no reproducer
            {
              auto guard = watchdog.watch_run({seed, cp, b.name});
              Outcome cg = run_on(b.dev, ck, c, in);
              if (cg.hang) {
                std::printf(
                    "[fuzz] seed %lld: while shrinking, a candidate hangs on %s; the mismatch, unshrunk:\n%s"
                    "---- differences ----\n%s\n",
                    static_cast<long long>(seed), b.name.c_str(), to_cpp(p).c_str(), diff.c_str());
                report_hang(o, seed, cp, b.name, *cg.error);
              }
              return !differences(c, cr, cg, b.name).empty();
            }
          },
          env_seconds("TACK_FUZZ_SHRINK_S", 120));
      std::printf("---- shrunk kernel (reproduce with: tack_fuzz --seed=%lld%s) ----\n%s", static_cast<long long>(seed),
                  o.fp_contract ? "" : " --no-contract", to_cpp(small).c_str());
      std::printf("---- inputs ----\n%s", show_inputs(small, in).c_str());
      tack::Kernel sk = make_kernel(small);
      Outcome sr = run_watched(nullptr, sk, small, in, seed, path);
      std::string small_diff =
          sr.error ? "" : differences(small, sr, run_watched(&b, sk, small, in, seed, path), b.name);
      std::printf("---- differences ----\n%s\n", (small_diff.empty() ? diff : small_diff).c_str());
      std::fflush(stdout);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[fuzz] %lld seeds, %d failures, %.1f s (interp %.1f s", static_cast<long long>(o.count),
              g_failures.load(), secs, interp_seconds);
  for (const auto& b : backends) std::printf(", %s %d kernels %.1f s", b.name.c_str(), b.runs, b.seconds);
  std::printf(")\n");
  return g_failures ? 1 : 0;
}
