// The sysfs/procfs half of the live source: NIC attributes, PCI
// accelerators, CPU, memory and temperatures. Every path is rooted at
// LiveRoots so the same code reads a fixture tree in tests.

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <filesystem>

#include "stack/l7_physical/live_readers.h"

namespace hn::stack::physical::detail {

namespace fs = std::filesystem;

namespace {

// "<prefix><digits><suffix>", the shape of every kernel-numbered entry we scan
// (thermal_zone3, node1, temp2_input, nvidia7).
bool numbered(std::string_view name, std::string_view prefix, std::string_view suffix = "") {
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return false;
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Entry names of dir accepted by keep, in natural order; empty when dir is
// absent (no thermal zones, no NUMA directory on a non-NUMA kernel).
template <typename Keep>
std::vector<std::string> list_dir(const std::string& dir, Keep keep) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (keep(std::string_view(name))) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  return names;
}

// Last component of a symlink's target; empty when path is not a symlink.
std::string link_basename(const std::string& path) {
  std::error_code ec;
  fs::path target = fs::read_symlink(path, ec);
  if (ec) return "";
  if (!target.has_filename()) target = target.parent_path();
  return target.filename().string();
}

std::optional<int> non_negative(std::optional<long long> v) {
  if (!v || *v < 0 || *v > INT_MAX) return std::nullopt;
  return static_cast<int>(*v);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void fill_link_sysfs(const std::string& sys, Link& link) {
  const std::string base = sys + "/class/net/" + link.name;
  // SPEED_UNKNOWN is printed as -1; a u32 printed unsigned (4294967295) by
  // older kernels falls out of the int range and is unknown too.
  link.speed_mbps = non_negative(read_integer(base + "/speed"));
  auto duplex = read_text(base + "/duplex");
  link.duplex = duplex && (*duplex == "full" || *duplex == "half") ? *duplex : "";
  link.driver = link_basename(base + "/device/driver");
  std::string device = link_basename(base + "/device");
  link.pci_address = looks_like_pci_address(device) ? device : "";
  link.numa_node = non_negative(read_integer(base + "/device/numa_node"));
}

std::string classify_accelerator(std::string_view vendor_id, std::string_view device_id,
                                 std::string_view pci_class) {
  std::string vendor = lower(std::string(vendor_id));
  std::string device = lower(std::string(device_id));
  std::string cls = lower(std::string(pci_class));
  auto class_is = [&](std::string_view prefix) { return cls.rfind(prefix, 0) == 0; };
  if (vendor == "0x10de" && (class_is("0x0300") || class_is("0x0302"))) return "nvidia";
  if (vendor == "0x19e5") {
    // Ascend cards: some firmware reports a non-accelerator class, so the
    // known device ids count on their own (310, 910, 310P/910B variants).
    static constexpr std::array<std::string_view, 5> kAscend = {"0xd100", "0xd500", "0xd801",
                                                                "0xd802", "0xd803"};
    if (class_is("0x1200") || std::find(kAscend.begin(), kAscend.end(), device) != kAscend.end())
      return "huawei";
  }
  if (vendor == "0x1002" && (class_is("0x0380") || class_is("0x1200"))) return "amd";
  return "";
}

AcceleratorInventory read_accelerators(const LiveRoots& roots) {
  AcceleratorInventory inv;
  const std::string bus = roots.sys + "/bus/pci/devices";
  for (const auto& addr : list_dir(bus, [](std::string_view) { return true; })) {
    const std::string dir = bus + "/" + addr;
    auto vendor = read_text(dir + "/vendor");
    auto device = read_text(dir + "/device");
    auto cls = read_text(dir + "/class");
    if (!vendor || !device || !cls) continue;
    std::string kind = classify_accelerator(*vendor, *device, *cls);
    if (kind.empty()) continue;
    Accelerator a;
    a.vendor = kind;
    a.pci_address = addr;
    a.vendor_id = lower(*vendor);
    a.device_id = lower(*device);
    a.pci_class = lower(*cls);
    a.numa_node = non_negative(read_integer(dir + "/numa_node"));
    inv.pci.push_back(std::move(a));
  }
  // PCI addresses are fixed-width hex: plain string order is bus order.
  std::sort(inv.pci.begin(), inv.pci.end(), [](const Accelerator& a, const Accelerator& b) {
    return a.pci_address < b.pci_address;
  });
  auto is_device_node = [](std::string_view n) {
    return numbered(n, "nvidia") || numbered(n, "davinci");
  };
  for (const auto& name : list_dir(roots.dev, is_device_node))
    inv.device_nodes.push_back((fs::path(roots.dev) / name).string());
  return inv;
}

CpuInfo read_cpu(const LiveRoots& roots) {
  CpuInfo cpu;
  const std::string online_path = roots.sys + "/devices/system/cpu/online";
  std::string online = read_required(online_path);
  auto count = count_cpulist(online);
  if (!count) throw SourceError("cannot parse cpulist '" + online + "' in " + online_path);
  cpu.logical_cpus = *count;

  if (auto info = read_text(roots.proc + "/cpuinfo")) {
    // x86 says "model name"; arm64 kernels have no model line, some vendor
    // kernels put the SoC in "Hardware".
    auto model = cpuinfo_value(*info, "model name");
    if (!model) model = cpuinfo_value(*info, "Hardware");
    cpu.model = model.value_or("");
  }

  const std::string nodes = roots.sys + "/devices/system/node";
  for (const auto& name : list_dir(nodes, [](std::string_view n) { return numbered(n, "node"); })) {
    NumaNode n;
    n.id = std::stoi(name.substr(4));
    n.cpulist = read_text(nodes + "/" + name + "/cpulist").value_or("");
    if (auto mem = read_text(nodes + "/" + name + "/meminfo"))
      n.mem_total_kib = meminfo_kib(*mem, "MemTotal").value_or(0);
    cpu.numa_nodes.push_back(std::move(n));
  }
  return cpu;
}

MemoryInfo read_memory(const LiveRoots& roots) {
  const std::string path = roots.proc + "/meminfo";
  std::string text = read_required(path);
  auto total = meminfo_kib(text, "MemTotal");
  auto available = meminfo_kib(text, "MemAvailable");
  if (!total) throw SourceError(path + " has no MemTotal line");
  // MemAvailable exists since Linux 3.14; without it any number we made up
  // would look like a reading.
  if (!available) throw SourceError(path + " has no MemAvailable line");
  return MemoryInfo{*total, *available};
}

std::vector<ThermalSensor> read_thermal(const LiveRoots& roots) {
  std::vector<ThermalSensor> out;
  const std::string thermal = roots.sys + "/class/thermal";
  auto is_zone = [](std::string_view n) { return numbered(n, "thermal_zone"); };
  for (const auto& zone : list_dir(thermal, is_zone)) {
    const std::string path = thermal + "/" + zone + "/temp";
    // Disabled zones and some ACPI zones fail the read (EAGAIN, ENODATA).
    auto milli = read_integer(path);
    if (!milli) continue;
    auto type = read_text(thermal + "/" + zone + "/type");
    std::string name = type && !type->empty() ? zone + " (" + *type + ")" : zone;
    out.push_back(ThermalSensor{name, path, static_cast<double>(*milli) / 1000.0});
  }

  const std::string hwmon = roots.sys + "/class/hwmon";
  auto is_chip = [](std::string_view n) { return numbered(n, "hwmon"); };
  auto is_input = [](std::string_view n) { return numbered(n, "temp", "_input"); };
  for (const auto& chip : list_dir(hwmon, is_chip)) {
    const std::string dir = hwmon + "/" + chip;
    auto chip_name = read_text(dir + "/name");
    for (const auto& input : list_dir(dir, is_input)) {
      const std::string path = dir + "/" + input;
      auto milli = read_integer(path);
      if (!milli) continue;
      std::string channel = input.substr(0, input.size() - std::string_view("_input").size());
      auto label = read_text(dir + "/" + channel + "_label");
      std::string name = chip;
      if (chip_name && !chip_name->empty()) name += " " + *chip_name;
      name += " " + (label && !label->empty() ? *label : channel);
      out.push_back(ThermalSensor{name, path, static_cast<double>(*milli) / 1000.0});
    }
  }
  return out;
}

}  // namespace hn::stack::physical::detail
