// Test helper: the patch a fix layer would make for traces/faults-configure-use-bad's finding
// (`require => File['/etc/app/app.conf']` inserted at the top of Exec['use config']), made by
// hand, so that the reports that read Finding::patch are tested without the fix layer.
#pragma once

#include <string>

#include "fsmove/checker/checker.h"
#include "recorded_check.h"

namespace fsmove::testing {

// The manifest's directory (the patch's root) and its unified diff, from the finding's own
// catalog (the path the traces were recorded with).
inline checker::FixPatch RequirePatch(
    const RecordedCheck& run, const checker::Finding& f,
    checker::FixVerdict verdict = checker::FixVerdict::kVerified) {
  const catalog::Resource& target = run.catalog->resource(f.target);
  checker::FixPatch p;
  p.root = target.file.substr(0, target.file.rfind('/'));
  checker::FixEdit e;
  e.file = target.file;
  e.line = *target.line + 1;
  e.end_line = e.line;
  e.text = "  require => File['/etc/app/app.conf'],\n";
  p.edits.push_back(e);
  p.diff =
      "--- a/bad.pp\n"
      "+++ b/bad.pp\n"
      "@@ -15,3 +15,4 @@\n"
      " exec { 'use config':\n"
      "+  require => File['/etc/app/app.conf'],\n"
      "   command => \"/bin/sh -c 'cat /etc/app/app.conf > /var/tmp/app-out'\",\n"
      " }\n";
  p.description = "require => File['/etc/app/app.conf'] on Exec['use config'] (bad.pp:15)";
  p.verdict = verdict;
  if (verdict == checker::FixVerdict::kFailed) p.reason = "the patched catalog has a cycle";
  return p;
}

}  // namespace fsmove::testing
