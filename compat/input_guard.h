#pragma once
// The pre-parse guard every structured reader runs at its entry point, before
// a third-party parser (yaml-cpp, nlohmann/json, toml11) sees the text.
//
// Why it exists: those parsers recurse, queue tokens or build nodes without
// bounds, so the cost of a hostile file is set by the parser, not by us:
// 10,000 nested `[` overflow toml11's stack (SIGSEGV), 8 MiB of `[` make
// yaml-cpp's scanner queue 2 GB of tokens before its own depth check fires.
// A linear scan of the raw text that knows each syntax's strings, comments
// and (for YAML) block scalars counts the nesting and refuses the file at the
// first level past the limit, naming file:line:column, in O(size) time and
// O(1) memory.
//
// Contract: guard_structured_text() returns when text is at most max_bytes
// long and nests at most kMaxNesting levels of flow/array/table brackets
// (TOML: and at most kMaxNesting segments in one dotted key); otherwise it
// throws InputError (exit 2). It never allocates in proportion to the text and
// never rejects a file only for brackets inside strings or comments. It does
// not validate syntax: the parser still does that.
//
// The readers call it through their one entry point each (load_yaml_documents
// in yaml_input.h, parse_json_text in json_input.h, parse_toml_text in
// toml_input.h); tests/compat/parser_entry_test.cc fails when product code
// calls a parser anywhere else, so a new reader cannot skip the guard.

#include <cstddef>
#include <string>
#include <string_view>

#include "compat/text_file.h"

namespace hn::compat {

enum class Syntax { kYaml, kJson, kToml };

// The deepest real input we read nests about 20 levels (a Kubernetes pod
// template's env[].valueFrom.secretKeyRef); 100 leaves room for any real file
// and keeps every recursive consumer far from the stack's end.
inline constexpr int kMaxNesting = 100;

void guard_structured_text(std::string_view text, const std::string& source, Syntax syntax,
                           std::size_t max_bytes = kMaxInputBytes);

}  // namespace hn::compat
