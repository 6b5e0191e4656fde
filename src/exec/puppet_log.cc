// Summarising Puppet's log; see puppet_log.h.
#include "fsmove/exec/puppet_log.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "fsmove/strace/puppet_markers.h"

namespace fsmove::exec {
namespace {

// What one resource's error may add up to: a daemon can print a lot before it dies.
constexpr size_t kMaxLinesPerError = 40;
constexpr size_t kMaxErrorBytes = 8192;
constexpr size_t kMaxErrorsPerResource = 10;
// Change messages kept per resource and apply (an exec logging its output makes many).
constexpr size_t kMaxChangesPerResource = 20;

// A line Puppet logged (its level first); other lines continue the one before.
bool IsLogLine(std::string_view l) {
  for (std::string_view level : {"Debug: ", "Info: ", "Notice: ", "Warning: ", "Error: ",
                                 "Critical: ", "Alert: ", "Emergency: "}) {
    if (l.starts_with(level)) return true;
  }
  return false;
}

// "/Stage[main]/Main/Exec[x]/returns: ..." -> ("Exec[x]", message): strace's reading of
// the same lines in the trace, so that both agree.
bool SplitResourceError(std::string_view s, std::string* ref, std::string* message,
                        std::string* property = nullptr) {
  return s.starts_with("/") && strace::SplitResourceMessage(s, ref, message, property);
}

// Calls `f(line)` for each line of `log`, ANSI colours and trailing blanks removed.
template <typename F>
void ForEachLine(std::string_view log, F f) {
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string line = StripAnsi(log.substr(start, end - start));
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    f(std::string_view(line));
  }
}

}  // namespace

std::string StripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !((text[j] >= '@' && text[j] <= '~'))) ++j;
      i = j;  // skip the final letter too
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string LegacyFactUsed(std::string_view log) {
  // Facter's legacy (flat) facts that Puppet 8 no longer sets by default; a name with a
  // trailing '_' stands for its per-interface or per-device family (ipaddress_eth0).
  static constexpr std::string_view kLegacy[] = {"architecture",
                                                 "augeasversion",
                                                 "blockdevices",
                                                 "domain",
                                                 "fqdn",
                                                 "hardwareisa",
                                                 "hardwaremodel",
                                                 "hostname",
                                                 "interfaces",
                                                 "ipaddress",
                                                 "ipaddress6",
                                                 "ipaddress_",
                                                 "ipaddress6_",
                                                 "is_virtual",
                                                 "lsbdistcodename",
                                                 "lsbdistdescription",
                                                 "lsbdistid",
                                                 "lsbdistrelease",
                                                 "lsbmajdistrelease",
                                                 "lsbminordistrelease",
                                                 "macaddress",
                                                 "macaddress_",
                                                 "manufacturer",
                                                 "memoryfree",
                                                 "memoryfree_mb",
                                                 "memorysize",
                                                 "memorysize_mb",
                                                 "netmask",
                                                 "netmask_",
                                                 "network",
                                                 "network_",
                                                 "operatingsystem",
                                                 "operatingsystemmajrelease",
                                                 "operatingsystemrelease",
                                                 "osfamily",
                                                 "physicalprocessorcount",
                                                 "processorcount",
                                                 "productname",
                                                 "rubyversion",
                                                 "selinux",
                                                 "serialnumber",
                                                 "swapfree",
                                                 "swapsize",
                                                 "uptime",
                                                 "uptime_days",
                                                 "uuid"};
  for (std::string_view sign :
       {std::string_view("Unknown variable: '::"), std::string_view("Unknown variable: '")}) {
    for (size_t at = log.find(sign); at != std::string_view::npos; at = log.find(sign, at + 1)) {
      std::string_view name = log.substr(at + sign.size());
      name = name.substr(0, name.find('\''));
      for (std::string_view legacy : kLegacy) {
        if (legacy.ends_with('_') ? name.starts_with(legacy) && name.size() > legacy.size()
                                  : name == legacy) {
          return std::string(name);
        }
      }
    }
  }
  return {};
}

bool LacksModules(std::string_view log) {
  for (std::string_view sign :
       {"Could not find class", "Could not find declared class", "Unknown resource type",
        "Resource type not found", "Unknown function", "Could not autoload"}) {
    if (log.find(sign) != std::string_view::npos) return true;
  }
  // A top-scope variable no module sets, unless it is a fact Puppet 8 dropped.
  return log.find("Unknown variable: '::") != std::string_view::npos && LegacyFactUsed(log).empty();
}

std::string UnfoundName(std::string_view error) {
  for (std::string_view sign :
       {"Could not find class ", "Could not find declared class ", "Unknown resource type: ",
        "Resource type not found: ", "Unknown function: ", "Unknown variable: "}) {
    const size_t at = error.find(sign);
    if (at == std::string_view::npos) continue;
    std::string_view rest = error.substr(at + sign.size());
    if (rest.starts_with('\'')) rest.remove_prefix(1);
    if (rest.starts_with("::")) rest.remove_prefix(2);
    size_t end = 0;
    while (end < rest.size()) {
      const char c = rest[end];
      const bool word =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (word) {
        ++end;
      } else if (rest.substr(end).starts_with("::") && end + 2 < rest.size()) {
        end += 2;
      } else {
        break;
      }
    }
    // A variable names a module only with its class (`$::apache::params::user`); a plain one
    // is a fact or a typo.
    const std::string_view name = rest.substr(0, end);
    if (sign.starts_with("Unknown variable") && name.find("::") == std::string_view::npos) continue;
    if (!name.empty()) return std::string(name);
  }
  return {};
}

std::string ModuleOfName(std::string_view name) {
  if (name.starts_with("::")) name.remove_prefix(2);
  const std::string_view module = name.substr(0, name.find("::"));
  return absl::AsciiStrToLower(absl::string_view(module.data(), module.size()));
}

std::string UnfoundModule(std::string_view error) {
  const std::string name = UnfoundName(error);
  if (name.empty()) return {};
  const bool a_class = error.find("Could not find class ") != std::string_view::npos ||
                       error.find("Could not find declared class ") != std::string_view::npos;
  if (!a_class && name.find("::") == std::string::npos) return {};
  return ModuleOfName(name);
}

std::string CoreTypeModule(std::string_view type) {
  // Puppet 6.0's release notes, "Removed and deprecated types": the types moved to modules
  // (https://www.puppet.com/docs/puppet/6/release_notes_puppet.html), by module.
  static constexpr std::pair<std::string_view, std::string_view> kMoved[] = {
      {"augeas", "puppetlabs-augeas_core"},
      {"cron", "puppetlabs-cron_core"},
      {"host", "puppetlabs-host_core"},
      {"mailalias", "puppetlabs-mailalias_core"},
      {"maillist", "puppetlabs-maillist_core"},
      {"mount", "puppetlabs-mount_core"},
      {"scheduled_task", "puppetlabs-scheduled_task"},
      {"selboolean", "puppetlabs-selinux_core"},
      {"selmodule", "puppetlabs-selinux_core"},
      {"ssh_authorized_key", "puppetlabs-sshkeys_core"},
      {"sshkey", "puppetlabs-sshkeys_core"},
      {"yumrepo", "puppetlabs-yumrepo_core"},
      {"zfs", "puppetlabs-zfs_core"},
      {"zpool", "puppetlabs-zfs_core"},
      {"zone", "puppetlabs-zone_core"},
  };
  const std::string name = absl::AsciiStrToLower(absl::string_view(type.data(), type.size()));
  for (const auto& [moved, module] : kMoved) {
    if (name == moved) return std::string(module);
  }
  if (name.starts_with("nagios_")) return "puppetlabs-nagios_core";
  return {};
}

namespace {

// Calls f(text) for the text after "Error: " of each line that starts so (ANSI colours and
// trailing blanks removed: the text lives only during the call).
template <typename F>
void ForEachErrorLine(std::string_view log, F f) {
  ForEachLine(log, [&](std::string_view line) {
    if (line.starts_with("Error: ")) f(line.substr(7));
  });
}

// Facter 3 says "error while resolving custom fact \"NAME\"" (or "... custom facts in
// FILE"), Facter 4 "Error while resolving custom fact fact='NAME', resolution=...".
constexpr std::string_view kCustomFact = "rror while resolving custom fact";

bool IsFactError(std::string_view text) {
  return text.starts_with("Facter: ") || text.find(kCustomFact) != std::string_view::npos;
}

// The fact's name after kCustomFact: fact='NAME', "NAME" or 'NAME'; for a whole file that
// failed ("facts in FILE"), the file.
std::string_view FactName(std::string_view rest) {
  if (rest.starts_with("s in ")) {
    rest.remove_prefix(5);
    return rest.substr(0, rest.find(':'));
  }
  rest = rest.substr(rest.find_first_not_of(' ') == std::string_view::npos
                         ? rest.size()
                         : rest.find_first_not_of(' '));
  if (rest.starts_with("fact=")) rest.remove_prefix(5);
  if (rest.empty() || (rest.front() != '\'' && rest.front() != '"')) return {};
  const char quote = rest.front();
  rest.remove_prefix(1);
  return rest.substr(0, rest.find(quote));
}

constexpr size_t kMaxFacterWarnings = 5;
constexpr size_t kMaxFacterWarningBytes = 300;

// The warning for one of Facter's error lines (`text` after "Error: "), unless an earlier one
// said the same: "custom fact 'NAME' failed: why" for a custom fact, else Facter's words.
void AddFacterWarning(std::string_view text, std::vector<std::string>* warnings, size_t* more) {
  std::string warning;
  if (const size_t at = text.find(kCustomFact); at != std::string_view::npos) {
    const std::string_view rest = text.substr(at + kCustomFact.size());
    const std::string_view name = FactName(rest);
    // Facter 4: "... resolution='<anonymous>': why"; Facter 3: "... \"NAME\": why".
    const size_t why = rest.find(": ");
    warning = fmt::format("custom fact '{}' failed", name.empty() ? "?" : name);
    if (why != std::string_view::npos) warning += ": " + std::string(rest.substr(why + 2));
  } else {
    warning = std::string(text);
  }
  if (warning.size() > kMaxFacterWarningBytes) {
    size_t cut = kMaxFacterWarningBytes;
    while (cut > 0 && (static_cast<unsigned char>(warning[cut]) & 0xC0) == 0x80) --cut;
    warning.resize(cut);
    warning += "...";
  }
  if (std::find(warnings->begin(), warnings->end(), warning) != warnings->end()) return;
  if (warnings->size() < kMaxFacterWarnings) {
    warnings->push_back(std::move(warning));
  } else {
    ++*more;
  }
}

}  // namespace

std::vector<std::string> FailedCustomFacts(std::string_view log) {
  std::vector<std::string> facts;
  ForEachErrorLine(log, [&](std::string_view text) {
    const size_t at = text.find(kCustomFact);
    if (at == std::string_view::npos) return;
    const std::string_view name = FactName(text.substr(at + kCustomFact.size()));
    if (!name.empty() && std::find(facts.begin(), facts.end(), name) == facts.end())
      facts.emplace_back(name);
  });
  return facts;
}

std::string FatalCompileError(std::string_view log) {
  // A later line that only wraps an earlier one ("Could not call 'find' on 'catalog': X") or
  // says the compile failed without why comes second to the first line with the cause.
  std::string first, wrapped;
  ForEachErrorLine(log, [&](std::string_view text) {
    if (IsFactError(text) || text.starts_with("Try 'puppet help ")) return;
    const bool wrapper = text.starts_with("Could not call '") ||
                         text.starts_with("Failed to compile catalog") ||
                         text.starts_with("Could not retrieve catalog");
    if (wrapper) {
      if (wrapped.empty()) wrapped = text;
    } else if (first.empty()) {
      first = text;
    }
  });
  return first.empty() ? wrapped : first;
}

std::string DeduplicateErrors(std::string_view log) {
  // `puppet catalog find` says it three times: the error, "Could not call 'find' on
  // 'catalog': " and the same error, and a usage hint that does not apply.
  std::string out;
  std::vector<std::string_view> errors;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("Error: ")) {
      std::string_view text = line.substr(7);
      if (text.starts_with("Try 'puppet help ")) continue;
      bool repeated = false;
      for (std::string_view e : errors)
        repeated = repeated || text.find(e) != std::string_view::npos;
      if (repeated) continue;
      errors.push_back(text);
    }
    out.append(line);
    out += '\n';
  }
  return out;
}

PuppetLogSummary SummarisePuppetLog(std::string_view log, size_t max_errors) {
  // Each "Error:" line with the lines that continue it (a daemon's own output, a journal
  // excerpt): the cause is often there, not on the first line.
  struct Entry {
    std::string ref;  // empty: names no resource
    std::string text;
    size_t lines = 1;
  };
  std::vector<Entry> entries;
  bool in_error = false;  // the last log line was an error: unprefixed lines continue it
  PuppetLogSummary s;
  size_t facter_more = 0;
  ForEachLine(log, [&](std::string_view l) {
    if (!IsLogLine(l)) {
      if (in_error && !l.empty() && entries.back().lines < kMaxLinesPerError &&
          entries.back().text.size() < kMaxErrorBytes) {
        entries.back().text += '\n';
        entries.back().text += l;
        ++entries.back().lines;
      }
      return;
    }
    in_error = false;
    if (l.starts_with("Warning: ") && l.ends_with("Skipping because of failed dependencies")) {
      ++s.skipped;
      return;
    }
    if (!l.starts_with("Error: ")) return;
    l.remove_prefix(7);
    if (IsFactError(l)) {
      AddFacterWarning(l, &s.facter_warnings, &facter_more);
      return;  // not an error: its continuation lines are Facter's too
    }
    Entry e;
    if (!SplitResourceError(l, &e.ref, &e.text)) e.text = std::string(l);
    entries.push_back(std::move(e));
    in_error = true;
  });

  if (facter_more > 0) {
    s.facter_warnings.push_back(
        fmt::format("{} more of Facter's errors (Puppet's log)", facter_more));
  }
  // Every error of a resource goes to it, in log order: those naming it by path, and those
  // that name no path but mention it ("Could not start Service[x]: ..." comes before
  // "/Stage[main]/.../Service[x]/ensure: ... failed: ..."). A text already contained in
  // another of the same resource is a repetition and dropped.
  absl::flat_hash_map<std::string, size_t> index;  // ref -> position in s.failed
  std::vector<std::vector<const Entry*>> parts;
  for (const Entry& e : entries) {
    if (e.ref.empty() || index.contains(e.ref)) continue;
    index[e.ref] = s.failed.size();
    s.failed.push_back({e.ref, ""});
    parts.emplace_back();
  }
  for (const Entry& e : entries) {
    size_t at = s.failed.size();
    if (!e.ref.empty()) {
      at = index[e.ref];
    } else {
      for (size_t i = 0; i < s.failed.size() && at == s.failed.size(); ++i) {
        if (e.text.find(s.failed[i].resource) != std::string::npos) at = i;
      }
    }
    if (at < s.failed.size()) {
      if (parts[at].size() < kMaxErrorsPerResource) parts[at].push_back(&e);
    } else if (s.errors.size() < max_errors) {
      s.errors.push_back(e.text);
    }
  }
  for (size_t i = 0; i < s.failed.size(); ++i) {
    std::string& message = s.failed[i].message;
    for (const Entry* e : parts[i]) {
      bool repeated = false;
      for (const Entry* other : parts[i]) {
        repeated = repeated || (other != e && other->text.find(e->text) != std::string::npos &&
                                (other->text != e->text || other < e));
      }
      if (repeated) continue;
      if (!message.empty()) message += '\n';
      message += e->text;
    }
  }
  return s;
}

ApplyOutcomes ParseApplyOutcomes(std::string_view log) {
  return ParseApplyOutcomes(log, SummarisePuppetLog(log, 0).failed);
}

ApplyOutcomes ParseApplyOutcomes(std::string_view log, std::vector<FailedResource> failed) {
  ApplyOutcomes out;
  ForEachLine(log, [&](std::string_view l) {
    if (l.starts_with("Error: Found ") && l.find(" dependency cycle") != std::string_view::npos) {
      out.dependency_cycle = true;
      return;
    }
    if (l.starts_with("Error: Failed to apply catalog")) {
      if (out.failed_to_apply.empty()) out.failed_to_apply = std::string(l.substr(7));
      return;
    }
    if (l.starts_with("Info: ")) {
      strace::Marker marker;
      if (strace::ParseMarker(l, &marker) == strace::MarkerKind::kBegin) {
        out.evaluated.insert(marker.ref);
      }
      return;
    }
    const bool notice = l.starts_with("Notice: ");
    const bool warning = l.starts_with("Warning: ");
    if (!notice && !warning) return;
    std::string ref, message, property;
    if (!SplitResourceError(l.substr(notice ? 8 : 9), &ref, &message, &property)) return;
    ResourceOutcome& o = out.resources[ref];
    if (warning) {
      if (message == "Skipping because of failed dependencies") o.skipped = true;
      return;
    }
    if (property.empty()) {
      // Resource-level notices: a refresh it received ("Triggered 'refresh' from 1 event"),
      // or a message of its own (Puppet's "Dependency ... has failures").
      if (message.starts_with("Triggered 'refresh'")) o.refreshed = true;
      return;
    }
    if (o.changes.size() < kMaxChangesPerResource) o.changes.push_back(property + ": " + message);
  });
  for (FailedResource& f : failed) {
    ResourceOutcome& o = out.resources[f.resource];
    o.failed = true;
    o.error = std::move(f.message);
  }
  return out;
}

std::vector<NotIdempotent> FindNotIdempotent(const ApplyOutcomes& first,
                                             const ApplyOutcomes& second,
                                             const ApplyOutcomes* third) {
  std::vector<NotIdempotent> out;
  for (const auto& [ref, again] : second.resources) {
    // A notify resource logs its message on every apply, by design.
    if (ref.starts_with("Notify[")) continue;
    auto before = first.resources.find(ref);
    const bool failed_first =
        before != first.resources.end() && (before->second.failed || before->second.skipped);
    // What failed (or was skipped) in the first apply is applied for the first time now:
    // the failure is the finding, and it is already reported.
    if (failed_first) continue;
    NotIdempotent n;
    n.resource = ref;
    if (again.failed) {
      n.behaviour = "fails-on-reapply";
      n.second = {again.error};
    } else if (!again.changes.empty()) {
      n.second = again.changes;
      if (third == nullptr) {
        n.behaviour = "changed-on-second-apply";
      } else if (auto t = third->resources.find(ref);
                 t != third->resources.end() && (!t->second.changes.empty() || t->second.failed)) {
        n.behaviour = "changes-every-apply";
        n.third = t->second.failed ? std::vector<std::string>{t->second.error} : t->second.changes;
      } else {
        n.behaviour = "converged-on-third-apply";
      }
    } else {
      continue;
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<FailedUnit> FailedUnits(std::string_view systemd_log) {
  static constexpr std::string_view kMainExited = "Main process exited, ";
  static constexpr std::string_view kFailedWith = "Failed with result '";
  std::vector<FailedUnit> out;
  auto unit_at = [&](std::string_view unit) -> FailedUnit* {
    for (FailedUnit& u : out) {
      if (u.unit == unit) return &u;
    }
    if (out.size() == kMaxFailedUnits) return nullptr;
    return &out.emplace_back(FailedUnit{std::string(unit), ""});
  };
  ForEachLine(systemd_log, [&](std::string_view line) {
    const size_t colon = line.find(".service: ");
    if (colon == std::string_view::npos || colon == 0) return;
    const std::string_view unit = line.substr(0, colon + 8);
    if (unit.find_first_of(" \t\x1b") != std::string_view::npos) return;
    std::string_view what = line.substr(colon + 10);
    const bool exited =
        what.starts_with(kMainExited) && what.find("status=0/SUCCESS") == std::string_view::npos;
    if (!exited && !what.starts_with(kFailedWith)) return;
    if (what.ends_with('.')) what.remove_suffix(1);
    FailedUnit* u = unit_at(unit);
    if (u == nullptr) return;
    if (u->why.empty() || (exited && !std::string_view(u->why).starts_with(kMainExited))) {
      u->why = std::string(what.substr(0, 200));
    }
  });
  return out;
}

}  // namespace fsmove::exec
