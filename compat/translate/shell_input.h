#pragma once
// Environment assignments in env files and shell/Slurm launch scripts.
//
// Script mode records what a launched program would see set by the script:
//   export NAME=value [NAME2=value2]     declare -x / typeset -x NAME=value
//   NAME=value                           (a plain assignment)
//   NAME=value cmd args                  (a prefix for one command)
//   env [-i] NAME=value cmd              (assignments given to env)
// anywhere a command may start (after ;, &&, ||, |, newline, then, do, ...).
// #SBATCH lines are comments to the shell and are ignored like every other
// comment; here-document bodies are skipped.
//
// Env-file mode is strict: every line that is not blank or a comment must be
// `[export] NAME=value ...` with shell quoting; anything else is an error.
//
// Both throw compat::InputError(file, line) on an unterminated quote or
// substitution, an invalid name after export ("export 1X=2"), or (env-file
// mode) a line that is not an assignment. Values that are only known at run
// time come back with dynamic = true; they are never guessed.

#include <string>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

enum class ShellMode { kScript, kEnvFile };

std::vector<EnvEntry> parse_shell_text(const std::string& text, const std::string& file,
                                       ShellMode mode);

}  // namespace hn::compat::translate
