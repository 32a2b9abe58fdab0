#include "migrate/discovery.h"

#include <algorithm>
#include <map>
#include <set>

#include "compat/translate/shell_lexer.h"

namespace hn::migrate {

namespace tr = compat::translate;

const Found* Discovery::last(const std::string& key) const {
  const Found* out = nullptr;
  for (const auto& f : values)
    if (f.key == key) out = &f;
  return out;
}

std::vector<const Found*> Discovery::all(const std::string& key) const {
  std::vector<const Found*> out;
  for (const auto& f : values)
    if (f.key == key) out.push_back(&f);
  return out;
}

namespace {

// Megatron-LM's arguments (megatron/training/arguments.py) and torchrun's, and
// what each says.
struct FlagSpec {
  const char* flag;
  const char* key;
  bool many = false;  // nargs='*': every following word up to the next option
};
constexpr FlagSpec kMegatronFlags[] = {
    {"--tensor-model-parallel-size", "tp"},
    {"--pipeline-model-parallel-size", "pp"},
    {"--context-parallel-size", "cp"},
    {"--expert-model-parallel-size", "ep"},
    {"--expert-tensor-parallel-size", "etp"},
    // The model's shape, for the checkpoint's size (checkpoint_estimate.h).
    {"--num-layers", "num_layers"},
    {"--hidden-size", "hidden_size"},
    {"--ffn-hidden-size", "ffn_hidden_size"},
    {"--num-attention-heads", "num_attention_heads"},
    {"--num-query-groups", "num_query_groups"},
    {"--num-experts", "num_experts"},
    {"--moe-ffn-hidden-size", "moe_ffn_hidden_size"},
    {"--vocab-size", "vocab_size"},
    {"--padded-vocab-size", "vocab_size"},
    {"--tokenizer-type", "tokenizer_type"},
    {"--make-vocab-size-divisible-by", "vocab_divisible_by"},
    {"--optimizer", "optimizer"},
    {"--save", "checkpoint"},
    {"--load", "load"},
    {"--data-path", "data", true},
    {"--train-data-path", "data", true},
    {"--valid-data-path", "data", true},
    {"--test-data-path", "data", true},
    {"--data-cache-path", "data"},
    {"--vocab-file", "data"},
    {"--merge-file", "data"},
    {"--tokenizer-model", "data"},
    {"--tensorboard-dir", "metrics"},
    {"--wandb-save-dir", "metrics"},
    {"--wandb-project", "metrics"},
    {"--distributed-timeout-minutes", "pg_timeout_s"},
    // Other frameworks' checkpoint directories: PyTorch FSDP examples
    // (--checkpoint_dir), Hugging Face Trainer (--output_dir holds its
    // checkpoint-N folders; --resume_from_checkpoint), fairseq (--save-dir,
    // --restore-file), torchtitan (--checkpoint.folder under
    // --job.dump_folder, see below).
    {"--checkpoint_dir", "checkpoint"},
    {"--checkpoint-dir", "checkpoint"},
    {"--output_dir", "checkpoint"},
    {"--output-dir", "checkpoint"},
    {"--save-dir", "checkpoint"},
    {"--save_dir", "checkpoint"},
    {"--resume_from_checkpoint", "load"},
    {"--restore-file", "load"},
    {"--job.dump_folder", "dump_folder"},
    {"--checkpoint.folder", "checkpoint_folder"},
    // torchrun's own options, also when they sit in an array
    // (DISTRIBUTED_ARGS=(--nproc_per_node 8 ...) as Megatron's examples do).
    {"--nproc-per-node", "ranks_per_node"},
    {"--nproc_per_node", "ranks_per_node"},
    {"--nnodes", "nodes"},
};

// Switches that change what a checkpoint holds or where it goes; each is
// recorded as key = "1".
constexpr std::pair<const char*, const char*> kSwitches[] = {
    {"--swiglu", "swiglu"},
    {"--untie-embeddings-and-output-weights", "untie_embeddings"},
    {"--group-query-attention", "gqa"},
    {"--bf16", "bf16"},
    {"--fp16", "fp16"},
    {"--no-save-optim", "no_save_optim"},
    {"--checkpoint.enable_checkpoint", "torchtitan_checkpoint"},
    {"--checkpoint.enable", "torchtitan_checkpoint"},
};

// The values Slurm gives a batch job from its own directives (sbatch(1),
// OUTPUT ENVIRONMENT VARIABLES), so `--nnodes=$SLURM_JOB_NUM_NODES` reads
// as the #SBATCH --nodes it comes from. Only a single number is taken: a
// range (--nodes=2-4) is known at run time.
constexpr std::pair<const char*, const char*> kSlurmOutputVars[] = {
    {"--nodes", "SLURM_JOB_NUM_NODES"},
    {"--nodes", "SLURM_NNODES"},
    {"--ntasks-per-node", "SLURM_NTASKS_PER_NODE"},
    {"--ntasks", "SLURM_NTASKS"},
    {"--ntasks", "SLURM_NPROCS"},
    {"--gpus-per-node", "SLURM_GPUS_PER_NODE"},
    {"--gpus-per-node", "SLURM_GPUS_ON_NODE"},
    {"--cpus-per-task", "SLURM_CPUS_PER_TASK"},
    {"--job-name", "SLURM_JOB_NAME"},
};

// Options of sbatch/srun that take a value (sbatch(1), srun(1)); short forms
// are normalised to the long one. Anything else is a switch unless written
// with '='.
const std::map<std::string, std::string> kSlurmShort = {
    {"-N", "--nodes"},        {"-n", "--ntasks"},   {"-c", "--cpus-per-task"}, {"-G", "--gpus"},
    {"-p", "--partition"},    {"-o", "--output"},   {"-e", "--error"},         {"-J", "--job-name"},
    {"-t", "--time"},         {"-w", "--nodelist"}, {"-x", "--exclude"},       {"-A", "--account"},
    {"-m", "--distribution"}, {"-q", "--qos"},
};
const std::set<std::string> kSlurmValued = {
    "--nodes",         "--ntasks",        "--ntasks-per-node",
    "--cpus-per-task", "--gres",          "--gpus",
    "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket",
    "--partition",     "--output",        "--error",
    "--job-name",      "--time",          "--nodelist",
    "--exclude",       "--account",       "--distribution",
    "--qos",           "--mem",           "--mem-per-cpu",
    "--mem-per-gpu",   "--mpi",           "--cpu-bind",
    "--export",        "--constraint",    "--reservation",
    "--tres-per-task", "--array",         "--chdir",
};
// torchrun (torch/distributed/run.py) options with a value; '-' and '_' spellings.
const std::set<std::string> kTorchrunValued = {
    "--nnodes",        "--nproc-per-node",   "--nproc_per_node",
    "--node-rank",     "--node_rank",        "--master-addr",
    "--master_addr",   "--master-port",      "--master_port",
    "--rdzv-endpoint", "--rdzv_endpoint",    "--rdzv-backend",
    "--rdzv_backend",  "--rdzv-id",          "--rdzv_id",
    "--rdzv-conf",     "--rdzv_conf",        "--max-restarts",
    "--max_restarts",  "--monitor-interval", "--monitor_interval",
    "--log-dir",       "--log_dir",          "--redirects",
    "--tee",           "--local-addr",       "--local_addr",
    "--role",          "--start-method",     "--start_method",
};

// One word of the script with where it starts.
struct Word {
  std::string text;
  bool dynamic = false;
  bool expansion = false;  // the word is only an expansion ($ARGS, ${A[@]}): its
                           // contents were read where the variable was set
  int line = 0;
};

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::string basename_of(const std::string& s) {
  auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

class Scanner {
 public:
  Scanner(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  Discovery run() {
    read_sbatch_lines();
    read_tokens();
    torchtitan_checkpoint();
    return std::move(out_);
  }

  // torchtitan writes checkpoints to <--job.dump_folder>/<--checkpoint.folder>
  // (defaults ./torchtitan/outputs and "checkpoint") when checkpointing is on.
  void torchtitan_checkpoint() {
    if (!out_.last("torchtitan_checkpoint")) return;
    const Found* dump = out_.last("dump_folder");
    const Found* folder = out_.last("checkpoint_folder");
    const Found* at = folder ? folder : dump ? dump : out_.last("torchtitan_checkpoint");
    std::string dir = dump ? dump->value : "./torchtitan/outputs";
    std::string sub = folder ? folder->value : "checkpoint";
    add("checkpoint", sub.rfind('/', 0) == 0 ? sub : dir + "/" + sub,
        (dump && dump->dynamic) || (folder && folder->dynamic), at->line,
        "--job.dump_folder/--checkpoint.folder");
  }

 private:
  void add(const std::string& key, const std::string& value, bool dynamic, int line,
           const std::string& via) {
    out_.values.push_back(Found{key, value, dynamic, file_, line, via});
  }

  // Slurm directives: the options of one #SBATCH line or one srun command.
  void slurm_options(const std::vector<Word>& words, size_t i, const std::string& tool,
                     bool stop_at_program) {
    for (; i < words.size(); ++i) {
      const Word& w = words[i];
      if (w.text.size() < 2 || w.text[0] != '-') {
        if (stop_at_program) return;
        continue;
      }
      std::string opt = w.text, value, written = w.text;
      bool has_value = false;
      if (auto eq = opt.find('='); opt.rfind("--", 0) == 0 && eq != std::string::npos) {
        value = opt.substr(eq + 1);
        opt = opt.substr(0, eq);
        has_value = true;
      } else if (opt.rfind("--", 0) != 0) {
        // -N4 or -N 4
        std::string flag = opt.substr(0, 2);
        auto it = kSlurmShort.find(flag);
        if (it == kSlurmShort.end()) continue;
        if (opt.size() > 2) {
          value = opt.substr(2);
          has_value = true;
        }
        opt = it->second;
      }
      if (!has_value && kSlurmValued.count(opt) && i + 1 < words.size()) {
        value = words[++i].text;
        written += " " + value;
        has_value = true;
      }
      out_.directives.push_back(Directive{tool, opt, value, written, file_, w.line});
      const std::string via = (tool == "sbatch" ? "#SBATCH " : "srun ") + opt;
      if (opt == "--nodes") add("nodes", value, w.dynamic, w.line, via);
      if (opt == "--ntasks-per-node") add("ranks_per_node", value, w.dynamic, w.line, via);
      if (opt == "--gpus-per-node") add("gpus_per_node", value, w.dynamic, w.line, via);
      if (opt == "--gres") {
        // gpu:8 or gpu:a100:8 (a list may name several resources)
        size_t start = 0;
        while (start <= value.size()) {
          size_t comma = value.find(',', start);
          std::string item =
              value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          if (item.rfind("gpu", 0) == 0) {
            auto colon = item.rfind(':');
            if (colon != std::string::npos && is_number(item.substr(colon + 1)))
              add("gpus_per_node", item.substr(colon + 1), w.dynamic, w.line, via);
          }
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      }
      if ((opt == "--output" || opt == "--error") && !value.empty())
        add("logs", value, w.dynamic, w.line, via);
    }
  }

  // sbatch(1): "sbatch will stop processing further #SBATCH directives once
  // the first non-comment non-whitespace line has been reached in the script".
  void read_sbatch_lines() {
    bool commands = false;
    int line_no = 0;
    size_t pos = 0;
    while (pos <= text_.size()) {
      size_t nl = text_.find('\n', pos);
      std::string line = text_.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      ++line_no;
      size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos) {
        std::string rest = line.substr(first);
        if (rest.rfind("#SBATCH", 0) == 0 &&
            (rest.size() == 7 || rest[7] == ' ' || rest[7] == '\t')) {
          if (commands) {
            out_.ignored.push_back(Directive{"sbatch", "", "", rest, file_, line_no});
          } else {
            std::vector<Word> words;
            const std::string options = rest.substr(7);  // outlives the lexer's view
            tr::ShellLexer lex(options, file_, nullptr);
            for (tr::ShellToken t = lex.next(); t.kind != tr::ShellToken::kEnd; t = lex.next())
              if (t.kind == tr::ShellToken::kWord)
                words.push_back({t.text, t.dynamic, false, line_no});
            slurm_options(words, 0, "sbatch", false);
          }
        } else if (rest[0] != '#') {
          commands = true;
        }
      }
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }

  // Megatron flags in a run of words (a command, an array, a variable's value).
  void megatron_flags(const std::vector<Word>& words) {
    for (size_t i = 0; i < words.size(); ++i) {
      const Word& w = words[i];
      // An expansion ($ARGS) was read where the variable was set; it can
      // still be a flag's value (--save $CKPT_DIR).
      if (w.expansion || w.text.rfind("--", 0) != 0) continue;
      std::string name = w.text, inline_value;
      bool has_inline = false;
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_inline = true;
      }
      for (const auto& [flag, key] : kSwitches)
        if (name == flag && (!has_inline || inline_value == "true" || inline_value == "True"))
          add(key, "1", false, w.line, flag);
      const FlagSpec* spec = nullptr;
      for (const auto& s : kMegatronFlags)
        if (name == s.flag) spec = &s;
      if (!spec) continue;
      auto take = [&](const Word& v, const std::string& text) {
        std::string value = text;
        // A W&B project is a service, not a directory: "wandb:<project>".
        if (std::string(spec->flag) == "--wandb-project") value = "wandb:" + text;
        if (std::string(spec->key) == "pg_timeout_s" && is_number(text) && !v.dynamic)
          value = std::to_string(static_cast<long long>(std::stod(text) * 60));
        const std::string key = spec->key;
        // --resume_from_checkpoint true: the newest checkpoint in --output_dir.
        if ((key == "load" || key == "checkpoint") &&
            (text == "true" || text == "True" || text == "false" || text == "False" ||
             text == "None" || text.empty()))
          return;
        const bool torchrun = key == "ranks_per_node" || key == "nodes";
        add(key, value, v.dynamic, v.line, (torchrun ? "torchrun " : "") + std::string(spec->flag));
      };
      if (has_inline) {
        take(w, inline_value);
        continue;
      }
      if (!spec->many) {
        if (i + 1 < words.size() && words[i + 1].text.rfind("--", 0) != 0)
          take(words[i + 1], words[i + 1].text), ++i;
        continue;
      }
      for (; i + 1 < words.size() && words[i + 1].text.rfind("-", 0) != 0; ++i)
        if (!is_number(words[i + 1].text)) take(words[i + 1], words[i + 1].text);
    }
  }

  void torchrun_options(const std::vector<Word>& words, size_t i) {
    for (; i < words.size(); ++i) {
      const Word& w = words[i];
      if (w.text.rfind("-", 0) != 0) return;  // the training script
      std::string opt = w.text, value;
      bool has_value = false;
      if (auto eq = opt.find('='); eq != std::string::npos) {
        value = opt.substr(eq + 1);
        opt = opt.substr(0, eq);
        has_value = true;
      }
      if (!has_value && kTorchrunValued.count(opt) && i + 1 < words.size()) {
        value = words[++i].text;
        has_value = true;
      }
      if (!has_value) continue;
      std::string norm = opt;
      std::replace(norm.begin(), norm.end(), '_', '-');
      // The counts themselves are read by the flag scan (megatron_flags).
      out_.directives.push_back(
          Directive{"torchrun", norm, value, opt + " " + value, file_, w.line});
    }
  }

  void command(std::vector<Word>& words) {
    if (words.empty()) return;
    launch_command(words);
    megatron_flags(words);
  }

  // srun, torchrun, tee: their own options, read before the flags so that a
  // line's values keep the order they are written in.
  void launch_command(const std::vector<Word>& words) {
    size_t i = 0;
    while (i < words.size() && (words[i].text == "exec" || words[i].text == "time")) ++i;
    if (i >= words.size()) return;
    std::string cmd = basename_of(words[i].text);
    if (cmd == "srun") {
      slurm_options(words, i + 1, "srun", true);
      // srun starts the program after its options: read that command too
      size_t j = i + 1;
      while (j < words.size() && words[j].text.rfind("-", 0) == 0) {
        std::string o = words[j].text;
        bool valued = o.find('=') == std::string::npos &&
                      (kSlurmValued.count(o) || (o.size() == 2 && kSlurmShort.count(o)));
        j += valued ? 2 : 1;
      }
      if (j < words.size()) {
        std::vector<Word> rest(words.begin() + static_cast<long>(j), words.end());
        launcher(rest);
      }
      return;
    }
    if (cmd == "tee") {
      for (size_t j = i + 1; j < words.size(); ++j)
        if (words[j].text.rfind("-", 0) != 0)
          add("logs", words[j].text, words[j].dynamic, words[j].line, "tee");
      return;
    }
    std::vector<Word> rest(words.begin() + static_cast<long>(i), words.end());
    launcher(rest);
  }

  void launcher(const std::vector<Word>& words) {
    if (words.empty()) return;
    std::string cmd = basename_of(words[0].text);
    if (cmd == "torchrun") return torchrun_options(words, 1);
    if (cmd.rfind("python", 0) == 0 && words.size() > 2 && words[1].text == "-m" &&
        (words[2].text == "torch.distributed.run" || words[2].text == "torch.distributed.launch"))
      return torchrun_options(words, 3);
  }

  // Fields of a variable's value (GPT_ARGS="--tensor-model-parallel-size 8 ..."),
  // each on the line where it is written.
  std::vector<Word> fields(const tr::ShellToken& t) {
    std::vector<Word> out;
    const std::string& v = t.assign_value;
    size_t pos = 0;
    while (pos < v.size()) {
      size_t start = v.find_first_not_of(" \t\n", pos);
      if (start == std::string::npos) break;
      size_t end = v.find_first_of(" \t\n", start);
      std::string f = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
      size_t in_raw = t.assign_raw.find(f);
      int line =
          t.line +
          static_cast<int>(std::count(
              t.assign_raw.begin(),
              t.assign_raw.begin() + static_cast<long>(in_raw == std::string::npos ? 0 : in_raw),
              '\n'));
      out.push_back({f, t.assign_dynamic, false, line});
      pos = end == std::string::npos ? v.size() : end;
    }
    return out;
  }

  void read_tokens() {
    std::map<std::string, tr::ShellVar> vars;
    for (const auto& d : out_.directives) {
      if (d.tool != "sbatch") continue;
      for (const auto& [option, var] : kSlurmOutputVars)
        if (d.option == option && !d.value.empty() &&
            (option == std::string("--job-name") ||
             d.value.find_first_not_of("0123456789") == std::string::npos))
          vars[var] = tr::ShellVar{d.value, false};
    }
    tr::ShellLexer lex(text_, file_, [&vars](std::string_view name) {
      auto it = vars.find(std::string(name));
      return it == vars.end() ? std::nullopt : std::optional<tr::ShellVar>(it->second);
    });
    std::vector<Word> words;
    int parens = 0;
    bool log_target = false;
    for (tr::ShellToken t = lex.next();; t = lex.next()) {
      if (t.kind == tr::ShellToken::kWord) {
        if (log_target) {
          // "> file", "2>> file"; not "2>&1" (a descriptor) or /dev/null
          log_target = false;
          bool fd = is_number(t.text) || t.text.rfind("&", 0) == 0 || t.text == "-";
          if (!fd && t.text != "/dev/null") add("logs", t.text, t.dynamic, t.line, "redirection");
          continue;
        }
        if (t.assign_name) {
          vars[*t.assign_name] = tr::ShellVar{t.assign_value, t.assign_dynamic};
          megatron_flags(fields(t));
          if (words.empty()) continue;  // a prefix assignment, not an argument
        }
        bool expansion = !t.raw.empty() && t.raw[0] == '$' && t.raw.find(' ') == std::string::npos;
        words.push_back({t.text, t.dynamic, expansion, t.line});
        continue;
      }
      if (t.kind == tr::ShellToken::kRedirect) {
        log_target = t.text.find('>') != std::string::npos && t.text.find('<') == std::string::npos;
        continue;
      }
      // A separator or the end: parentheses hold an array's words together
      // across newlines; anything else ends a command.
      if (t.text == "(") ++parens;
      if (t.text == ")" && parens > 0) --parens;
      if (t.kind != tr::ShellToken::kEnd && t.text == "\n" && parens > 0) continue;
      command(words);
      words.clear();
      if (t.kind == tr::ShellToken::kEnd) break;
    }
  }

  const std::string& text_;
  std::string file_;
  Discovery out_;
};

}  // namespace

Discovery discover_launch_script(const std::string& text, const std::string& file) {
  return Scanner(text, file).run();
}

}  // namespace hn::migrate
