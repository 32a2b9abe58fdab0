#pragma once
// The rule tables of profiles/translate/, compiled into the binary (generated
// by cmake/HnEmbed.cmake), so `hnprecheck translate` needs no files around.

#include <span>

namespace hn::compat::translate {

struct EmbeddedRuleFile {
  const char* name;  // "lib-hccl.toml"
  const char* text;
};

std::span<const EmbeddedRuleFile> embedded_rule_files();

}  // namespace hn::compat::translate
