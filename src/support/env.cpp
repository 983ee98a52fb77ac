// Reading the variables of support/env.hpp's table.
#include "support/env.hpp"

#include <cctype>
#include <cstdlib>

namespace tack::support {
namespace {

// What env_flag and the docs rely on: the table in name order, flags falling back to on or off.
constexpr bool table_well_formed() {
  for (std::size_t i = 0; i < std::size(kEnvVariables); ++i) {
    const EnvVariable& v = kEnvVariables[i];
    if (i > 0 && !(kEnvVariables[i - 1].name < v.name)) return false;
    if (v.kind == EnvKind::Flag && v.fallback != "on" && v.fallback != "off") return false;
  }
  return true;
}
static_assert(table_well_formed(), "kEnvVariables: keep it sorted by name, and a flag's fallback \"on\" or \"off\"");

}  // namespace

std::optional<bool> parse_env_bool(const char* value) {
  if (!value || !*value) return std::nullopt;
  std::string s(value);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  return std::nullopt;
}

bool parse_env_flag(const char* value, bool fallback) {
  if (!value || !*value) return fallback;
  return parse_env_bool(value).value_or(true);
}

bool env_flag(EnvName<EnvKind::Flag> name) {
  const EnvVariable& v = name.variable();
  // The names are string literals, so data() ends in a NUL.
  return parse_env_flag(std::getenv(v.name.data()), v.fallback == "on");
}

std::optional<std::string> env_text(EnvName<EnvKind::Text> name) {
  const char* value = std::getenv(name.variable().name.data());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::span<const EnvVariable> env_variables() { return kEnvVariables; }

}  // namespace tack::support
