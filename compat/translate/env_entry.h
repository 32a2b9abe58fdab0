#pragma once
// One environment variable as an input declared it: the name, the value after
// quote removal, and where it was written, so every finding and every error
// can point at file:line. Plain data shared by the input readers and the
// translator.
//
// What an input holds besides settings is in EnvInput: notes about lines
// that carry settings the reader could not take as certain (a line it cannot
// read, a shell variable that is never exported, a value left unset) and the
// framework flags that carry communication timeouts (Megatron's
// --distributed-timeout-minutes). Nothing a reader sees in a communication
// library's namespace is dropped without one of these.

#include <string>
#include <vector>

namespace hn::compat::translate {

// One value a conditional setting may take, and the branch that sets it.
struct EnvAlternative {
  std::string value;
  std::string file;
  int line = 0;
  bool dynamic = false;
  std::string condition;  // "if at line 12", "case 'a100)' at line 20", "after || at line 5"
  std::string where() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

struct EnvEntry {
  std::string name;
  std::string value;    // after quote removal and expansion of variables set earlier
  std::string raw;      // the value as written (quotes and $-expansions intact)
  std::string file;     // path as given, "environment" for --from-env
  int line = 0;         // 1-based; 0 when the source has no lines (the environment)
  std::string context;  // e.g. "container trainer" in a manifest, "mpirun -x"; empty otherwise
  // The value is only known at run time: it uses $(...), `...`, a variable the
  // input does not set, or a Kubernetes valueFrom. `value` is then the raw text.
  bool dynamic = false;
  // The value depends on a branch (if/elif/else, case, && / ||, a function or
  // a loop): `alternatives` lists every value it may have, `maybe_unset` says
  // whether some path leaves it unset. Never to be taken as certain.
  bool conditional = false;
  bool maybe_unset = false;
  std::vector<EnvAlternative> alternatives;
  // Set only for one command of the script (a prefix assignment, env, mpirun
  // -x, srun --export, docker -e): that command's description. Two commands
  // may then give one name different values without either overriding the other.
  std::string scope;

  std::string where() const {
    std::string w = line > 0 ? file + ":" + std::to_string(line) : file;
    return context.empty() ? w : w + " (" + context + ")";
  }
};

// A line that holds a communication setting the reader did not take as a
// certain setting of the job.
struct InputNote {
  enum Kind {
    kUnread,       // plainly carries a setting in a form the reader cannot read
    kNotExported,  // a shell variable the script never exports nor passes to a command
    kUnset,        // a map entry whose value is null: the variable stays unset
    kNotFollowed,  // a setting this file hands elsewhere (a here-document written to a
                   // file, -x NAME of a variable the file never sets): not this file's to read
  };
  Kind kind = kUnread;
  std::string name;  // the variable, when known
  std::string file;
  int line = 0;
  std::string text;  // the line (trimmed) or what was not read
  std::string why;   // the reason, for the finding
  std::string where() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

// A framework flag that carries the process-group timeout.
struct FrameworkFlag {
  std::string flag;   // "--distributed-timeout-minutes"
  std::string value;  // "120"
  double seconds = 0;
  std::string file;
  int line = 0;
  std::string source;  // the fact keys that give its meaning
  // The framework's default: the input launches the framework (file:line is
  // where) but passes no flag, so the job runs with `value`.
  bool defaulted = false;
  std::string framework = "Megatron-LM";  // whose default: Megatron-LM, MindSpeed-LLM
  std::string where() const { return file + ":" + std::to_string(line); }
  // "--distributed-timeout-minutes 120 at job.sh:40", or for a default
  // "Megatron-LM's default --distributed-timeout-minutes 10 (no flag in the
  // launch at job.sh:52)" (MindSpeed-LLM's is 45).
  std::string describe() const;
};

struct EnvInput {
  std::vector<EnvEntry> entries;
  std::vector<InputNote> notes;
  std::vector<FrameworkFlag> flags;
  // Files that held nothing the reader recognised (no assignment of any
  // variable, no note): the translation says so instead of passing silently.
  std::vector<std::string> empty_files;
};

}  // namespace hn::compat::translate
