#pragma once
// Environment settings in env files and shell/Slurm launch scripts.
//
// Script mode follows what a launched program would see, as the shell would:
//   export NAME=value, declare -x / typeset -x, set -a   the job's environment
//   NAME=value then export NAME                          likewise
//   NAME=value (never exported nor passed on)           a shell variable: a
//                                                        kNotExported note, not a setting
//   NAME=value cmd, env [opts] NAME=value cmd,          settings of that one command
//   exec/timeout/nohup/numactl/srun ... env NAME=v cmd  (EnvEntry::scope names it)
//   mpirun -x NAME[=v], -genv NAME v, srun --export=ALL,NAME=v, docker/podman/enroot -e,
//   apptainer --env, pyxis --container-env, bash -c '...', $(...)   likewise
//   : "${NAME:=v}"                                       a default: NAME=v unless set before
// Values set in if/elif/else or case branches, after && or ||, in functions
// and loops are conditional: one entry with every alternative and its line,
// never a certain value; a branch that leaves the variable alone keeps the
// value it had (maybe unset). A here-document that is a manifest is read as
// one; a setting in any other here-document (or -x NAME of a variable the
// file never sets) is a kNotFollowed note, and one in any form not read
// above a kUnread note, each with its line, so nothing in a library's
// namespace is dropped silently. #SBATCH --export=... directives are read. Framework flags that
// carry the process-group timeout
// (--distributed-timeout-minutes N) are collected with their lines.
//
// Env-file mode is strict: every line that is not blank or a comment must be
// `[export] NAME=value ...` with shell quoting; every assignment is a setting.
//
// Both throw compat::InputError(file, line) on an unterminated quote or
// substitution, an invalid name after export ("export 1X=2"), or (env-file
// mode) a line that is not an assignment. Values that are only known at run
// time come back with dynamic = true; they are never guessed.

#include <string>
#include <string_view>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

enum class ShellMode { kScript, kEnvFile };

// The whole reading: settings, notes, framework flags.
EnvInput read_shell_text(const std::string& text, const std::string& file, ShellMode mode);
// The settings only (tests and callers that need nothing else).
std::vector<EnvEntry> parse_shell_text(const std::string& text, const std::string& file,
                                       ShellMode mode);

// A name in a communication library's namespace (NCCL_, RCCL_, HCCL_,
// TORCH_NCCL_, TORCH_HCCL_, GLOO_, OMPI_MCA_, CCL_): the names whose every
// mention in an input must end up as a setting or a note.
bool is_comm_variable(std::string_view name);

// Lines of `text` that plainly assign a communication variable (NAME=...,
// -x NAME, NAME: value, name: NAME), as (line, name), 1-based from
// first_line. Comment lines (#) are skipped. The readers use it as the net
// that turns anything they did not read into a kUnread note.
std::vector<std::pair<int, std::string>> comm_mentions(const std::string& text, bool yaml,
                                                       int first_line = 1);

// The lines of `text` (without their '\n'); line n is element n-1.
std::vector<std::string> text_lines(const std::string& text);

// The framework flags in `text` that set the process-group timeout. With
// none, a Megatron-LM launch (a word only Megatron takes) gives one
// `defaulted` entry: the 10 minutes it then runs with.
std::vector<FrameworkFlag> framework_flags(const std::string& text, const std::string& file);

}  // namespace hn::compat::translate
