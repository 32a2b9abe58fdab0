#pragma once
// The options by which launchers and wrappers give a command its own
// environment, read from the words of one command (shell_input.cc):
//   env [-i] [-u NAME] NAME=value ... cmd
//   mpirun/mpiexec/orterun/oshrun/prterun -x NAME[=value], -genv NAME value,
//       -env NAME value, -genvlist A,B
//   srun/sbatch/salloc --export=ALL,NAME=value,NAME2 (and "--export LIST")
//   srun --container-env=NAME,... (pyxis: names handed on)
//   docker/podman/nerdctl/enroot -e NAME[=value], --env NAME[=value], --env=...
//   apptainer/singularity --env NAME=value[,NAME2=value2]
//   bash/sh/zsh/dash/ksh -c 'script' (the script is read as a nested script)
//   ray job submit --runtime-env-json '{"env_vars": {...}}'
// Pure: it only looks at the words it is given.

#include <string>
#include <vector>

#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

struct LauncherSetting {
  enum Kind {
    kAssign,   // name=value given to the command
    kPassOn,   // name handed on with the value it has in the script
    kScript,   // value is a nested script (bash -c)
    kEnvWord,  // words[word] is a NAME=value assignment word given to the command
  };
  Kind kind = kAssign;
  std::string name, value;
  int line = 0;
  bool dynamic = false;
  std::string how;  // "mpirun -x", "srun --export", "docker -e", "bash -c", ...
  size_t word = 0;
};

class LauncherScan {
 public:
  // Looks at words[k] (and the option arguments after it, advancing k past
  // those it consumes); returns what they give the command.
  std::vector<LauncherSetting> word(const std::vector<ShellToken>& words, size_t& k);

 private:
  std::string mpi_, container_, shell_;  // the launcher seen so far in this command
  bool env_ = false;                     // inside `env`'s assignments
};

}  // namespace hn::compat::translate
