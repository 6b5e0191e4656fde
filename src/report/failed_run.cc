// Reports of a check that could not report findings; see failed_run.h.
#include "fsmove/report/failed_run.h"

#include "fmt/format.h"
#include "fsmove/report/junit.h"
#include "fsmove/report/markdown_report.h"
#include "fsmove/report/markdown_text.h"
#include "fsmove/report/sarif.h"

namespace fsmove::report {

using Json = nlohmann::json;

Json FailedRunSarifRun(std::string_view error) {
  const Json driver = {{"name", "fsmove"},
                       {"version", FSMOVE_VERSION},
                       {"semanticVersion", FSMOVE_VERSION},
                       {"informationUri", std::string(ToolInformationUri())}};
  return {
      {"tool", {{"driver", driver}}},
      {"invocations",
       Json::array(
           {{{"executionSuccessful", false},
             {"toolExecutionNotifications",
              Json::array({{{"level", "error"}, {"message", {{"text", std::string(error)}}}}})}}})},
      {"results", Json::array()}};
}

std::string FailedRunJunitSuite(std::string_view suite, std::string_view case_name,
                                std::string_view error) {
  return fmt::format(
      "  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" "
      "time=\"0\">\n    <testcase classname=\"fsmove\" name=\"{}\" time=\"0\">\n      <error "
      "message=\"{}\"/>\n    </testcase>\n  </testsuite>\n",
      XmlEscape(suite), XmlEscape(case_name), XmlEscape(error));
}

std::string FailedRunDocument(std::string_view format, std::string_view target,
                              std::string_view error) {
  if (format == "sarif") {
    const Json doc = {{"$schema", std::string(kSarifSchemaUri)},
                      {"version", "2.1.0"},
                      {"runs", Json::array({FailedRunSarifRun(error)})}};
    return doc.dump(2) + "\n";
  }
  if (format == "junit") {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fsmove\" tests=\"1\" "
        "failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n{}</testsuites>\n",
        FailedRunJunitSuite(fmt::format("fsmove {}", target), fmt::format("check of {}", target),
                            error));
  }
  if (format == "rdjson") {
    const Json doc = {{"source", {{"name", "fsmove"}, {"url", std::string(ToolInformationUri())}}},
                      {"diagnostics", Json::array()}};
    return doc.dump(2) + "\n";
  }
  if (format == "codequality") return "[]\n";
  if (format == "markdown") {
    return fmt::format("{}## fsmove: the check of {} could not run\n\n{}", kMarkdownMarker,
                       MarkdownCode(target), MarkdownFence(error, ""));
  }
  return "";
}

}  // namespace fsmove::report
