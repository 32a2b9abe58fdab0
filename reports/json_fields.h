#pragma once
// Strict field access for the JSON documents hnprecheck reads (its report,
// and gate's certificates, bench output and baselines). Every accessor takes
// `where`, the path of the enclosing object ("" for the document,
// "findings[2]" for a finding), and throws FieldError naming the exact field
// and what was wrong ("findings[2].status: must be a string, not number");
// the caller prefixes the source name once, at the top.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "reports/report_time.h"

namespace hn::reports::json_fields {

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void reject(const std::string& path, const std::string& problem) {
  throw FieldError((path.empty() ? std::string("document") : path) + ": " + problem);
}

inline std::string field_path(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

template <typename Json>
const Json& member(const Json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) reject(where, std::string("must be an object, not ") + obj.type_name());
  auto it = obj.find(key);
  if (it == obj.end()) reject(field_path(where, key), "is missing");
  return *it;
}

template <typename Json>
std::string get_string(const Json& obj, const char* key, const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_string())
    reject(field_path(where, key), std::string("must be a string, not ") + v.type_name());
  return v.template get<std::string>();
}

template <typename Json>
double get_number(const Json& obj, const char* key, const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_number())
    reject(field_path(where, key), std::string("must be a number, not ") + v.type_name());
  return v.template get<double>();
}

template <typename Json>
std::int64_t get_time(const Json& obj, const char* key, const std::string& where) {
  try {
    return parse_iso8601_ms(get_string(obj, key, where));
  } catch (const std::invalid_argument& e) {
    reject(field_path(where, key), e.what());
  }
}

// Status and layer parsers throw invalid_argument; re-throw with the field.
template <typename Json, typename Parse>
auto get_enum(const Json& obj, const char* key, const std::string& where, Parse parse) {
  std::string text = get_string(obj, key, where);
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    reject(field_path(where, key), e.what());
  }
}

template <typename Json>
std::int64_t get_int(const Json& obj, const char* key, const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_number_integer())
    reject(field_path(where, key), std::string("must be an integer, not ") + v.type_name());
  return v.template get<std::int64_t>();
}

// An object of strings: labels, evidence.
template <typename Json>
std::map<std::string, std::string> get_string_map(const Json& obj, const char* key,
                                                  const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_object())
    reject(field_path(where, key), std::string("must be an object, not ") + v.type_name());
  std::map<std::string, std::string> out;
  for (const auto& [k, x] : v.items()) {
    if (!x.is_string()) reject(field_path(where, std::string(key) + "." + k), "must be a string");
    out[k] = x.template get<std::string>();
  }
  return out;
}

// An array member; `where` of its items is key[i].
template <typename Json>
const Json& get_array(const Json& obj, const char* key, const std::string& where) {
  const Json& v = member(obj, key, where);
  if (!v.is_array())
    reject(field_path(where, key), std::string("must be an array, not ") + v.type_name());
  return v;
}

}  // namespace hn::reports::json_fields
