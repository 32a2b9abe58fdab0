#pragma once
// Renders the translated environment as a POSIX-shell env file: one
// NAME=value per line, each preceded by a comment naming where it came from.
// Values with characters a shell would interpret are single-quoted, so the
// file can be sourced (`set -a; . FILE; set +a`), read by systemd's
// EnvironmentFile= and by the env-file parser of `hnprecheck translate` itself.
// The text is deterministic (no dates, no host names) so it can be diffed.

#include <string>

#include "compat/translate/translator.h"

namespace hn::compat::translate {

// `command` is the header line, e.g. "hnprecheck translate --from nccl --to hccl".
std::string render_env_file(const Translation& t, const std::string& command);
std::string shell_quote(const std::string& value);

}  // namespace hn::compat::translate
