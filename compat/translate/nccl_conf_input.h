#pragma once
// NCCL's own configuration files, and the commands that write them.
//
// NCCL reads `$NCCL_CONF_FILE` (else `~/.nccl.conf`) and then `/etc/nccl.conf`
// at init (src/misc/param.cc): one KEY=VALUE per line, split at the first
// '=', lines starting with '#' and lines without '=' skipped, no quoting and
// no expansion, key and value cut at 1023 characters. Each entry is applied
// with setenv(name, value, 0), so the process environment wins over both
// files and the user file over /etc/nccl.conf. Every entry is in effect: none
// is "a shell variable never exported".
//
// read_nccl_conf_text() reads such a file. nccl_conf_writes() finds, in a
// shell script or a Dockerfile, the commands that put lines into one
// (`echo "NCCL_X=v" >> /etc/nccl.conf`, `printf 'A=1\nB=2\n' > ~/.nccl.conf`,
// `echo ... | tee -a $NCCL_CONF_FILE`, `cat > /etc/nccl.conf <<EOF`), and
// returns the settings they write, each at the line that writes it; a value
// with `$` in it is marked dynamic (the shell expands it when it runs).
// Neither throws for content: a line NCCL would skip is skipped here too.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

// True for a path NCCL reads as its configuration file: a file named
// nccl.conf or *.nccl.conf (.nccl.conf, h100.nccl.conf), or $NCCL_CONF_FILE /
// ${NCCL_CONF_FILE}.
bool names_nccl_conf(std::string_view path);

EnvInput read_nccl_conf_text(const std::string& text, const std::string& file);

// heredoc_lines: the (line, text) of every here-document body line of the
// script, as the shell lexer skipped them.
// A line longer than NCCL's 4096-byte line buffer is not scanned; each
// library setting it mentions becomes an unread note in `notes`.
std::vector<EnvEntry> nccl_conf_writes(
    const std::string& text, const std::string& file,
    const std::vector<std::pair<int, std::string>>& heredoc_lines,
    std::vector<InputNote>* notes = nullptr);

}  // namespace hn::compat::translate
