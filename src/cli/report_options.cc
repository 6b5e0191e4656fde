// The report options shared by `analyze` and `check`.
#include "report_options.h"

#include "commands.h"
#include "fsmove/checker/path_filter.h"

namespace fsmove::cli {

void AddReportOptions(CLI::App* cmd, ReportOptions* o) {
  cmd->add_option("--format", o->format,
                  "report format (default text): text, json, sarif, junit, rdjson (reviewdog), "
                  "codequality (GitLab Code Quality) or markdown (a pull-request comment)")
      ->check(
          CLI::IsMember({"text", "json", "sarif", "junit", "rdjson", "codequality", "markdown"}));
  cmd->add_option("-o,--output", o->output, "write the report to this file");
  cmd->add_option("--json-output", o->json_output, "also write the JSON report to FILE")
      ->type_name("FILE");
  cmd->add_option("--sarif-output", o->sarif_output,
                  "also write a SARIF 2.1.0 report to FILE (GitHub code scanning)")
      ->type_name("FILE");
  cmd->add_option("--junit-output", o->junit_output,
                  "also write a JUnit XML report to FILE (GitLab, Jenkins)")
      ->type_name("FILE");
  cmd->add_option("--rdjson-output", o->rdjson_output,
                  "also write reviewdog's diagnostic format (rdjson) to FILE: review comments "
                  "with suggested changes")
      ->type_name("FILE");
  cmd->add_option("--codequality-output", o->codequality_output,
                  "also write a GitLab Code Quality report to FILE (artifacts:reports:codequality)")
      ->type_name("FILE");
  cmd->add_option("--markdown-output", o->markdown_output,
                  "also write the findings as a Markdown pull-request comment to FILE (Mermaid "
                  "pictures, suggested diffs)")
      ->type_name("FILE");
  cmd->add_option("--source-root", o->source_root,
                  "repository root: SARIF, JUnit, rdjson, Code Quality and markdown name "
                  "manifests relative to it (default: the current directory)")
      ->type_name("DIR");
  cmd->add_option("--max-evidence", o->max_evidence, "evidence paths listed per finding");
  cmd->add_flag("--strict", o->strict, "treat unparsed lines and missing markers as errors");
  cmd->add_flag("--package-notify", o->check.package_notify,
                "packages count as notifiers of the services that read their files");
  std::string ignored_help =
      "ignore accesses to paths matching GLOB (* within a component, ** "
      "across); defaults:";
  for (const auto& d : checker::DefaultIgnores()) ignored_help += " " + std::string(d.glob);
  // One value per occurrence: `--ignore-path A TARGET` must not swallow TARGET.
  cmd->add_option("--ignore-path", o->check.ignore_paths, ignored_help)
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_flag("--no-default-ignores", o->no_default_ignores, "do not ignore the default paths");
  cmd->add_option("--ignore-resource", o->check.ignore_resources,
                  "drop every finding involving this resource, e.g. Exec[apt-update]")
      ->type_name("REF")
      ->allow_extra_args(false);
  cmd->add_option("--config", o->config,
                  "project configuration (.fsmove.json schema: ignore_paths, ignore_resources, "
                  "ignore_pairs, package_notify); command-line options add to it")
      ->type_name("FILE");
  cmd->add_option("--baseline", o->baseline,
                  "report only findings whose fingerprint is not in this baseline (exit 0 when "
                  "all are)")
      ->type_name("FILE");
  cmd->add_option("--write-baseline", o->write_baseline,
                  "write this run's findings (but those ignore_pairs accept) to FILE as a "
                  "baseline")
      ->type_name("FILE");
  cmd->add_flag("--all", o->show_low,
                "also show findings of low confidence (evidence only lookups or metadata) in "
                "text, and count them in the exit code; JSON and SARIF always list them, "
                "SARIF at level `note`");
  cmd->add_flag("--allow-failed", o->allow_failed,
                "judge a check in which Puppet failed, skipped or never evaluated resources on its "
                "findings alone (exit 0 or 1) instead of exit 3 (incomplete)");
  cmd->add_option("--fix-diff", o->fix.diff_file,
                  "write the findings' fixes as one unified diff of the checked code's manifests "
                  "to FILE (git apply or patch -p1 from the module's directory, the manifest's, "
                  "or analyze's --source-root); check verifies each by a re-check first")
      ->type_name("FILE");
  cmd->add_flag("--show-suppressed", o->show_suppressed,
                "show suppressed findings in full in text and as SARIF results with "
                "`suppressions` (GitHub ignores those and would open alerts for them)");
}

}  // namespace fsmove::cli
