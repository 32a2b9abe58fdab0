#include "stack/l2_framework/layout.h"

#include <array>
#include <cctype>
#include <charconv>

namespace hn::stack::framework {

namespace {

// The rank's coordinates along the finest axes, tp fastest: (tp, ep,
// expert_dp, pp). Every group kind is the set of axes that vary within it.
constexpr int kAxes = 4;
enum Axis { kTp = 0, kEp = 1, kEdp = 2, kPp = 3 };

std::array<int, kAxes> sizes(const Layout& l) {
  return {l.tp, l.ep, l.dp / l.ep, l.pp};
}

std::array<bool, kAxes> varying(GroupKind k) {
  switch (k) {
    case GroupKind::kTensor:
      return {true, false, false, false};
    case GroupKind::kPipeline:
      return {false, false, false, true};
    case GroupKind::kData:
      return {false, true, true, false};
    case GroupKind::kExpert:
      return {false, true, false, false};
    case GroupKind::kExpertData:
      return {false, false, true, false};
    case GroupKind::kModelParallel:
      return {true, false, false, true};
  }
  return {};
}

std::array<int, kAxes> axis_coords(const Layout& l, int rank) {
  auto s = sizes(l);
  std::array<int, kAxes> c{};
  for (int a = 0; a < kAxes; ++a) {
    c[a] = rank % s[a];
    rank /= s[a];
  }
  return c;
}

int from_axis_coords(const Layout& l, const std::array<int, kAxes>& c) {
  auto s = sizes(l);
  int rank = 0;
  for (int a = kAxes; a-- > 0;) rank = rank * s[a] + c[a];
  return rank;
}

// Mixed-radix number of the coordinates selected by `pick`, first axis fastest.
int index_over(const Layout& l, const std::array<int, kAxes>& c,
               const std::array<bool, kAxes>& pick) {
  auto s = sizes(l);
  int index = 0, scale = 1;
  for (int a = 0; a < kAxes; ++a)
    if (pick[a]) {
      index += c[a] * scale;
      scale *= s[a];
    }
  return index;
}

void check_rank(const Layout& l, int rank) {
  if (rank < 0 || rank >= l.world())
    throw LayoutError("rank " + std::to_string(rank) + " is outside layout " + l.to_string() +
                      " (world " + std::to_string(l.world()) + ")");
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view to_string(GroupKind k) {
  switch (k) {
    case GroupKind::kTensor:
      return "tp";
    case GroupKind::kPipeline:
      return "pp";
    case GroupKind::kData:
      return "dp";
    case GroupKind::kExpert:
      return "ep";
    case GroupKind::kExpertData:
      return "expert_dp";
    case GroupKind::kModelParallel:
      return "mp";
  }
  return "?";
}

std::string Layout::to_string() const {
  std::string s =
      "tp=" + std::to_string(tp) + ",pp=" + std::to_string(pp) + ",dp=" + std::to_string(dp);
  if (ep != 1) s += ",ep=" + std::to_string(ep);
  return s;
}

void Layout::validate() const {
  const std::pair<const char*, int> all[] = {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"ep", ep}};
  for (const auto& [name, v] : all)
    if (v < 1)
      throw LayoutError(std::string("layout ") + name + "=" + std::to_string(v) +
                        ": every size must be at least 1");
  if (dp % ep != 0)
    throw LayoutError("layout " + to_string() + ": ep=" + std::to_string(ep) + " must divide dp=" +
                      std::to_string(dp) + " (expert parallelism splits each data-parallel group)");
}

void Layout::fits(int world_size) const {
  validate();
  if (world() != world_size)
    throw LayoutError("layout " + to_string() + ": tp=" + std::to_string(tp) +
                      " x pp=" + std::to_string(pp) + " x dp=" + std::to_string(dp) + " = " +
                      std::to_string(world()) + " ranks, but the job has " +
                      std::to_string(world_size));
}

Coords Layout::coords(int rank) const {
  check_rank(*this, rank);
  auto c = axis_coords(*this, rank);
  Coords out;
  out.tp = c[kTp];
  out.ep = c[kEp];
  out.expert_dp = c[kEdp];
  out.pp = c[kPp];
  out.dp = c[kEp] + ep * c[kEdp];
  return out;
}

int Layout::rank_of(const Coords& c) const {
  if (c.tp < 0 || c.tp >= tp || c.pp < 0 || c.pp >= pp || c.dp < 0 || c.dp >= dp)
    throw LayoutError("coordinates tp " + std::to_string(c.tp) + ", pp " + std::to_string(c.pp) +
                      ", dp " + std::to_string(c.dp) + " are outside layout " + to_string());
  return from_axis_coords(*this, {c.tp, c.dp % ep, c.dp / ep, c.pp});
}

std::vector<std::vector<int>> Layout::groups(GroupKind k) const {
  validate();
  const auto vary = varying(k);
  std::array<bool, kAxes> fixed{};
  for (int a = 0; a < kAxes; ++a) fixed[a] = !vary[a];
  auto s = sizes(*this);
  int group_size = 1;
  for (int a = 0; a < kAxes; ++a)
    if (vary[a]) group_size *= s[a];
  std::vector<std::vector<int>> out(static_cast<std::size_t>(world() / group_size));
  // Ranks in increasing order land in increasing positions of their group.
  for (int r = 0; r < world(); ++r)
    out[static_cast<std::size_t>(index_over(*this, axis_coords(*this, r), fixed))].push_back(r);
  return out;
}

std::vector<int> Layout::group_of(GroupKind k, int rank) const {
  return groups(k)[static_cast<std::size_t>(group_index(k, rank))];
}

int Layout::group_index(GroupKind k, int rank) const {
  validate();
  check_rank(*this, rank);
  auto vary = varying(k);
  std::array<bool, kAxes> fixed{};
  for (int a = 0; a < kAxes; ++a) fixed[a] = !vary[a];
  return index_over(*this, axis_coords(*this, rank), fixed);
}

int Layout::rank_in_group(GroupKind k, int rank) const {
  validate();
  check_rank(*this, rank);
  return index_over(*this, axis_coords(*this, rank), varying(k));
}

Layout parse_layout(std::string_view text, int world_size) {
  Layout l;
  bool seen[4] = {false, false, false, false};
  const std::string whole(text);
  if (trim(text).empty()) throw LayoutError("layout is empty (expected e.g. tp=2,pp=2,dp=2)");
  for (bool more = true; more;) {
    auto comma = text.find(',');
    more = comma != std::string_view::npos;
    std::string_view tok = trim(text.substr(0, comma));
    text = more ? text.substr(comma + 1) : std::string_view{};
    auto eq = tok.find('=');
    if (eq == std::string_view::npos)
      throw LayoutError("layout '" + whole + "': '" + std::string(tok) +
                        "' is not KEY=N (keys tp, pp, dp, ep)");
    std::string_view key = trim(tok.substr(0, eq)), value = trim(tok.substr(eq + 1));
    static const char* kKeys[] = {"tp", "pp", "dp", "ep"};
    int* fields[] = {&l.tp, &l.pp, &l.dp, &l.ep};
    int which = -1;
    for (int i = 0; i < 4; ++i)
      if (key == kKeys[i]) which = i;
    if (which < 0)
      throw LayoutError("layout '" + whole + "': unknown key '" + std::string(key) +
                        "' (expected tp, pp, dp or ep)");
    if (seen[which])
      throw LayoutError("layout '" + whole + "': " + std::string(key) + " is given twice");
    seen[which] = true;
    int v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || v < 1 || v > (1 << 20))
      throw LayoutError("layout '" + whole + "': " + std::string(key) + "=" + std::string(value) +
                        " is not a whole number from 1 to 1048576");
    *fields[which] = v;
  }
  if (!seen[2] && world_size > 0) {
    if (world_size % (l.tp * l.pp) != 0)
      throw LayoutError("layout '" + whole + "': tp=" + std::to_string(l.tp) +
                        " x pp=" + std::to_string(l.pp) + " = " + std::to_string(l.tp * l.pp) +
                        " does not divide the job's " + std::to_string(world_size) + " ranks");
    l.dp = world_size / (l.tp * l.pp);
  }
  l.validate();
  return l;
}

}  // namespace hn::stack::framework
