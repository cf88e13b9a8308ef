#include "daemon/tiercached/config_file.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "daemon/tiercached/daemon_option.h"

namespace tiercache {
namespace {

// What a value of each kind may be written as in TOML: a size as "4M" or as a byte count, a
// number of seconds with or without a fraction.
bool Accepts(OptionKind kind, toml::node_type type) {
  using T = toml::node_type;
  switch (kind) {
    case OptionKind::kString: return type == T::string;
    case OptionKind::kFlag: return type == T::boolean;
    case OptionKind::kUnsigned:
    case OptionKind::kInt: return type == T::integer;
    case OptionKind::kDouble: return type == T::integer || type == T::floating_point;
    case OptionKind::kSize: return type == T::string || type == T::integer;
  }
  return false;
}

const char* Expected(OptionKind kind) {
  switch (kind) {
    case OptionKind::kString: return "a string";
    case OptionKind::kFlag: return "true or false";
    case OptionKind::kUnsigned:
    case OptionKind::kInt: return "an integer";
    case OptionKind::kDouble: return "a number";
    case OptionKind::kSize: return "a size such as \"4M\" or a number of bytes";
  }
  return "?";
}

const char* TypeName(toml::node_type type) {
  using T = toml::node_type;
  switch (type) {
    case T::string: return "a string";
    case T::integer: return "an integer";
    case T::floating_point: return "a floating-point number";
    case T::boolean: return "a boolean";
    case T::table: return "a table";
    case T::array: return "an array";
    case T::date: return "a date";
    case T::time: return "a time";
    case T::date_time: return "a date-time";
    case T::none: break;
  }
  return "nothing";
}

// The value as the flag's text would be ("4", "0.5", "true", "4M").
std::string ValueText(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f->get());
    return std::string(buf, ec == std::errc() ? end : buf);
  }
  return "";
}

// The problem with `key = node`, or "" when it is stored in `config`.
std::string ApplyKey(std::string_view key, const toml::node& node, DaemonConfig* config) {
  const DaemonOption* option = FindDaemonOption(key);
  if (option == nullptr) {
    std::string suggestion = SuggestDaemonOption(key);
    return "unknown key '" + std::string(key) + "'" +
           (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)");
  }
  if (!Accepts(option->kind(), node.type())) {
    return std::string(key) + ": expected " + Expected(option->kind()) + ", not " +
           TypeName(node.type());
  }
  Status s = ApplyDaemonOption(*option, ValueText(node), config);
  return s.ok() ? "" : std::string(key) + ": " + s.message();
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IoError(std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(std::strerror(errno));
  return text.str();
}

}  // namespace

std::vector<std::string> LoadConfigFile(const std::string& path, DaemonConfig* config) {
  auto at = [&](uint32_t line, const std::string& why) {
    return path + ":" + std::to_string(line) + ": " + why;
  };
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return {path + ": cannot read: " + text.status().message()};
  toml::table table;
  try {
    table = toml::parse(*text, path);
  } catch (const toml::parse_error& e) {
    return {at(e.source().begin.line, std::string(e.description()))};
  }
  std::vector<std::pair<uint32_t, std::string>> problems;
  for (const auto& [key, node] : table) {
    std::string why = ApplyKey(key.str(), node, config);
    if (!why.empty()) problems.emplace_back(key.source().begin.line, std::move(why));
  }
  std::stable_sort(problems.begin(), problems.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> errors;
  for (const auto& [line, why] : problems) errors.push_back(at(line, why));
  return errors;
}

}  // namespace tiercache
