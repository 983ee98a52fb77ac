// Python's words in Python's errors. The core's messages name the C++ kernel
// language (`cast<float>()`, `ArrayOf<f32>`, `if_`, `for_range`) and number
// arguments from 0, as C++ code reads. A Python user wrote `tack.cast`,
// `tack.Array[np.float32]`, `if` and `for ... in range`, and calls
// `k(y, x)`: every message that reaches Python is reworded here, and an
// argument is named by its parameter's name and its place counted from 1
// ("argument 'x' (the 2nd)"). docs/errors.md lists the messages in both forms.
#include "python_words.hpp"

#include <array>
#include <map>
#include <mutex>
#include <regex>
#include <string_view>
#include <utility>

namespace tack::python {
namespace {

// C++ phrase -> Python phrase, applied in order (longer phrases first).
constexpr std::array<std::pair<std::string_view, std::string_view>, 33> kPhrases{{
    {"cast<float>()", "tack.cast(x, np.float32)"},
    {"cast<double>()", "tack.cast(x, np.float64)"},
    {"cast<int64_t>()", "tack.cast(x, np.int64)"},
    {"cast<T>()", "tack.cast(x, dtype)"},
    {"cast<i8>(0)", "np.int8(0)"},
    {"the condition of if_ or while_", "the condition of an if or a while loop"},
    {"if_/for_range/while_", "if / for ... in range / while"},
    {"a for_range or while_ body", "a for ... in range or while loop"},
    {"a for_range bound", "a bound of range()"},
    {"the parallel_for range", "the extent of tack.parallel"},
    {"the number of groups of workgroup_for", "the number of groups of tack.workgroups"},
    {"parallel_for/workgroup_for", "tack.parallel / tack.workgroups loop"},
    {"parallel_for or workgroup_for", "for ... in tack.parallel(...) or tack.workgroups(...) loop"},
    {"parallel_for", "tack.parallel"},
    {"workgroup_for", "tack.workgroups"},
    {"for_range", "for ... in range"},
    {"while_", "while"},
    {"if_", "if"},
    {"break_()", "break"},
    {"continue_()", "continue"},
    {"floor division (floordiv())", "floor division (//)"},
    {"true division of integers", "true division (/) of integers"},
    {"select()", "tack.select()"},
    {"print_if", "tack.print_if"},
    {"copy it with to_host/from_host first", "copy it with a.numpy() and dev.array(...) first"},
    {"to_host", "Array.numpy"},
    {"from_host", "Device.array"},
    {"an empty tack::Texture", "an empty tack.Texture"},
    {"an empty tack::Array", "an empty tack.Array"},
    {"tack::set_debug", "tack.set_debug"},
    {"tack::BackendError", "tack.BackendError"},
    {"tack::kernel", "@tack.kernel"},
    {"tack::", "tack."},
}};

// Tack's dtype names as NumPy spells them in a program.
std::string numpy_type(const std::string& dtype) {
  static const std::map<std::string, std::string> names{
      {"bool", "np.bool_"},   {"i8", "np.int8"},     {"u8", "np.uint8"},     {"i16", "np.int16"},
      {"u16", "np.uint16"},   {"i32", "np.int32"},   {"u32", "np.uint32"},   {"i64", "np.int64"},
      {"u64", "np.uint64"},   {"f32", "np.float32"}, {"f64", "np.float64"},
  };
  auto it = names.find(dtype);
  return it == names.end() ? dtype : it->second;
}

std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

// The parameter names of the Python kernels made so far, by kernel name; a name
// two kernels with other parameter lists share maps to nothing (ambiguous).
std::mutex g_names_mutex;
std::map<std::string, std::optional<std::vector<std::string>>>& names_by_kernel() {
  static auto* m = new std::map<std::string, std::optional<std::vector<std::string>>>();
  return *m;
}

template <class F>
std::string replace_matches(const std::string& text, const std::regex& re, F&& with) {
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.cbegin(), text.cend(), re), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    out += with(*it);
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

}  // namespace

void register_kernel_params(const std::string& kernel, const std::vector<std::string>& names) {
  std::lock_guard lock(g_names_mutex);
  auto [it, added] = names_by_kernel().try_emplace(kernel, names);
  if (!added && it->second && *it->second != names) it->second.reset();
}

std::string python_words(const std::string& message, const std::vector<std::string>* names) {
  std::optional<std::vector<std::string>> found;
  if (!names) {
    static const std::regex kernel_name("^kernel '([^']*)'");
    std::smatch m;
    if (std::regex_search(message, m, kernel_name)) {
      std::lock_guard lock(g_names_mutex);
      auto it = names_by_kernel().find(m[1].str());
      if (it != names_by_kernel().end() && it->second) found = it->second;
    }
    if (found) names = &*found;
  }
  auto argument = [&](int index) {
    if (names && index >= 0 && index < static_cast<int>(names->size()))
      return "argument '" + (*names)[static_cast<std::size_t>(index)] + "' (the " + ordinal(index + 1) + ")";
    return "the " + ordinal(index + 1) + " argument";
  };
  static const std::regex shape_of(R"(shape\((-?\d+)\) of argument (\d+))");
  std::string out = replace_matches(message, shape_of, [&](const std::smatch& m) {
    return "shape[" + m[1].str() + "] of " + argument(std::stoi(m[2].str()));
  });
  static const std::regex arg(R"(\bargument (\d+)\b)");
  out = replace_matches(out, arg, [&](const std::smatch& m) { return argument(std::stoi(m[1].str())); });
  static const std::regex fixed(R"(\b(Array|Scalar)Of<(\w+)>)");
  out = replace_matches(out, fixed, [](const std::smatch& m) {
    return "tack." + m[1].str() + "[" + numpy_type(m[2].str()) + "]";
  });
  // The core names dtypes f32, i64, ...; a Python program names them float32, int64.
  static const std::regex dtype(R"(\b([fiu])(8|16|32|64)\b)");
  out = replace_matches(out, dtype, [](const std::smatch& m) {
    const char kind = m[1].str()[0];
    return std::string(kind == 'f' ? "float" : kind == 'i' ? "int" : "uint") + m[2].str();
  });
  // "an f32" read "an float32"; "a i64" reads "a int64".
  static const std::regex article(R"(\b(an|a) (float|u?int)(8|16|32|64)\b)");
  out = replace_matches(out, article, [](const std::smatch& m) {
    return std::string(m[2].str() == "int" ? "an " : "a ") + m[2].str() + m[3].str();
  });
  for (const auto& [cpp, py] : kPhrases) {
    for (std::size_t at = out.find(cpp); at != std::string::npos; at = out.find(cpp, at + py.size()))
      out.replace(at, cpp.size(), py);
  }
  return out;
}

}  // namespace tack::python
