// The CPU backend: compile through the Jit (or load object code from the disk
// cache), then run [0, count) serially on the calling thread or fanned out over
// the pool, as the variant's measured cost decides (docs/cpu-threading.md).
// Workgroup kernels arrive lowered to loops over their work-items (the cpu
// row's recipe asks the pipeline for passes/lower_workgroups.hpp); then
// [0, count) is a range of groups. The row has no emitter: the compiler plugin
// emits LLVM IR from the lowered kernel itself.
#include "backends/cpu/cpu_backend.hpp"

#include "abi/pack_layout.hpp"
#include "analysis/private_adds.hpp"
#include "backends/cpu/core_count.hpp"
#include "backends/cpu/front_entry.hpp"
#include "backends/cpu/host_cpu_name.hpp"
#include "backends/cpu/jit.hpp"
#include "backends/cpu/keep_freed_pages.hpp"
#include "backends/cpu/launch_policy.hpp"
#include "backends/cpu/private_adds.hpp"
#include "backends/cpu/row_blocks.hpp"
#include "backends/cpu/thread_pool.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "runtime/cache/load_or_build.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/diagnostics/warnings.hpp"
#include "runtime/memory/host_buffer.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <dlfcn.h>

#include <array>
#include <chrono>
#include <cstring>
#include <mutex>

namespace tack::backends::cpu {
using namespace tack::runtime;
namespace {

// Bump when generated code changes meaning for the same typed IR, so old cache files miss.
// 2: position-independent, small code model; 3: the SIMD path's own pass pipeline (llvm/pass_pipeline.hpp);
// 4: plain adds where analysis::plan_row_scatter allows them; 5: unmasked gathers and scatters, rows of plain adds
// carried from gang to gang (codegen/llvm/llvm_gang_row_adds.cpp); 6: plain adds into private copies
// (analysis/private_adds.hpp), a cheap if_ side run with no branch on its lanes, no cmov-to-branch conversion;
// 7: float min/max folds probed over integer keys first (codegen/llvm/llvm_min_max_folds.cpp), fields of records
// read from one block load and whole records added as short vectors (llvm_gang_memory.cpp), 32-bit i64 Vars
// (analysis/narrow_vars.hpp); 8: keyed by ir::to_key_text (shared values written once), and front-index entries
// (runtime/kernels/front_index.hpp), a record add's own source records addressed from lane 0's
constexpr const char* kCpuCacheFormat = "tack-cpu-object-8";
// The most bytes of arrays a launch gives each thread copies of (analysis/private_adds.hpp): a histogram of 8192
// bins, k-means' centre sums. Each launch zeroes and adds up one copy per chunk, small enough for a core's L1/L2.
constexpr std::size_t kPrivateAddBytes = std::size_t{32} << 10;
constexpr int kMaxPackSlots = kMaxKernelParams * 6;

using ChunkFn = void (*)(const std::uint64_t* pack, std::int64_t start, std::int64_t end);

struct CpuVariant final : CompiledVariant {
  ChunkFn chunk = nullptr;
  std::shared_ptr<void> code;  // keeps chunk mapped
  abi::PackLayout layout;
  mutable cpu::LaunchPolicy policy;
  // analysis::RowScatter::span where the code adds into some array plainly (the launch runs in two colors of
  // row blocks); -1 where it does not.
  std::int64_t scatter_span = -1;
  std::vector<int> private_adds;  // the parameters whose adds go into private copies (analysis/private_adds.hpp)
};

struct ChunkContext {
  ChunkFn chunk;
  const std::uint64_t* pack;
  std::int64_t offset;
  PrivateAdds* privates = nullptr;  // where the chunk adds into copies of its own
  std::size_t pack_slots = 0;
  bool launching_thread = false;  // with privates: the chunks that run serially on the launch's thread share one copy
};

// TACK_CPU_SIMD, read at each compile (tests switch it between kernels).
bool simd_enabled() { return support::env_flag("TACK_CPU_SIMD"); }

// glibc's vector math library, loaded once into the process's global namespace, so that the JIT and the
// object loader (which look symbols up there) find its functions; false where it is missing or older than
// glibc 2.35, which added most of the functions Tack calls (atan2 stands for them). Loading it takes about
// 0.15 ms, so only a kernel that calls one asks.
bool vector_math_loaded() {
#if defined(__linux__) && defined(__x86_64__)
  static const bool loaded = [] {
    void* library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
    return library && dlsym(library, "_ZGVbN4vv_atan2f");
  }();
  return loaded;
#else
  return false;
#endif
}

bool calls_transcendentals(const ir::Kernel& typed) {
  struct Finder final : ir::IRVisitor {
    bool found = false;
    using ir::IRVisitor::visit;
    void visit(const ir::Op* node) override {
      found = found || ir::is_transcendental(node->op);
      if (!found) ir::IRVisitor::visit(node);
    }
  } finder;
  finder.visit(typed.body);
  return finder.found;
}

// The options a compile of `typed` uses (the SIMD path's, where TACK_CPU_SIMD leaves it on).
cpu::CodegenOptions codegen_options(const ir::Kernel& typed, bool noalias, bool private_adds) {
  const bool simd = simd_enabled();
  const bool vector_math = simd && calls_transcendentals(typed) && vector_math_loaded();
  return cpu::CodegenOptions{.noalias = noalias,
                             .private_adds = private_adds && noalias,
                             .simd = simd,
                             .vector_math = vector_math,
                             .pinned_x86_features = {}};
}

std::string front_entry_of(const CpuVariant& v, bool vector_math, const std::string& symbol,
                           const std::string& object) {
  return cpu::write_front_entry({v.layout, v.scatter_span, v.private_adds, vector_math, symbol, object});
}

void run_chunk(void* context, std::int64_t begin, std::int64_t end) {
  auto* c = static_cast<const ChunkContext*>(context);
  if (c->privates) {
    std::array<std::uint64_t, kMaxPackSlots> pack;
    c->privates->claim(c->offset + begin, c->pack, c->pack_slots, pack.data(), c->launching_thread);
    c->chunk(pack.data(), c->offset + begin, c->offset + end);
  } else {
    c->chunk(c->pack, c->offset + begin, c->offset + end);
  }
}

// One color of a launch whose adds into some array are plain (analysis/row_scatter.hpp): block b of a
// participant's range of blocks is the launch's row block 2 b + color, less what already ran.
struct ColorContext {
  ChunkContext* chunk;
  cpu::RowBlocks blocks;
  std::int64_t outer, row_length, color, done;
};

void run_color_blocks(void* context, std::int64_t begin, std::int64_t end) {
  auto* c = static_cast<const ColorContext*>(context);
  for (std::int64_t b = begin; b < end; ++b) {
    const std::int64_t block = 2 * b + c->color;
    const std::int64_t first = std::max(c->blocks.first_row(block) * c->row_length, c->done);
    const std::int64_t last = c->blocks.end_row(block, c->outer) * c->row_length;
    if (first < last) run_chunk(c->chunk, first, last);
  }
}

// Runs [done, l.count) so that no two threads reach one element through a plain add (cpu/row_blocks.hpp);
// serially where the launch is not worth a fan-out or too short for two blocks.
void run_colored(const Launch& l, std::int64_t span, std::int64_t done, cpu::ThreadPool& pool, bool fan_out,
                 ChunkContext& ctx) {
  const cpu::RowBlocks blocks = cpu::row_blocks(l.outer, span, pool.threads());
  if (!fan_out || blocks.blocks < 2 || l.count % l.outer != 0) {
    run_chunk(&ctx, done, l.count);
    return;
  }
  ColorContext color{&ctx, blocks, l.outer, l.count / l.outer, 0, done};
  for (color.color = 0; color.color < 2; ++color.color)
    pool.run_range(0, (blocks.blocks - color.color + 1) / 2, 1, run_color_blocks, &color);
}

class CpuBackend final : public Backend {
 public:
  // Nothing of LLVM is made here: a program whose kernels are all in the disk
  // cache never needs it (the first compile makes it).
  explicit CpuBackend(int threads) : Backend(capabilities(threads)), threads_(threads) {}

  static Capabilities capabilities(int threads) {
    Capabilities c = backend_description("cpu").capabilities();
    c.display_name += " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
    c.supports_wrapped_memory = true;
    return c;
  }

  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    return std::make_shared<HostBuffer>(reinterpret_cast<void*>(address), bytes, std::move(keep_alive));
  }

  std::vector<std::pair<std::string, std::string>> about() const override {
    return {{"device", host_cpu_name()},
            {"threads", std::to_string(threads_)},
            {"compiler", "LLVM " TACK_LLVM_VERSION},
            {"target", TACK_LLVM_HOST_TRIPLE}};
  }

  // Memory is not touched at allocation; zeros() clears it over the pool with the
  // same static partition kernels use, so each page is first touched by the
  // thread that will work on it (which places it on that thread's NUMA node).
  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    auto buffer = std::make_shared<HostBuffer>(bytes, false);
    if (zeroed && bytes) {
      struct Clear {
        char* data;
        static void run(void* c, std::int64_t b, std::int64_t e) {
          std::memset(static_cast<Clear*>(c)->data + b, 0, static_cast<std::size_t>(e - b));
        }
      } clear{static_cast<char*>(buffer->host_data())};
      constexpr std::int64_t kParallelClearBytes = std::int64_t{1} << 20;
      cpu::ThreadPool& pool = cpu::global_pool(threads_);
      if (static_cast<std::int64_t>(bytes) >= kParallelClearBytes && pool.threads() > 1)
        pool.run(static_cast<std::int64_t>(bytes), kParallelClearBytes / 4, Clear::run, &clear);
      else
        Clear::run(&clear, 0, static_cast<std::int64_t>(bytes));
    }
    return buffer;
  }

  std::unique_ptr<CompiledVariant> compile(const CompileInput& input) override {
    // The kernel as the pipeline lowered it for this row (workgroups as loops) is what the plugin compiles.
    const ir::Kernel& typed = input.lowered.kernel;
    const std::uint8_t flags = input.key.signature.flags;
    const cpu::CodegenOptions options =
        codegen_options(typed, (flags & kSignatureNoalias) != 0, (flags & kSignaturePrivateAdds) != 0);
    auto v = std::make_unique<CpuVariant>();
    v->layout = abi::pack_layout(typed);
    // The code generator decides the same from the same IR (codegen/llvm/llvm_gen.cpp).
    if (options.noalias) {
      const analysis::RowScatter rows = analysis::plan_row_scatter(typed);
      v->scatter_span = rows.span;
      if (options.private_adds) {
        const std::vector<bool> copies = analysis::plan_private_adds(typed, rows);
        for (std::size_t p = 0; p < copies.size(); ++p)
          if (copies[p]) v->private_adds.push_back(static_cast<int>(p));
      }
    }
    if (v->layout.slots > kMaxPackSlots) throw InvalidArgument("kernel '" + typed.name + "' has too many arguments");
    // The typed, optimized (and for workgroups lowered) IR decides the code; its text is the key, with the target.
    auto make_key = [&, code = ir::to_key_text(typed)] {
      std::string flags = std::string(options.noalias ? "noalias" : "") + (options.simd ? " simd" : "") +
                          (options.vector_math ? " libmvec" : "") + (options.private_adds ? " private-adds" : "");
      return std::optional<CacheKey>(
          CacheKey{kCpuCacheFormat, "llvm", cpu::compiler_plugin_identity(), jit().target_id(), flags, code});
    };
    CompileReport& report = v->report;
    // The entry is "SYM:<chunk symbol>\n<object code>"; the cache has checked its checksum.
    auto load = [&](std::string_view entry, std::string*) -> std::optional<cpu::Jit::Loaded> {
      const std::size_t nl = entry.find('\n');
      if (entry.substr(0, 4) != "SYM:" || nl == std::string_view::npos) return std::nullopt;
      const std::string symbol(entry.substr(4, nl - 4)), object(entry.substr(nl + 1));
      try {
        std::optional<cpu::Jit::Loaded> code = jit().load(object, symbol);
        report.disk = CompileReport::Disk::Hit;
        v->front_entry = front_entry_of(*v, options.vector_math, symbol, object);
        return code;
      } catch (const BackendError& e) {
        warn("cached object code for kernel '" + typed.name + "' did not load (" + e.what() + "); recompiling");
        return std::nullopt;
      }
    };
    auto start = std::chrono::steady_clock::now();
    auto compile = [&](bool caching) {
      if (caching) report.disk = CompileReport::Disk::Miss;
      std::string symbol;
      std::string object = jit().compile(typed, options, &symbol, &report.codegen_ms, &report.compile_ms);
      start = std::chrono::steady_clock::now();
      std::optional<cpu::Jit::Loaded> code = jit().load(object, symbol);
      if (caching) v->front_entry = front_entry_of(*v, options.vector_math, symbol, object);
      return Built<std::optional<cpu::Jit::Loaded>>{std::move(code), caching ? "SYM:" + symbol + "\n" + object : ""};
    };
    std::optional<cpu::Jit::Loaded> code =
        load_or_build<std::optional<cpu::Jit::Loaded>>(DiskCache::global(), make_key, load, compile);
    v->chunk = reinterpret_cast<ChunkFn>(code->entry);
    v->code = std::move(code->image);
    report.load_ms = ms_since(start);
    return v;
  }

  // The front index's key: what selects the code beyond the traced IR and the signature (whose flags carry
  // noalias and the private adds) is the code generator, the host and TACK_CPU_SIMD.
  std::optional<CacheKey> front_key() override {
    return CacheKey{std::string(kCpuCacheFormat) + " front",
                    "llvm",
                    cpu::compiler_plugin_identity(),
                    jit().target_id(),
                    simd_enabled() ? "simd" : "",
                    ""};
  }

  std::unique_ptr<CompiledVariant> restore(std::string_view entry) override {
    std::optional<cpu::FrontEntry> read = cpu::read_front_entry(entry, kMaxPackSlots);
    if (!read) {
      warn("the disk cache's front entry of a CPU kernel is not one this build reads; compiling");
      return nullptr;
    }
    // Code that calls glibc's vector math finds it loaded, as a compile would have loaded it.
    if (read->vector_math && !vector_math_loaded()) return nullptr;
    auto v = std::make_unique<CpuVariant>();
    v->layout = std::move(read->layout);
    v->scatter_span = read->scatter_span;
    v->private_adds = std::move(read->private_adds);
    try {
      const cpu::Jit::Loaded code = jit().load(std::string(read->object), read->symbol);
      v->chunk = reinterpret_cast<ChunkFn>(code.entry);
      v->code = code.image;
    } catch (const BackendError& e) {
      warn("cached object code of a CPU kernel did not load (" + std::string(e.what()) + "); recompiling");
      return nullptr;
    }
    return v;
  }

  void run_host_parallel(std::int64_t count, HostChunkFn fn, void* context) const override {
    cpu::global_pool(threads_).run(count, 1, fn, context);
  }

  // The LLVM IR the plugin makes from the lowered kernel (the row has no emitter of its own).
  std::string source(const ir::Kernel& lowered) override {
    return jit().ir_text(lowered, codegen_options(lowered, true, false));
  }

  void launch(const Launch& l) override {
    const auto& v = static_cast<const CpuVariant&>(*l.variant);
    std::array<std::uint64_t, kMaxPackSlots> pack;
    fill_pack(v, l, pack.data());
    ChunkContext ctx{v.chunk, pack.data(), 0};
    cpu::ThreadPool& pool = cpu::global_pool(threads_);
    if (!v.private_adds.empty()) {
      // One copy for what runs serially on this thread (a sampled prefix, or everything), one per pool participant.
      thread_local PrivateScratch scratch;
      PrivateAdds privates(private_arrays(v, l, pack.data()), pool.threads() + 1, scratch);
      ctx.privates = &privates;
      ctx.pack_slots = v.layout.slots;
      run(v, l, pool, ctx);
      privates.finish();
      return;
    }
    run(v, l, pool, ctx);
  }

  std::size_t private_add_bytes() const override { return kPrivateAddBytes; }

 private:
  void run(const CpuVariant& v, const Launch& l, cpu::ThreadPool& pool, ChunkContext& ctx) const {
    const std::int64_t count = l.count;
    // A young variant times a short serial prefix; its cost per iteration then
    // decides whether the rest is worth the pool's measured fan-out cost.
    std::int64_t done = 0;
    ChunkContext serial = ctx;  // the chunks that run here, one after another
    serial.launching_thread = true;
    if (pool.threads() > 1 && v.policy.wants_sample()) done = v.policy.sample(count, run_chunk, &serial);
    if (done == count) return;
    if (v.scatter_span >= 0) {
      // Span 0 still needs whole rows per block: the work-items of one row may add into one element.
      run_colored(l, std::max<std::int64_t>(v.scatter_span, 1), done, pool, v.policy.fan_out(count - done, pool), ctx);
    } else if (v.policy.fan_out(count - done, pool)) {
      pool.run_range(done, count, 1, run_chunk, &ctx);
    } else {
      run_chunk(&serial, done, count);
    }
  }

  static std::vector<PrivateArray> private_arrays(const CpuVariant& v, const Launch& l, const std::uint64_t* pack) {
    std::vector<PrivateArray> arrays;
    for (int p : v.private_adds) {
      const ArrayStorage& a = *l.args[static_cast<std::size_t>(p)].array;
      const std::size_t slot = v.layout.first_slot[static_cast<std::size_t>(p)];
      arrays.push_back({slot, a.dtype, a.size, reinterpret_cast<void*>(static_cast<std::uintptr_t>(pack[slot]))});
    }
    return arrays;
  }

  static void fill_pack(const CpuVariant& v, const Launch& l, std::uint64_t* pack) {
    for (std::size_t i = 0; i < l.arg_count; ++i) {
      const BoundArg& b = l.args[i];
      std::uint64_t* slot = pack + v.layout.first_slot[i];
      switch (b.kind) {
        case ir::ParamKind::Array: {
          slot[0] = reinterpret_cast<std::uintptr_t>(b.array->buffer->host_data());
          slot[1] = static_cast<std::uint64_t>(b.array->size);
          for (std::size_t d = 0; d < b.array->shape.size(); ++d)
            slot[2 + d] = static_cast<std::uint64_t>(b.array->shape[d]);
          break;
        }
        case ir::ParamKind::Scalar: slot[0] = b.scalar; break;
        case ir::ParamKind::Texture:
          slot[0] = reinterpret_cast<std::uintptr_t>(b.texture->copy->buffer->host_data());
          for (int d = 0; d < 3; ++d) slot[1 + d] = static_cast<std::uint64_t>(b.texture->shape[d]);
          break;
      }
    }
  }

  static cpu::Jit& jit() { return cpu::shared_jit(); }

  int threads_;
};

}  // namespace

std::shared_ptr<Backend> make_cpu_backend(const DeviceOptions& options) {
  int threads = 0;
  if (auto it = options.find("num_threads"); it != options.end()) {
    const auto* n = std::get_if<std::int64_t>(&it->second);
    if (!n || *n < 1 || *n > 1024)
      throw InvalidArgument("device 'cpu': option 'num_threads' must be an integer from 1 to 1024");
    threads = static_cast<int>(*n);
  } else {
    threads = cpu::default_cpu_threads();
  }
  cpu::keep_freed_pages_if_asked();
  return std::make_shared<CpuBackend>(threads);
}

std::string source_for_pinned_target(const ir::Kernel& lowered, const std::string& x86_features) {
  const cpu::CodegenOptions options{.noalias = true,
                                    .simd = true,
                                    .vector_math = calls_transcendentals(lowered),
                                    .pinned_x86_features = x86_features};
  return shared_jit().ir_text(lowered, options);
}

}  // namespace tack::backends::cpu
