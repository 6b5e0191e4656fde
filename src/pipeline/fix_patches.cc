// --fix-diff and --fix: planning, tool checks, verification, writing; see fix_patches.h.
#include "fsmove/pipeline/fix_patches.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/read_file.h"
#include "fsmove/fix/tool_checks.h"
#include "fsmove/gating/suppressions.h"

namespace fsmove::pipeline {
namespace {

// A private directory for patched copies of manifests, removed with this object.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp", "/fsmove-fix-XXXXXX");
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The patched files of `fix` parse and add no puppet-lint warning: OK, or why not. Tools that
// are not installed are noted in `notes`, not failed.
absl::Status CheckWithTools(const fix::RenderedFix& fix, const std::string& root,
                            std::string* notes) {
  ScratchDir scratch;
  if (scratch.path().empty()) return absl::InternalError("cannot make a scratch directory");
  // The same layout as the checked code (puppet-lint's autoloader_layout reads the path).
  const std::string base =
      absl::StrCat(scratch.path(), "/", std::filesystem::path(root).filename().string());
  for (const fix::ChangedFile& f : fix.files) {
    const std::string patched = absl::StrCat(base, "/", f.relative);
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(patched).parent_path(), ec);
    if (absl::Status st = base::WriteOutputFile(patched, f.new_text); !st.ok()) return st;
    if (absl::Status st = fix::ValidateManifest(patched); absl::IsUnavailable(st)) {
      if (notes->find("puppet parser") == std::string::npos) {
        absl::StrAppend(notes, notes->empty() ? "" : "; ",
                        "puppet is not installed here: `puppet parser validate` not run");
      }
    } else if (!st.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the patched ", f.relative, " does not parse: ", st.message()));
    }
    auto worse = fix::LintRegressions(f.path, patched);
    if (!worse.ok() && absl::IsUnavailable(worse.status())) {
      if (notes->find("puppet-lint") == std::string::npos) {
        absl::StrAppend(notes, notes->empty() ? "" : "; ",
                        "puppet-lint is not installed here: lint not checked");
      }
    } else if (!worse.ok()) {
      return worse.status();
    } else if (!worse->empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("puppet-lint warns more on the patched ", f.relative, ": ", *worse));
    }
  }
  return absl::OkStatus();
}

// --fix: the file replaced whole (as a report is), still its owner's, and only if nothing
// changed it since it was read; read and written beneath the checked code's root, never
// through a symbolic link (base/beneath.h).
absl::Status WriteInPlace(const std::string& root, const fix::ChangedFile& f) {
  auto root_fd = base::OpenRoot(root, "the checked code's directory");
  if (!root_fd.ok()) return root_fd.status();
  auto now = base::ReadFileBeneath(root_fd->get(), root, f.relative, "manifest");
  if (!now.ok()) return now.status();
  if (*now != f.old_text) {
    return absl::AbortedError(absl::StrCat(f.path, " changed while it was checked: not fixed"));
  }
  return base::WriteFileBeneath(root_fd->get(), root, f.relative, f.new_text);
}

void Fail(checker::Finding& f, std::string reason) {
  f.patch->verdict = checker::FixVerdict::kFailed;
  f.patch->reason = std::move(reason);
}

// The tool checks of the planned patches: all together first, then one by one if that fails.
void ToolChecks(const fix::FixPlanner& planner, checker::CheckResult* result,
                const std::vector<size_t>& planned) {
  std::string notes;
  auto all = planner.Render(planned);
  absl::Status together =
      all.ok() ? CheckWithTools(*all, planner.scope().root, &notes) : all.status();
  for (size_t i : planned) {
    checker::Finding& f = result->findings[i];
    if (!together.ok()) {
      std::string own_notes;
      auto own = planner.Render({i});
      absl::Status st =
          own.ok() ? CheckWithTools(*own, planner.scope().root, &own_notes) : own.status();
      if (!st.ok()) {
        Fail(f, std::string(st.message()));
        continue;
      }
    }
    if (!notes.empty()) f.patch->reason = notes;
  }
}

}  // namespace

std::vector<size_t> CountedFindings(const report::FindingsContext& ctx,
                                    const checker::CheckResult& result) {
  std::vector<size_t> out;
  for (size_t i = 0; i < result.findings.size(); ++i) {
    if (ctx.IsSuppressed(i)) continue;
    if (!ctx.show_low && result.findings[i].confidence == checker::Confidence::kLow) continue;
    out.push_back(i);
  }
  return out;
}

absl::Status MakeFixes(const FixSettings& settings, const report::FindingsContext& ctx,
                       checker::CheckResult* result, const VerifyFixes& verify,
                       const base::DiagnosticSink& say) {
  fix::FixPlanner planner(*ctx.catalog, settings.scope);
  planner.Plan(&result->findings, CountedFindings(ctx, *result));
  auto planned = [&] {
    std::vector<size_t> out;
    for (size_t i = 0; i < result->findings.size(); ++i) {
      const checker::Finding& f = result->findings[i];
      if (planner.Planned(i) && f.patch && f.patch->verdict != checker::FixVerdict::kFailed) {
        out.push_back(i);
      }
    }
    return out;
  };
  ToolChecks(planner, result, planned());
  if (verify) {
    if (!planned().empty()) verify(ctx, result, planner);
  } else {
    for (size_t i : planned()) {
      std::string& reason = result->findings[i].patch->reason;
      reason = reason.empty() ? settings.unverified_reason
                              : absl::StrCat(settings.unverified_reason, "; ", reason);
    }
  }
  const std::vector<size_t> offered = planned();
  auto all = planner.Render(offered);
  if (!all.ok()) return all.status();
  size_t verified = 0;
  std::vector<size_t> proven;
  for (size_t i : offered) {
    if (result->findings[i].patch->verdict == checker::FixVerdict::kVerified) {
      ++verified;
      proven.push_back(i);
    }
  }
  if (!settings.diff_file.empty()) {
    if (absl::Status st = base::WriteOutputFile(settings.diff_file, all->diff); !st.ok()) return st;
    if (say) {
      say(base::Info(absl::StrCat(
          "wrote the patches of ", offered.size(), " finding", offered.size() == 1 ? "" : "s",
          verify ? absl::StrCat(" (", verified, " verified)") : " (not verified)", " to ",
          settings.diff_file)));
    }
  }
  if (!settings.apply) return absl::OkStatus();
  auto mine = planner.Render(proven);
  if (!mine.ok()) return mine.status();
  for (const fix::ChangedFile& f : mine->files) {
    if (absl::Status st = WriteInPlace(planner.scope().root, f); !st.ok()) return st;
  }
  for (size_t i : proven) result->findings[i].patch->applied = true;
  if (say) {
    say(base::Info(absl::StrCat("fixed ", proven.size(), " finding", proven.size() == 1 ? "" : "s",
                                " in place (", mine->files.size(), " file",
                                mine->files.size() == 1 ? "" : "s", " under ", settings.scope.root,
                                ")")));
  }
  return absl::OkStatus();
}

}  // namespace fsmove::pipeline
