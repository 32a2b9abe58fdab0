#include "compat/translate/launcher_options.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include "compat/input_error.h"
#include "compat/json_input.h"

namespace hn::compat::translate {

namespace {

const std::set<std::string> kMpi = {"mpirun",  "mpiexec",       "orterun",   "oshrun",
                                    "prterun", "mpiexec.hydra", "mpirun_rsh"};
const std::set<std::string> kContainer = {"docker", "podman",    "nerdctl",
                                          "enroot", "apptainer", "singularity"};
const std::set<std::string> kShells = {"bash", "sh", "dash", "zsh", "ksh"};

std::string base(const std::string& w) {
  size_t slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

LauncherSetting make(LauncherSetting::Kind kind, std::string name, std::string value,
                     const ShellToken& w, std::string how, size_t word) {
  LauncherSetting s;
  s.kind = kind;
  s.name = std::move(name);
  s.value = std::move(value);
  s.line = w.line;
  s.dynamic = w.dynamic;
  s.how = std::move(how);
  s.word = word;
  return s;
}

// "ALL,NCCL_DEBUG=INFO,NCCL_SOCKET_IFNAME=^lo,docker0,X": Slurm's comma list;
// an item that is neither NAME=value nor an environment name (upper case by
// convention) continues the previous value.
std::vector<LauncherSetting> export_list(const std::string& list, const ShellToken& w,
                                         const std::string& how, size_t word) {
  std::vector<LauncherSetting> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (item == "ALL" || item == "NONE" || item == "NIL" || item.empty()) continue;
    if (eq != std::string::npos && is_shell_name(name)) {
      out.push_back(make(LauncherSetting::kAssign, name, item.substr(eq + 1), w, how, word));
    } else if (eq == std::string::npos && is_shell_name(item) &&
               std::none_of(item.begin(), item.end(),
                            [](char c) { return std::islower(static_cast<unsigned char>(c)); })) {
      out.push_back(make(LauncherSetting::kPassOn, item, "", w, how, word));
    } else if (!out.empty() && out.back().kind == LauncherSetting::kAssign) {
      out.back().value += "," + item;
    }
  }
  return out;
}

// "--env NAME=value" / "-e NAME": one item (docker), or a comma list (apptainer).
std::vector<LauncherSetting> env_option(const ShellToken& w, const std::string& text,
                                        const std::string& how, bool comma_list, size_t word) {
  if (comma_list) return export_list(text, w, how, word);
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  if (!is_shell_name(name)) return {};
  if (eq == std::string::npos) return {make(LauncherSetting::kPassOn, name, "", w, how, word)};
  return {make(LauncherSetting::kAssign, name, text.substr(eq + 1), w, how, word)};
}

std::vector<LauncherSetting> runtime_env_json(const ShellToken& w, const std::string& text,
                                              size_t word) {
  std::vector<LauncherSetting> out;
  // Through the guarded entry point: a deeply nested argument is refused
  // before nlohmann's recursive destructor could overflow the stack.
  nlohmann::json j;
  try {
    j = parse_json_text(text, "ray --runtime-env-json");
  } catch (const InputError&) {
    return out;  // not JSON: not read, as before
  }
  if (!j.is_object() || !j.contains("env_vars") || !j["env_vars"].is_object()) return out;
  for (const auto& [k, v] : j["env_vars"].items())
    out.push_back(make(LauncherSetting::kAssign, k, v.is_string() ? v.get<std::string>() : v.dump(),
                       w, "ray --runtime-env-json", word));
  return out;
}

bool starts(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}

}  // namespace

std::vector<LauncherSetting> LauncherScan::word(const std::vector<ShellToken>& words, size_t& k) {
  const ShellToken& w = words[k];
  const std::string& t = w.text;
  const bool has_next = k + 1 < words.size();
  const std::string b = base(t);
  if (env_) {
    if (w.assign_name) return {make(LauncherSetting::kEnvWord, "", "", w, "env", k)};
    if (t == "-u" || t == "--unset" || t == "-C" || t == "--chdir") {
      ++k;
      return {};
    }
    if (!t.empty() && t[0] == '-') return {};
    env_ = false;  // the command env runs
  }
  if (b == "env" && !w.assign_name) {
    env_ = true;
    return {};
  }
  if (kMpi.count(b)) mpi_ = b;
  if (kContainer.count(b)) container_ = b;
  if (kShells.count(b)) shell_ = b;
  if (!mpi_.empty()) {
    if ((t == "-x" || t == "--x") && has_next) {
      const ShellToken& n = words[++k];
      if (n.assign_name) return {make(LauncherSetting::kEnvWord, "", "", n, mpi_ + " -x", k)};
      if (is_shell_name(n.text))
        return {make(LauncherSetting::kPassOn, n.text, "", n, mpi_ + " -x", k)};
      return {};
    }
    if ((t == "-genv" || t == "-env") && has_next) {
      const ShellToken& n = words[++k];
      if (n.assign_name) return {make(LauncherSetting::kEnvWord, "", "", n, mpi_ + " " + t, k)};
      if (k + 1 < words.size() && is_shell_name(n.text)) {
        const ShellToken& v = words[++k];
        auto s = make(LauncherSetting::kAssign, n.text, v.text, n, mpi_ + " " + t, k);
        s.dynamic = v.dynamic;
        return {s};
      }
      return {};
    }
    if ((t == "-genvlist" || t == "-envlist") && has_next) {
      const ShellToken& n = words[++k];
      return export_list(n.text, n, mpi_ + " " + t, k);
    }
  }
  const std::string cmd =
      mpi_.empty() ? (container_.empty() ? base(words.front().text) : container_) : mpi_;
  if (starts(t, "--export=")) return export_list(t.substr(9), w, cmd + " --export", k);
  if (t == "--export" && has_next) {
    ++k;
    return export_list(words[k].text, words[k], cmd + " --export", k);
  }
  if (starts(t, "--container-env="))
    return export_list(t.substr(16), w, cmd + " --container-env", k);
  if (!container_.empty()) {
    const bool list = container_ == "apptainer" || container_ == "singularity";
    if ((t == "-e" || t == "--env") && has_next) {
      ++k;
      return env_option(words[k], words[k].text, container_ + " " + t, list, k);
    }
    if (starts(t, "--env=")) return env_option(w, t.substr(6), container_ + " --env", list, k);
  }
  if (!shell_.empty() && t.size() >= 2 && t[0] == '-' && t[1] != '-' &&
      t.find('c') != std::string::npos && has_next) {
    const ShellToken& n = words[++k];
    auto s = make(LauncherSetting::kScript, "", n.text, n, shell_ + " -c", k);
    shell_.clear();
    return {s};
  }
  if (t == "--runtime-env-json" && has_next) {
    ++k;
    return runtime_env_json(words[k], words[k].text, k);
  }
  if (starts(t, "--runtime-env-json=")) return runtime_env_json(w, t.substr(19), k);
  return {};
}

}  // namespace hn::compat::translate
