// The reports of a check that ended before it could report findings: Puppet did not compile
// the catalog, the sandbox did not start, --timeout stopped the compile. CI reads the files it
// asked for whatever happened (an upload step fails on a missing SARIF file, with a message
// about the file, not the check), so the formats CI consumes are still written, saying why:
//   sarif        one run whose invocation failed (executionSuccessful false), the error its
//                notification, no result
//   junit        one testsuite with one case in error
//   rdjson       no diagnostic;  codequality  no issue
//   markdown     the comment, saying the check could not run and why
// json and text describe a run and its findings: not written (the terminal says the error).
#pragma once

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace fsmove::report {

// The SARIF run of a check that did not run: fsmove's driver, the error as an error-level
// notification of a failed invocation, no results.
nlohmann::json FailedRunSarifRun(std::string_view error);

// A JUnit <testsuite> (two spaces in, a newline after) named `suite`, one case `case_name` in
// error with `error` as its message.
std::string FailedRunJunitSuite(std::string_view suite, std::string_view case_name,
                                std::string_view error);

// The whole document in `format` for the check of `target` that ended on `error`; "" for json
// and text (and an unknown format).
std::string FailedRunDocument(std::string_view format, std::string_view target,
                              std::string_view error);

}  // namespace fsmove::report
