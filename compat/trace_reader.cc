#include "compat/trace_reader.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/trace_events.h"

namespace hn::compat {

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

// A kept event with what nesting adds; names are ids in TraceOpEvents::strings.
struct Event {
  std::size_t index;  // in traceEvents
  std::uint32_t thread;
  std::uint32_t op;  // 0 for cpu_op events that are not aten::
  std::uint32_t dtype;
  int rank;
  double ts, dur;
  double self;
  std::ptrdiff_t parent = -1;  // after nest_events: the enclosing aten:: event, or -1
};

// Real call stacks nest a few dozen cpu_ops deep; a trace nesting thousands
// is built to make every level a shape of its own.
constexpr std::size_t kMaxNesting = 1024;
// Distinct (op, dtype, rank, nested shapes) groups: real traces have a few
// thousand; each costs an entry in every report.
constexpr std::size_t kMaxGroups = 100000;

// Sorts the events by thread and start, then walks each thread with a stack
// of the events still open: an event's nested cpu_op children (by time
// interval) are subtracted from its self time, and an aten:: event's parent is
// the nearest aten:: event enclosing it. cpu_ops in between that are not
// aten:: (a record_function range, an autograd node) are looked through, so
// aten::mm inside "autograd::engine::evaluate_function" inside aten::foo is
// still aten::foo's child.
void nest_events(std::vector<Event>& events, const std::string& file) {
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.thread, a.ts, b.dur, a.index) < std::tie(b.thread, b.ts, a.dur, b.index);
  });
  struct Open {
    std::size_t at;
    std::ptrdiff_t aten;  // this event if it is aten::, else the aten:: event around it
  };
  std::vector<Open> stack;
  std::uint32_t thread = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    if (i == 0 || e.thread != thread) {
      stack.clear();
      thread = e.thread;
    }
    while (!stack.empty() && events[stack.back().at].ts + events[stack.back().at].dur <= e.ts)
      stack.pop_back();
    if (stack.size() >= kMaxNesting)
      throw InputError(file, 0, 0, "traceEvents[" + std::to_string(e.index) + "]",
                       "cpu_op events nested more than " + std::to_string(kMaxNesting) +
                           " deep on one thread; no real call stack does");
    const std::ptrdiff_t around = stack.empty() ? -1 : stack.back().aten;
    if (!stack.empty()) events[stack.back().at].self -= e.dur;
    if (e.op) e.parent = around;
    stack.push_back({i, e.op == 0 ? around : static_cast<std::ptrdiff_t>(i)});
  }
  for (auto& e : events) e.self = std::max(0.0, e.self);
}

}  // namespace

OpInventory read_trace_text(const std::string& text, const std::string& file) {
  // A SAX pass keeps only the cpu_op events' fields (trace_events.h): a
  // document tree of the whole trace would cost 9 to 27 times the file.
  TraceOpEvents raw = read_trace_op_events(text, file);
  std::vector<Event> ops;
  ops.reserve(raw.ops.size());
  for (const auto& r : raw.ops)
    ops.push_back(
        Event{r.index, r.thread, r.name, r.dtype, r.name ? r.rank : -1, r.ts, r.dur, r.dur, -1});
  raw.ops = {};
  nest_events(ops, file);
  const auto& str = raw.strings;

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
  using Shape = std::tuple<std::uint32_t, std::uint32_t, int, std::vector<std::size_t>>;
  std::map<Shape, std::size_t> shapes;
  std::vector<OpOccurrence> groups;
  std::vector<std::vector<std::size_t>> nested(ops.size());  // group ids inside each event
  std::size_t aten_events = 0, composite_events = 0;
  for (std::size_t k = ops.size(); k-- > 0;) {
    const Event& e = ops[k];
    if (e.op == 0) continue;
    ++aten_events;
    std::vector<std::size_t>& kids = nested[k];
    std::sort(kids.begin(), kids.end());
    kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
    if (!kids.empty()) ++composite_events;
    auto [it, fresh] = shapes.try_emplace({e.op, e.dtype, e.rank, kids}, groups.size());
    if (fresh) {
      if (groups.size() >= kMaxGroups)
        throw InputError(file, 0, 0, "traceEvents[" + std::to_string(e.index) + "]",
                         "more than " + std::to_string(kMaxGroups) +
                             " distinct aten:: calls (by op, dtype, rank and the calls nested "
                             "in them); real traces have a few thousand");
      OpOccurrence o;
      o.naming = OpNaming::kAten;
      o.op = str[e.op];
      o.dtype = str[e.dtype];
      if (e.rank >= 0) o.rank = e.rank;
      o.where = o.op;
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
  inv.detail = "Chrome trace, " + std::to_string(raw.total) + " events, " +
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
