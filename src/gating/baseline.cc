// Baseline files; see baseline.h.
#include "fsmove/gating/baseline.h"

#include "fmt/format.h"
#include "fsmove/base/json_reader.h"
#include "fsmove/base/read_file.h"

namespace fsmove::gating {

using checker::Finding;
namespace {

bool IsFingerprint(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

nlohmann::ordered_json ResourceJson(const catalog::Resource& r) {
  return {
      {"resource", r.ref},
      {"file", r.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.file)},
      {"line", r.line ? nlohmann::ordered_json(*r.line) : nlohmann::ordered_json(nullptr)}};
}

// The "resource" of an informational {"resource": ...} object, or "" when absent.
std::string ResourceOf(const nlohmann::json& entry, const char* key) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_object()) return "";
  auto r = it->find("resource");
  return r != it->end() && r->is_string() ? r->get<std::string>() : "";
}

}  // namespace

absl::StatusOr<Baseline> Baseline::Parse(std::string_view text, std::string_view source_name) {
  auto root = base::ParseJson(text, source_name);
  if (!root.ok()) return root.status();
  auto error = [&](std::string_view pointer, std::string_view sentence) {
    return base::JsonError(source_name, pointer, sentence);
  };
  if (!root->is_object()) {
    return error("", fmt::format("expected a baseline object, got {}", base::JsonKindName(*root)));
  }
  auto format = root->find("fsmove_baseline");
  if (format == root->end()) {
    return error("",
                 "not an fsmove baseline (no \"fsmove_baseline\" key; write one with "
                 "--write-baseline)");
  }
  if (!format->is_number_integer() || format->get<int64_t>() != kBaselineFormat) {
    return error("/fsmove_baseline",
                 fmt::format("unsupported baseline format {} (this fsmove reads format {})",
                             format->dump(), kBaselineFormat));
  }
  auto findings = root->find("findings");
  if (findings == root->end() || !findings->is_array()) {
    return error("/findings", "expected an array of findings");
  }
  Baseline b;
  b.source_name_ = std::string(source_name);
  for (size_t i = 0; i < findings->size(); ++i) {
    const nlohmann::json& item = (*findings)[i];
    std::string pointer = base::JsonPointer("/findings", i);
    if (!item.is_object()) {
      return error(pointer, fmt::format("expected an object, got {}", base::JsonKindName(item)));
    }
    auto fp = item.find("fingerprint");
    if (fp == item.end() || !fp->is_string() || !IsFingerprint(fp->get_ref<const std::string&>())) {
      return error(pointer + "/fingerprint", "expected 32 lower-case hex digits");
    }
    BaselineEntry e;
    e.fingerprint = fp->get<std::string>();
    if (auto rule = item.find("rule"); rule != item.end() && rule->is_string()) {
      e.rule = rule->get<std::string>();
    }
    e.source = ResourceOf(item, "source");
    e.target = ResourceOf(item, "target");
    if (b.index_.contains(e.fingerprint)) continue;  // a hand-merged file may repeat one
    b.index_.emplace(e.fingerprint, b.entries_.size());
    b.entries_.push_back(std::move(e));
  }
  return b;
}

absl::StatusOr<Baseline> Baseline::LoadFile(const std::string& path) {
  auto text = base::ReadFile(path, "baseline");
  if (!text.ok()) return text.status();
  return Parse(*text, path);
}

const BaselineEntry* Baseline::Find(std::string_view fingerprint) const {
  auto it = index_.find(absl::string_view(fingerprint.data(), fingerprint.size()));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

nlohmann::ordered_json BaselineToJson(const std::vector<const checker::Finding*>& findings,
                                      const catalog::Catalog& catalog) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Finding* f : findings) {
    list.push_back({{"fingerprint", f->fingerprint},
                    {"rule", std::string(FaultRuleId(f->kind))},
                    {"kind", std::string(FaultKindName(f->kind))},
                    {"source", ResourceJson(catalog.resource(f->source))},
                    {"target", ResourceJson(catalog.resource(f->target))},
                    {"paths", f->paths}});
  }
  return {{"fsmove_baseline", kBaselineFormat}, {"findings", list}};
}

}  // namespace fsmove::gating
