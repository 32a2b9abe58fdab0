#pragma once
// What a launch script says about the job besides its environment: the
// parallel layout, the paths it reads and writes, the node and rank counts,
// and the scheduler directives, each with the file and line it was read from.
// Built on the translate readers' shell lexer (compat/translate/shell_lexer.h),
// so quoting, continuations, comments, here-documents and $-expansion of
// variables the script set are read the way `translate` reads them.
//
// Read from:
//   #SBATCH lines before the first command (sbatch ignores later ones: they
//     are listed in `ignored`), and the options of `srun` commands;
//   the options of `torchrun` / `python -m torch.distributed.run`;
//   Megatron-LM flags anywhere in the script, including inside variables and
//     arrays (GPT_ARGS=(--tensor-model-parallel-size 8 ...)):
//     --tensor-/--pipeline-/--context-/--expert-model-parallel-size,
//     --save, --load, --data-path (weights dropped), --train/valid/test-data-path,
//     --data-cache-path, --vocab-file, --merge-file, --tokenizer-model,
//     --tensorboard-dir, --wandb-save-dir, --wandb-project,
//     --distributed-timeout-minutes;
//   output redirections (`> train.log`, `2>> err.log`) and `tee FILE`: log paths.
//
// A value the script only knows at run time ($SLURM_JOB_ID, $(...)) is kept
// as written and marked dynamic, never guessed. Throws compat::InputError
// (file, line) for shell text the lexer rejects (an unterminated quote).

#include <string>
#include <vector>

namespace hn::migrate {

struct Found {
  // tp, pp, cp, ep, nodes, ranks_per_node, gpus_per_node, data, checkpoint,
  // load, logs, metrics, pg_timeout_s
  std::string key;
  std::string value;  // after quote removal and expansion; as written when dynamic
  bool dynamic = false;
  std::string file;
  int line = 0;
  std::string via;  // "--tensor-model-parallel-size", "#SBATCH --nodes", "torchrun --nnodes"

  std::string where() const { return file + ":" + std::to_string(line); }
};

// One option given to a scheduler or launcher.
struct Directive {
  std::string tool;    // "sbatch" (#SBATCH), "srun", "torchrun"
  std::string option;  // long form: "--gres" (-N is "--nodes", -G "--gpus")
  std::string value;   // "gpu:8"; empty for a switch (--exclusive)
  std::string text;    // as written, e.g. "--gres=gpu:8"
  std::string file;
  int line = 0;

  std::string where() const { return file + ":" + std::to_string(line); }
};

struct Discovery {
  std::vector<Found> values;  // in script order
  std::vector<Directive> directives;
  // #SBATCH lines after the first command: sbatch ignores them.
  std::vector<Directive> ignored;

  // The value that wins for a key (the last one, as a repeated option does),
  // or nullptr.
  const Found* last(const std::string& key) const;
  std::vector<const Found*> all(const std::string& key) const;
};

Discovery discover_launch_script(const std::string& text, const std::string& file);

}  // namespace hn::migrate
