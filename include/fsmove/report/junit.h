// JUnit XML for CI systems that show test reports (GitLab's artifacts:reports:junit, Jenkins,
// Azure DevOps), in the Jenkins/Ant junit-4.xsd shape most of them read.
//
// One testsuite per run; one testcase per checked resource (every catalog resource whose
// block the trace holds, so a clean run still lists what was verified), classname = its
// manifest (relative to the source root), name = its reference. A finding fails the testcase
// of its target, the resource the fix edits, so each finding is counted once; the failure's
// text holds every finding of that resource in full (GitLab shows the text, not the message
// attribute). A resource whose findings are all suppressed is <skipped> with the reasons.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "fsmove/report/findings_report.h"
#include "fsmove/report/source_root.h"

namespace fsmove::report {

struct JunitOptions {
  SourceRoot source_root;
};

void WriteFindingsJunit(std::ostream& out, const FindingsContext& c, const JunitOptions& o);

// Text safe in XML 1.0 element content and in double- or single-quoted attributes: markup
// characters as entities, tabs and line breaks as character references (attribute values
// would otherwise normalise them to spaces), and what XML 1.0 cannot hold at all (other
// control characters, invalid UTF-8) as U+FFFD.
std::string XmlEscape(std::string_view text);

}  // namespace fsmove::report
