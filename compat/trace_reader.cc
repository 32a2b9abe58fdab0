#include "compat/trace_reader.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "compat/input_error.h"
#include "compat/json_input.h"
#include "compat/text_file.h"

namespace hn::compat {

using nlohmann::json;

std::string c10_dtype_name(const std::string& type) {
  struct Alias {
    const char* c10;
    const char* name;
  };
  static constexpr Alias kAliases[] = {
      {"float", "f32"},
      {"double", "f64"},
      {"c10::Half", "f16"},
      {"c10::BFloat16", "bf16"},
      {"int", "i32"},
      {"long int", "i64"},
      {"long long int", "i64"},
      {"long", "i64"},
      {"short int", "i16"},
      {"short", "i16"},
      {"signed char", "i8"},
      {"unsigned char", "u8"},
      {"unsigned short", "u16"},
      {"unsigned int", "u32"},
      {"unsigned long", "u64"},
      {"bool", "bool"},
      {"c10::complex<float>", "c64"},
      {"c10::complex<double>", "c128"},
      {"c10::complex<c10::Half>", "c32"},
      {"c10::Float8_e4m3fn", "f8e4m3fn"},
      {"c10::Float8_e4m3fnuz", "f8e4m3fnuz"},
      {"c10::Float8_e5m2", "f8e5m2"},
      {"c10::Float8_e5m2fnuz", "f8e5m2fnuz"},
  };
  static constexpr const char* kNotTensors[] = {"",           "Scalar",      "ScalarList",
                                                "TensorList", "GenericList", "None"};
  for (const auto& a : kAliases)
    if (type == a.c10) return a.name;
  for (const char* n : kNotTensors)
    if (type == n) return "";
  return type;
}

namespace {

[[noreturn]] void structure_error(const std::string& file, const std::string& field,
                                  const std::string& what) {
  throw InputError(file, 0, 0, field, what);
}

struct Event {
  std::size_t index;  // in traceEvents
  std::string thread;
  double ts, dur;
  std::string op;  // empty for cpu_op events that are not aten::
  std::string dtype;
  int rank;
  double self;
  std::ptrdiff_t parent = -1;  // after nest_events: the enclosing aten:: event, or -1
};

double number_field(const json& ev, const char* key, const std::string& file, std::size_t i) {
  auto it = ev.find(key);
  if (it == ev.end() || !it->is_number())
    structure_error(file, "traceEvents[" + std::to_string(i) + "]." + key,
                    "a cpu_op complete event needs a number here");
  return it->get<double>();
}

// The first tensor argument's dtype and rank.
void tensor_facts(const json& args, Event& e) {
  e.rank = -1;
  auto types = args.find("Input type");
  if (types == args.end() || !types->is_array()) return;
  auto dims = args.find("Input Dims");
  for (std::size_t k = 0; k < types->size(); ++k) {
    const json& t = (*types)[k];
    if (!t.is_string()) continue;
    std::string d = c10_dtype_name(t.get<std::string>());
    if (d.empty()) continue;
    e.dtype = d;
    if (dims != args.end() && dims->is_array() && k < dims->size() && (*dims)[k].is_array())
      e.rank = static_cast<int>((*dims)[k].size());
    return;
  }
}

// Sorts the events by thread and start, then walks each thread with a stack
// of the events still open: an event's nested cpu_op children (by time
// interval) are subtracted from its self time, and an aten:: event's parent is
// the nearest aten:: event enclosing it. cpu_ops in between that are not
// aten:: (a record_function range, an autograd node) are looked through, so
// aten::mm inside "autograd::engine::evaluate_function" inside aten::foo is
// still aten::foo's child.
void nest_events(std::vector<Event>& events) {
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.thread, a.ts, b.dur, a.index) < std::tie(b.thread, b.ts, a.dur, b.index);
  });
  struct Open {
    std::size_t at;
    std::ptrdiff_t aten;  // this event if it is aten::, else the aten:: event around it
  };
  std::vector<Open> stack;
  std::string thread;
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    if (e.thread != thread) {
      stack.clear();
      thread = e.thread;
    }
    while (!stack.empty() && events[stack.back().at].ts + events[stack.back().at].dur <= e.ts)
      stack.pop_back();
    const std::ptrdiff_t around = stack.empty() ? -1 : stack.back().aten;
    if (!stack.empty()) events[stack.back().at].self -= e.dur;
    if (!e.op.empty()) e.parent = around;
    stack.push_back({i, e.op.empty() ? around : static_cast<std::ptrdiff_t>(i)});
  }
  for (auto& e : events) e.self = std::max(0.0, e.self);
}

}  // namespace

OpInventory read_trace_text(const std::string& text, const std::string& file) {
  const json doc = parse_json_text(text, file, kMaxModelBytes, "not a JSON trace");
  const json* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
  } else if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it == doc.end())
      structure_error(file, "traceEvents",
                      "missing: not a Chrome trace (expected {\"traceEvents\": [...]} as "
                      "torch.profiler writes it)");
    if (!it->is_array()) structure_error(file, "traceEvents", "expected a list of events");
    events = &*it;
  } else {
    structure_error(file, "", "not a Chrome trace: expected an object with traceEvents or a list");
  }

  std::vector<Event> ops;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& ev = (*events)[i];
    if (!ev.is_object())
      structure_error(file, "traceEvents[" + std::to_string(i) + "]", "expected an event object");
    auto cat = ev.find("cat"), ph = ev.find("ph"), name = ev.find("name");
    if (cat == ev.end() || !cat->is_string()) continue;
    if (*cat != "cpu_op" && *cat != "Operator") continue;
    if (ph == ev.end() || *ph != "X") continue;
    Event e{};
    e.index = i;
    e.ts = number_field(ev, "ts", file, i);
    e.dur = number_field(ev, "dur", file, i);
    if (e.dur < 0)
      structure_error(file, "traceEvents[" + std::to_string(i) + "].dur", "negative duration");
    e.self = e.dur;
    e.thread = ev.value("pid", json()).dump() + "/" + ev.value("tid", json()).dump();
    if (name != ev.end() && name->is_string() && name->get<std::string>().rfind("aten::", 0) == 0)
      e.op = name->get<std::string>();
    e.rank = -1;
    if (auto args = ev.find("args"); !e.op.empty() && args != ev.end() && args->is_object())
      tensor_facts(*args, e);
    ops.push_back(std::move(e));
  }
  nest_events(ops);

  OpInventory inv;
  inv.kind = InventoryKind::kTrace;
  inv.file = file;
  for (const auto& e : ops) inv.total_self_us += e.self;
  // Calls are grouped by (op, dtype, rank) and the groups of the aten:: calls
  // directly inside them: a call's whole nested tree decides whether it can
  // run as its decomposition, so calls with different trees must not share
  // an occurrence. Walking backwards sees every call after the calls nested
  // in it (nest_events puts a parent before its children), so a group only
  // ever points to groups made before it.
  using Shape = std::tuple<std::string, std::string, int, std::vector<std::size_t>>;
  std::map<Shape, std::size_t> shapes;
  std::vector<OpOccurrence> groups;
  std::vector<std::vector<std::size_t>> nested(ops.size());  // group ids inside each event
  std::size_t aten_events = 0, composite_events = 0;
  for (std::size_t k = ops.size(); k-- > 0;) {
    const Event& e = ops[k];
    if (e.op.empty()) continue;
    ++aten_events;
    std::vector<std::size_t>& kids = nested[k];
    std::sort(kids.begin(), kids.end());
    kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
    if (!kids.empty()) ++composite_events;
    auto [it, fresh] = shapes.try_emplace({e.op, e.dtype, e.rank, kids}, groups.size());
    if (fresh) {
      OpOccurrence o;
      o.naming = OpNaming::kAten;
      o.op = e.op;
      o.dtype = e.dtype;
      if (e.rank >= 0) o.rank = e.rank;
      o.where = e.op;
      o.count = 0;
      o.position = static_cast<int>(e.index) + 1;
      o.children = kids;  // group ids for now
      groups.push_back(std::move(o));
    }
    OpOccurrence& o = groups[it->second];
    ++o.count;
    o.position = std::min(o.position, static_cast<int>(e.index) + 1);
    o.last_position = std::max(o.last_position, static_cast<int>(e.index) + 1);
    o.total_us += e.dur;
    o.self_us += e.self;
    if (e.parent >= 0) nested[static_cast<std::size_t>(e.parent)].push_back(it->second);
  }
  // Report order is first occurrence; children become indices in that order.
  std::vector<std::size_t> order(groups.size()), index_of(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return groups[a].position < groups[b].position; });
  for (std::size_t i = 0; i < order.size(); ++i) index_of[order[i]] = i;
  for (std::size_t id : order) {
    OpOccurrence& o = groups[id];
    for (auto& c : o.children) c = index_of[c];
    std::sort(o.children.begin(), o.children.end());
    inv.ops.push_back(std::move(o));
  }
  inv.detail = "Chrome trace, " + std::to_string(events->size()) + " events, " +
               std::to_string(ops.size()) + " cpu_op, " + std::to_string(aten_events) +
               " aten:: (" + std::to_string(composite_events) + " with aten:: ops nested inside)";
  if (aten_events == 0)
    inv.notes.push_back("no aten:: cpu_op events: was the profile recorded with the CPU activity?");
  return inv;
}

OpInventory read_trace_file(const std::string& path) {
  return read_trace_text(read_text_file(path, kMaxModelBytes), path);
}

}  // namespace hn::compat
