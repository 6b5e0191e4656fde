// GitLab Code Quality report; see code_quality.h. Fields as GitLab's "Code Quality report
// format" documents them (description, check_name, fingerprint, severity, location.path,
// location.lines.begin), plus the Code Climate `type` and `categories`.
#include "fsmove/report/code_quality.h"

#include "fsmove/report/sarif.h"

namespace fsmove::report {
namespace {

using Json = nlohmann::json;

Json Issue(std::string_view rule, std::string description, const std::string& fingerprint,
           std::string_view severity, const catalog::Resource& where, const SourceRoot& root) {
  return {{"type", "issue"},
          {"check_name", std::string(rule)},
          {"description", std::move(description)},
          {"categories", Json::array({"Bug Risk"})},
          {"fingerprint", fingerprint},
          {"severity", std::string(severity)},
          {"location",
           {{"path", root.Display(where.file)},
            {"lines", {{"begin", where.line && *where.line >= 1 ? *where.line : 1}}}}}};
}

std::string Description(const checker::Finding& f, const catalog::Catalog& cat) {
  std::string text = FindingHeadline(f, cat);
  if (!f.paths.empty()) {
    text += " (" + f.paths.front();
    if (f.paths.size() > 1) text += " and " + std::to_string(f.paths.size() - 1) + " more";
    text += ")";
  }
  if (f.confirmation.confirmed) text += ", confirmed by a replay";
  return text + ". Fix: " + f.fix;
}

}  // namespace

std::string_view CodeQualitySeverity(const checker::Finding& f) {
  if (f.confirmation.confirmed) return "critical";
  std::string_view level = FindingLevel(f);
  return level == "error" ? "major" : level == "warning" ? "minor" : "info";
}

nlohmann::json FindingsToCodeQuality(const FindingsContext& c, const SourceRoot& root) {
  const catalog::Catalog& cat = *c.catalog;
  Json issues = Json::array();
  for (size_t i = 0; i < c.result->findings.size(); ++i) {
    if (c.IsSuppressed(i) || c.IsHidden(i)) continue;
    const checker::Finding& f = c.result->findings[i];
    const catalog::Resource& where = PrimaryDeclaration(f, cat);
    if (where.file.empty()) continue;
    issues.push_back(Issue(checker::FaultRuleId(f.kind), Description(f, cat), f.fingerprint,
                           CodeQualitySeverity(f), where, root));
  }
  for (const NotIdempotent& n : c.not_idempotent()) {
    const catalog::Resource* r = NotIdempotentResource(n, cat);
    if (r == nullptr || r->file.empty()) continue;
    issues.push_back(Issue("not-idempotent",
                           n.resource + " is not idempotent: it " + NotIdempotentBehaviour(n) +
                               ". Fix: " + NotIdempotentFix(n, cat),
                           NotIdempotentFingerprint(n), "major", *r, root));
  }
  return issues;
}

}  // namespace fsmove::report
