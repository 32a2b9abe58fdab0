#include "compat/translate/env_input.h"

#include <string_view>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/dockerfile_input.h"
#include "compat/translate/k8s_input.h"
#include "compat/translate/nccl_conf_input.h"
#include "compat/translate/shell_input.h"

namespace hn::compat::translate {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

InputFormat input_format_from_string(const std::string& s) {
  if (s == "auto") return InputFormat::kAuto;
  if (s == "env") return InputFormat::kEnvFile;
  if (s == "script") return InputFormat::kScript;
  if (s == "k8s") return InputFormat::kManifest;
  if (s == "nccl-conf") return InputFormat::kNcclConf;
  if (s == "dockerfile") return InputFormat::kDockerfile;
  throw InputError(
      "command line", 0, 0, "--format",
      "unknown format '" + s + "' (expected auto, env, script, k8s, nccl-conf or dockerfile)");
}

InputFormat detect_format(const std::string& path, const std::string& text) {
  if (names_nccl_conf(path)) return InputFormat::kNcclConf;
  if (names_dockerfile(path)) return InputFormat::kDockerfile;
  if (ends_with(path, ".yaml") || ends_with(path, ".yml") || ends_with(path, ".json"))
    return InputFormat::kManifest;
  if (ends_with(path, ".env")) return InputFormat::kEnvFile;
  size_t start = text.find_first_not_of(" \t\r\n");
  std::string_view head = start == std::string::npos ? "" : std::string_view(text).substr(start);
  if (head.starts_with("apiVersion:") || head.starts_with("kind:") || head.starts_with("---"))
    return InputFormat::kManifest;
  // A Dockerfile without a telling name: its first instruction (after
  // comments and blank lines) is FROM, or ARG before a FROM.
  for (const std::string& l : text_lines(text)) {
    std::string_view v(l);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    if (v.empty() || v.front() == '#' || v == "\r") continue;
    if (v.starts_with("FROM ") || v.starts_with("from ")) return InputFormat::kDockerfile;
    break;
  }
  return InputFormat::kScript;
}

EnvInput parse_env_input_full(const std::string& text, const std::string& file,
                              InputFormat format) {
  if (format == InputFormat::kAuto) format = detect_format(file, text);
  EnvInput in;
  switch (format) {
    case InputFormat::kManifest:
      in = read_manifest_text(text, file);
      break;
    case InputFormat::kEnvFile:
      in = read_shell_text(text, file, ShellMode::kEnvFile);
      break;
    case InputFormat::kNcclConf:
      in = read_nccl_conf_text(text, file);
      break;
    case InputFormat::kDockerfile:
      in = read_dockerfile_text(text, file);
      break;
    default:
      in = read_shell_text(text, file, ShellMode::kScript);
      break;
  }
  if (in.entries.empty() && in.notes.empty()) in.empty_files.push_back(file);
  return in;
}

EnvInput read_env_input_full(const std::string& path, InputFormat format) {
  return parse_env_input_full(read_text_file(path, kMaxLaunchFileBytes), path, format);
}

std::vector<EnvEntry> parse_env_input(const std::string& text, const std::string& file,
                                      InputFormat format) {
  return parse_env_input_full(text, file, format).entries;
}

std::vector<EnvEntry> read_env_input(const std::string& path, InputFormat format) {
  return parse_env_input(read_text_file(path, kMaxLaunchFileBytes), path, format);
}

std::vector<EnvEntry> entries_from_environment(char** envp) {
  std::vector<EnvEntry> out;
  for (char** p = envp; p && *p; ++p) {
    std::string_view kv(*p);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    EnvEntry e;
    e.name = std::string(kv.substr(0, eq));
    e.value = e.raw = std::string(kv.substr(eq + 1));
    e.file = "environment";
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace hn::compat::translate
