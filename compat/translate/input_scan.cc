// Line scans over a whole input, independent of how it is parsed: the net
// that catches settings the readers did not follow, and the framework flags
// that carry the process-group timeout (shell_input.h).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "compat/input_error.h"
#include "compat/translate/shell_input.h"

namespace hn::compat::translate {

namespace {

const char* const kName =
    R"((?:NCCL|RCCL|HCCL|TORCH_NCCL|TORCH_HCCL|GLOO|OMPI_MCA|CCL)_[A-Za-z0-9_]+)";

bool comment_line(const std::string& l) {
  size_t a = l.find_first_not_of(" \t");
  return a != std::string::npos && (l[a] == '#' || l.compare(a, 2, "//") == 0);
}

}  // namespace

std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    out.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

std::vector<std::pair<int, std::string>> comm_mentions(const std::string& text, bool yaml,
                                                       int first_line) {
  const std::string n = kName;
  // NAME=value (not $NAME= or ${NAME=), -x/-e/--env/--export NAME, "NAME": value
  static const std::regex kAssign("(?:^|[^\\w$\\{])(" + n + ")=(?!=)");
  static const std::regex kPass("(?:^|\\s)(?:-x|--x|-e|--env|--export|-genv|-env)[= ]+(" + n +
                                ")\\b(?!=)");
  static const std::regex kJson("\"(" + n + ")\"\\s*:");
  // YAML: NAME: value (a map key), name: NAME (an env item)
  static const std::regex kKey("^\\s*(?:-\\s+)?[\"']?(" + n + ")[\"']?\\s*:(?:\\s|$)");
  static const std::regex kItem("\\bname:\\s*[\"']?(" + n + ")[\"']?\\s*$");
  std::vector<std::pair<int, std::string>> out;
  std::vector<std::string> lines = text_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (comment_line(l) || l.find('_') == std::string::npos) continue;
    std::vector<std::string> names;
    for (const std::regex* re : {&kAssign, &kPass, &kJson})
      for (auto it = std::sregex_iterator(l.begin(), l.end(), *re); it != std::sregex_iterator();
           ++it)
        names.push_back((*it)[1]);
    std::smatch m;
    if (yaml && std::regex_search(l, m, kKey)) names.push_back(m[1]);
    if (yaml && std::regex_search(l, m, kItem)) names.push_back(m[1]);
    for (const auto& name : names) {
      std::pair<int, std::string> p{first_line + static_cast<int>(i), name};
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

std::vector<FrameworkFlag> framework_flags(const std::string& text, const std::string& file) {
  struct Spec {
    const char* flag;
    double unit_s;
    const char* source;
  };
  // Megatron-LM: init_process_group and every parallel-state group are
  // created with timeout=timedelta(minutes=--distributed-timeout-minutes).
  static const Spec kSpecs[] = {
      {"--distributed-timeout-minutes", 60,
       "MLM-dist (Megatron-LM initialize.py, parallel_state.py)"},
      {"--distributed_timeout_minutes", 60,
       "MLM-dist (Megatron-LM initialize.py, parallel_state.py)"},
  };
  // Words only a Megatron-LM launch (or a fork: MindSpeed, Megatron-DeepSpeed)
  // passes. Such a launch without the flag runs with the default, 10 minutes
  // (DistributedInitConfig.distributed_timeout_minutes; arguments.py's default
  // in older trees and in Megatron-DeepSpeed). MindSpeed-LLM replaces it with
  // 45 (mindspeed_llm/training/arguments.py, _add_distributed_args, with
  // conflict_handler='resolve'); its launches pass flags of its own.
  static const char* const kMindSpeedLlmWords[] = {
      "--tokenizer-name-or-path", "PretrainedFromHF",   "--use-fused-rmsnorm",
      "--use-mc2",                "--prompt-type",      "--swap-attention",
      "--reuse-fp32-param",       "--no-shared-storage", "--use-fused-swiglu",
      "--use-fused-rotary-pos-emb"};
  static const char* const kMegatronWords[] = {"--tensor-model-parallel-size",
                                               "--pipeline-model-parallel-size",
                                               "--micro-batch-size",
                                               "--use-mcore-models",
                                               "pretrain_gpt.py",
                                               "--use-distributed-optimizer"};
  std::vector<FrameworkFlag> out;
  int megatron_line = 0;
  bool mindspeed_llm = false;
  std::vector<std::string> lines = text_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (comment_line(l)) continue;
    for (const char* w : kMindSpeedLlmWords)
      mindspeed_llm = mindspeed_llm || l.find(w) != std::string::npos;
    if (!megatron_line)
      for (const char* w : kMegatronWords)
        if (size_t at = l.find(w); at != std::string::npos) {
          size_t end = at + std::string(w).size();
          if (end == l.size() || std::string(" \t=\"'\\").find(l[end]) != std::string::npos)
            megatron_line = static_cast<int>(i) + 1;
        }
    for (const auto& s : kSpecs) {
      size_t at = l.find(s.flag);
      if (at == std::string::npos) continue;
      size_t v = at + std::string(s.flag).size();
      if (v < l.size() && (l[v] == '=' || l[v] == ' ' || l[v] == '\t')) ++v;
      while (v < l.size() && (l[v] == ' ' || l[v] == '\t')) ++v;
      size_t e = v;
      while (e < l.size() && (std::isdigit(static_cast<unsigned char>(l[e])) || l[e] == '.')) ++e;
      const std::string value = l.substr(v, e - v);
      // Dots alone ("--distributed_timeout_minutes.x") are another word, not
      // this flag with a value.
      if (value.find_first_of("0123456789") == std::string::npos) continue;
      double minutes = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), minutes);
      if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(minutes))
        throw InputError(file, static_cast<int>(i) + 1, static_cast<int>(v) + 1, s.flag,
                         "expected a number of minutes, got '" + value + "'");
      FrameworkFlag f;
      f.flag = s.flag;
      f.value = value;
      f.seconds = minutes * s.unit_s;
      f.file = file;
      f.line = static_cast<int>(i) + 1;
      f.source = s.source;
      out.push_back(std::move(f));
    }
  }
  if (out.empty() && megatron_line) {
    FrameworkFlag f;
    f.flag = "--distributed-timeout-minutes";
    f.value = mindspeed_llm ? "45" : "10";
    f.seconds = mindspeed_llm ? 2700 : 600;
    f.file = file;
    f.line = megatron_line;
    f.source = mindspeed_llm
                   ? "MSL-dist (MindSpeed-LLM mindspeed_llm/training/arguments.py: default=45)"
                   : "MLM-dist (Megatron-LM DistributedInitConfig.distributed_timeout_minutes = 10)";
    f.framework = mindspeed_llm ? "MindSpeed-LLM" : "Megatron-LM";
    f.defaulted = true;
    out.push_back(std::move(f));
  }
  return out;
}

std::string FrameworkFlag::describe() const {
  if (defaulted)
    return framework + "'s default " + flag + " " + value + " (no flag in the launch at " +
           where() + ")";
  return flag + " " + value + " at " + where();
}

}  // namespace hn::compat::translate
