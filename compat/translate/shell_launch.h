#pragma once
// The launcher interpreter of the shell reader (shell_input.h): what a
// command is given besides the script's exported variables. A walker of the
// script's state (shell_walker.h) hands it each command; it turns what
// launcher_options.h finds in the words (env, mpirun -x, srun --export,
// docker -e, bash -c, ...) and NAME=value prefixes into settings scoped to
// that command, hands on variables by the value(s) the walker holds for them,
// and runs nested scripts (bash -c '...', $(...)) through the walker so that
// their settings become that command's and their notes ours, at our lines.
// sbatch_exports() reads the #SBATCH --export directives of a whole script.
//
// Contract: nothing here throws for a launcher it does not know (its words
// are simply not settings; the reader's net notes any library variable left
// unread); InputError comes only from lexing a nested script, as for the
// script itself. Pure: no I/O.

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compat/translate/env_entry.h"
#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

// A name and the lines over which a nested script's settings of it count as
// read (the whole command that carries the script).
struct NameLines {
  std::string name;
  int lo = 0, hi = 0;
};

// What the script gives its commands, and what the net needs to know was read.
struct LaunchRecord {
  std::vector<EnvEntry> scoped;  // settings of one command
  std::vector<InputNote> notes;
  std::set<int> read_only_lines;                    // echo "NCCL_X=$NCCL_X": read, never set
  std::set<std::pair<std::string, int>> handed_on;  // -x NAME of a variable the script set
  std::vector<NameLines> nested;                    // names a nested script set or noted
};

// A nested script's reading, with its lines counted from 1.
struct NestedRun {
  EnvInput in;
  std::set<int> read_only_lines;
};

// What the interpreter asks of the shell-state walker.
class ShellScope {
 public:
  virtual ~ShellScope() = default;
  // The value(s) the script holds for `name`, as one entry (conditional when
  // it has several or may be unset), marking the variable handed on; nullopt
  // when the script never set it.
  virtual std::optional<EnvEntry> hand_on(const std::string& name) = 0;
  // Reads `body` as a script inside this one, seeing this one's variables;
  // nullopt past the nesting limit.
  virtual std::optional<NestedRun> run_nested(const std::string& body) = 0;
};

class LauncherInterpreter {
 public:
  LauncherInterpreter(std::string file, ShellScope& scope, LaunchRecord& record)
      : file_(std::move(file)), scope_(scope), record_(record) {}

  // NAME=value before a command (SINGULARITYENV_/APPTAINERENV_ stripped):
  // a setting of that command.
  void prefix(const ShellToken& assignment, const std::string& how, int cmd_line);
  // The command whose name is words[i]: every setting its words give it.
  void command(const std::vector<ShellToken>& words, std::size_t i);
  // A script inside this one: body's line 1 is base_line; lo..hi are the
  // lines of the command that carries it.
  void nested(const std::string& body, int base_line, int lo, int hi, const std::string& how);

 private:
  void scoped_value(const std::string& name, const std::string& value, const std::string& raw,
                    int line, bool dynamic, const std::string& how, int cmd_line);
  void pass_on(const std::string& name, int line, const std::string& how, int cmd_line);

  std::string file_;
  ShellScope& scope_;
  LaunchRecord& record_;
};

// "#SBATCH --export=ALL,NCCL_DEBUG=INFO" is a comment to the shell but sets
// the batch job's environment to Slurm: settings of the whole job, in line
// order. A directive with an unterminated quote is skipped (the net reports
// its settings).
std::vector<EnvEntry> sbatch_exports(const std::string& text, const std::string& file);

}  // namespace hn::compat::translate
