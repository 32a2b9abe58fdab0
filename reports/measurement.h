#pragma once
// One measured figure (a busbw, a p99, a step time), as certify writes it to
// the certificate and gate compares it with a baseline. Plain data: its
// identity is `name` plus `labels`, so two runs' figures with the same
// identity are the same measurement. The direction (`better`) is stated by
// whoever measured it and never guessed from the name by a reader.
// docs/certificate-schema.md describes the JSON form.

#include <map>
#include <string>
#include <string_view>

namespace hn::reports {

enum class Better { kHigher, kLower, kNone };

struct Measurement {
  std::string name;                           // dotted, lower case: "collective.busbw"
  std::map<std::string, std::string> labels;  // what it is of: host, plane, op, bytes, ...
  double value = 0;                           // NaN/inf are written as null
  std::string unit;                           // "GB/s", "us", "ms", "MB/s", "bytes", ...
  Better better = Better::kNone;
  std::string phase;  // the certify phase (or command) that measured it

  bool operator==(const Measurement&) const = default;
};

// "higher", "lower", "none".
std::string_view to_string(Better b);
// Throws std::invalid_argument naming the text when it is not one of the three.
Better better_from_string(std::string_view s);
// name{key=value,key=value} with labels in key order: the comparison key.
std::string identity(const Measurement& m);

}  // namespace hn::reports
