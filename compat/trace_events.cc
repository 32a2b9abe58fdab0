#include "compat/trace_events.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "compat/input_error.h"
#include "compat/json_input.h"
#include "compat/text_file.h"
#include "compat/trace_reader.h"

namespace hn::compat {

namespace {

using nlohmann::json;

// What an event's fields were, collected in any key order and judged when
// the event's object ends.
struct Fields {
  std::optional<std::string> cat, ph, name;  // set only when a string
  bool has_cat = false, has_ph = false;
  std::optional<double> ts, dur;  // set only when a number
  std::string pid = "null", tid = "null";
  int first_tensor = -1;  // "Input type": the first entry naming a tensor dtype
  std::string dtype;
  std::vector<int> dims;  // "Input Dims": each entry's length
  bool args_object = false;
};

class TraceSax final : public nlohmann::json_sax<json> {
 public:
  TraceSax(const std::string& file, TraceOpEvents& out) : file_(file), out_(out) {}

  bool null() override { return scalar("null", std::nullopt, std::nullopt); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false", std::nullopt, std::nullopt); }
  bool number_integer(number_integer_t v) override {
    return scalar(std::to_string(v), static_cast<double>(v), std::nullopt);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return scalar(std::to_string(v), static_cast<double>(v), std::nullopt);
  }
  bool number_float(number_float_t v, const string_t&) override {
    return scalar(json(v).dump(), v, std::nullopt);
  }
  bool string(string_t& v) override { return scalar(json(v).dump(), std::nullopt, v); }
  bool binary(binary_t&) override { return scalar("null", std::nullopt, std::nullopt); }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // sax_parse_json_text reports it
  }

  // The first structure problem, thrown once the whole text parsed.
  void finish() {
    if (error_) throw *error_;
    if (root_object_ && !saw_events_)
      throw InputError(file_, 0, 0, "traceEvents",
                       "missing: not a Chrome trace (expected {\"traceEvents\": [...]} as "
                       "torch.profiler writes it)");
  }

 private:
  // Where a value sits, by the depth of the containers around it.
  enum class At { kOther, kRoot, kEvents, kEvent, kArgs, kTypes, kDims, kDimsEntry };

  void problem(const std::string& field, const std::string& what) {
    if (!error_) error_ = InputError(file_, 0, 0, field, what);
  }
  std::string event_field(const char* key, std::size_t i) const {
    return "traceEvents[" + std::to_string(i) + "]" + (key ? std::string(".") + key : "");
  }

  // What the value about to start is, from its container and key.
  At here() const {
    if (stack_.empty()) return At::kRoot;
    const At parent = stack_.back();
    switch (parent) {
      case At::kRoot:
        return root_object_ ? (key_ == "traceEvents" ? At::kEvents : At::kOther) : At::kEvent;
      case At::kEvents:
        return At::kEvent;
      case At::kEvent:
        return key_ == "args" ? At::kArgs : At::kOther;
      case At::kArgs:
        return key_ == "Input type" ? At::kTypes : key_ == "Input Dims" ? At::kDims : At::kOther;
      case At::kDims:
        return At::kDimsEntry;
      default:
        return At::kOther;
    }
  }

  bool open(bool object) {
    At at = here();
    if (stack_.empty()) {
      saw_root_ = true;
      root_object_ = object;
      if (!object) begin_events();
      stack_.push_back(At::kRoot);
      if (!object) stack_.back() = At::kEvents;
      return true;
    }
    const At parent = stack_.back();
    if (parent == At::kEvent) on_event_value(nullptr, std::nullopt, std::nullopt, object);
    if (parent == At::kTypes) note_type(std::nullopt);
    if (parent == At::kDimsEntry) ++dims_count_;
    if (at == At::kEvents && !object) {
      begin_events();
    } else if (at == At::kEvents) {
      problem("traceEvents", "expected a list of events");
      at = At::kOther;
    } else if (at == At::kEvent) {
      if (!object) {
        problem(event_field(nullptr, index_), "expected an event object");
        at = At::kOther;
        ++index_;
        ++out_.total;
      } else {
        fields_ = Fields{};
      }
    } else if (at == At::kArgs) {
      if (object)
        fields_.args_object = true;
      else
        at = At::kOther;
    } else if ((at == At::kTypes || at == At::kDims) && !fields_.args_object) {
      at = At::kOther;
    } else if (at == At::kTypes && !object) {
      types_seen_ = 0;
      fields_.first_tensor = -1;
      fields_.dtype.clear();
    } else if (at == At::kDims && !object) {
      fields_.dims.clear();
    } else if (at == At::kDimsEntry) {
      if (object)
        at = At::kOther;
      else
        dims_count_ = 0;
    } else if (at == At::kTypes || at == At::kDims) {
      at = At::kOther;
    }
    stack_.push_back(at);
    return true;
  }

  bool close() {
    const At at = stack_.back();
    stack_.pop_back();
    if (at == At::kEvent) end_event();
    if (at == At::kDimsEntry) fields_.dims.push_back(dims_count_);
    if (!stack_.empty() && stack_.back() == At::kDims && at != At::kDimsEntry)
      fields_.dims.push_back(-1);
    return true;
  }

  bool scalar(const std::string& text, std::optional<double> number,
              std::optional<std::string> str) {
    if (stack_.empty()) {
      saw_root_ = true;
      problem("", "not a Chrome trace: expected an object with traceEvents or a list");
      return true;
    }
    const At parent = stack_.back();
    switch (parent) {
      case At::kRoot:
        if (key_ == "traceEvents") problem("traceEvents", "expected a list of events");
        break;
      case At::kEvents:
        problem(event_field(nullptr, index_), "expected an event object");
        ++index_;
        ++out_.total;
        break;
      case At::kEvent:
        on_event_value(&text, number, str, false);
        break;
      case At::kTypes:
        note_type(str);
        break;
      case At::kDims:
        fields_.dims.push_back(-1);
        break;
      case At::kDimsEntry:
        ++dims_count_;
        break;
      default:
        break;
    }
    return true;
  }

  void on_event_value(const std::string* text, std::optional<double> number,
                      std::optional<std::string> str, bool object) {
    Fields& f = fields_;
    if (key_ == "cat") {
      f.has_cat = true;
      f.cat = str;
    } else if (key_ == "ph") {
      f.has_ph = true;
      f.ph = str;
    } else if (key_ == "name") {
      f.name = str;
    } else if (key_ == "ts") {
      f.ts = number ? number : number_in(str);
    } else if (key_ == "dur") {
      f.dur = number ? number : number_in(str);
    } else if (key_ == "pid" || key_ == "tid") {
      (key_ == "pid" ? f.pid : f.tid) = text ? *text : object ? "(object)" : "(list)";
    } else if (key_ == "args" && text) {
      f.args_object = false;
    }
  }

  // torch_npu writes times as strings of a decimal number.
  static std::optional<double> number_in(const std::optional<std::string>& s) {
    if (!s || s->empty() || s->size() > 64) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s->c_str(), &end);
    if (errno != 0 || end != s->c_str() + s->size() || !std::isfinite(v)) return std::nullopt;
    return v;
  }

  std::uint32_t intern(const std::string& s) {
    if (s.empty()) return 0;
    auto [it, fresh] = ids_.try_emplace(s, static_cast<std::uint32_t>(out_.strings.size()));
    if (fresh) out_.strings.push_back(s);
    return it->second;
  }

  void note_type(std::optional<std::string> s) {
    const int k = static_cast<int>(types_seen_++);
    if (fields_.first_tensor >= 0 || !s) return;
    std::string d = c10_dtype_name(*s);
    if (d.empty()) return;
    fields_.first_tensor = k;
    fields_.dtype = std::move(d);
  }

  void begin_events() {
    saw_events_ = true;
    out_.total = 0;
    out_.ops.clear();
    index_ = 0;
  }

  void end_event() {
    const std::size_t i = index_++;
    ++out_.total;
    types_seen_ = 0;
    const Fields& f = fields_;
    if (!f.cat || (*f.cat != "cpu_op" && *f.cat != "Operator")) return;
    if (!f.ph || *f.ph != "X") return;
    if (!f.ts) return problem(event_field("ts", i), "a cpu_op complete event needs a number here");
    if (!f.dur)
      return problem(event_field("dur", i), "a cpu_op complete event needs a number here");
    if (*f.dur < 0) return problem(event_field("dur", i), "negative duration");
    if (out_.ops.size() >= kMaxTraceOps)
      throw InputError(file_, 0, 0, event_field(nullptr, i),
                       "more than " + std::to_string(kMaxTraceOps) +
                           " cpu_op events: profile fewer steps (torch.profiler's "
                           "schedule(active=1)) or one rank's trace");
    TraceOpEvent e;
    e.index = i;
    e.thread = intern(f.pid + "/" + f.tid);
    e.ts = *f.ts;
    e.dur = *f.dur;
    const bool aten = f.name && f.name->rfind("aten::", 0) == 0;
    if (aten) e.name = intern(*f.name);
    if (aten && f.args_object && f.first_tensor >= 0) {
      e.dtype = intern(f.dtype);
      const auto k = static_cast<std::size_t>(f.first_tensor);
      e.rank = k < f.dims.size() ? f.dims[k] : -1;
    }
    out_.ops.push_back(e);
  }

  const std::string& file_;
  TraceOpEvents& out_;
  std::vector<At> stack_;
  std::string key_;
  Fields fields_;
  std::size_t index_ = 0, types_seen_ = 0;
  int dims_count_ = 0;
  bool saw_root_ = false, root_object_ = false, saw_events_ = false;
  std::optional<InputError> error_;
  std::unordered_map<std::string, std::uint32_t> ids_;
};

}  // namespace

TraceOpEvents read_trace_op_events(const std::string& text, const std::string& file) {
  TraceOpEvents out;
  TraceSax sax(file, out);
  sax_parse_json_text(text, file, sax, kMaxModelBytes, "not a JSON trace");
  sax.finish();
  return out;
}

}  // namespace hn::compat
