// How a check's run ends, decided from a RunResult alone: the exit code and what is said for
// each way a run can end, the work directory's fate, and the idempotence summary.
#include "fsmove/check/check_end.h"

#include <signal.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fsmove::check {
namespace {

exec::RunResult Applied() {
  exec::RunResult r;
  r.end = exec::RunEnd::kApplied;
  r.work_dir = "/tmp/fsmove-check.x";
  r.summary.target = "mod/";
  r.summary.puppet_log = "/tmp/fsmove-check.x/puppet.log";
  return r;
}

std::string Said(const std::vector<Diagnostic>& say) {
  std::string out;
  for (const Diagnostic& d : say) out += Format(d) + "\n";
  return out;
}

TEST(CheckEndTest, EachSeverityIsSaidWithItsPrefix) {
  EXPECT_EQ(Format(Error("e")), "fsmove: error: e");
  EXPECT_EQ(Format(Warning("w")), "fsmove: warning: w");
  EXPECT_EQ(Format(Note("n")), "fsmove: note: n");
  EXPECT_EQ(Format(Info("scanning 2 modules")), "fsmove: scanning 2 modules");
  EXPECT_EQ(Format({Diagnostic::Severity::kPlain, "as it is"}), "as it is");
}

TEST(CheckEndTest, AFinishedApplyIsReportedAndEndsWithTheReportsStatus) {
  exec::RunResult r = Applied();
  EXPECT_FALSE(EndBeforeReport(r, false, 1800, "7.23.0"));
  for (int status : {kExitOk, kExitFindings}) {
    End end = EndAfterReport(r, status, 1800);
    EXPECT_EQ(end.exit_code, status);
    EXPECT_TRUE(end.say.empty());
  }
  WorkPolicy p = DecideWorkDirectory(r, false, false);
  EXPECT_FALSE(p.keep);
  EXPECT_TRUE(DecideWorkDirectory(r, /*keep_work=*/true, false).keep);
}

TEST(CheckEndTest, FailedResourcesAreSaidAndAnIncompleteCheckExplainsExit3) {
  exec::RunResult r = Applied();
  r.summary.failed.push_back({"File[/x]", "boom"});
  End end = EndAfterReport(r, kExitIncomplete, 1800);
  EXPECT_EQ(end.exit_code, kExitIncomplete);
  EXPECT_EQ(Said(end.say),
            "fsmove: note: 1 resource failed in Puppet's run (see the report; Puppet's log: "
            "/tmp/fsmove-check.x/puppet.log)\n"
            "fsmove: Puppet did not apply the whole catalog, so the check is incomplete (exit 3; "
            "the report says what was not seen; --allow-failed judges it on its findings "
            "alone)\n");
  // The failure keeps Puppet's log and the sandbox's files for the user, unless a scan
  // discards them; nothing to name, since the report comes.
  EXPECT_TRUE(DecideWorkDirectory(r, false, false).keep);
  EXPECT_FALSE(DecideWorkDirectory(r, false, false).named);
  EXPECT_FALSE(DecideWorkDirectory(r, false, /*discard_work=*/true).keep);
}

TEST(CheckEndTest, ALimitOfFsmovesOwnIsSaidAsTheReasonForExit3) {
  exec::RunResult r = Applied();
  End end = EndAfterReport(r, kExitIncomplete, 1800, /*limit_hit=*/true);
  EXPECT_EQ(end.exit_code, kExitIncomplete);
  EXPECT_EQ(Said(end.say),
            "fsmove: fsmove reached a limit of its own (said above), so the check is incomplete "
            "(exit 3; the report says what was not seen; the limit's flag raises it)\n");
}

// A package that ships a systemd unit only has no init script for Puppet's service provider
// without systemd as PID 1: the check says which option makes it start.
TEST(CheckEndTest, ServicesWithoutAnInitScriptPointToInitSystemd) {
  exec::RunResult r = Applied();
  r.summary.init = "none";
  r.summary.failed.push_back(
      {"Service[pdns]",
       "change from 'stopped' to 'running' failed: Could not find init script for 'pdns'"});
  r.summary.failed.push_back({"Exec[x]", "returned 1 instead of one of [0]"});
  // A module that asks for the systemd provider (voxpupuli-rclocal's rc-local.service).
  r.summary.failed.push_back(
      {"Service[rc-local.service]", "Provider systemd is not functional on this host"});
  EXPECT_EQ(ServicesWantingSystemd(r.summary),
            (std::vector<std::string>{"Service[pdns]", "Service[rc-local.service]"}));
  const std::string said = Said(EndAfterReport(r, kExitIncomplete, 1800).say);
  EXPECT_NE(said.find("fsmove: note: Service[pdns], Service[rc-local.service] need systemd: no "
                      "init script of that name in this root, or the systemd provider, and its "
                      "PID 1 is not systemd; check again with --init systemd\n"),
            std::string::npos)
      << said;
  r.summary.init = "systemd";  // then it is another failure
  EXPECT_TRUE(ServicesWantingSystemd(r.summary).empty());
}

TEST(CheckEndTest, ARunThatDidNotFinishIsAnErrorWhateverTheReportFound) {
  exec::RunResult r = Applied();
  r.summary.trace_complete = false;
  r.summary.strace_end = "SIGKILL";
  End end = EndAfterReport(r, kExitFindings, 1800);
  EXPECT_EQ(end.exit_code, kExitError);
  EXPECT_EQ(Said(end.say),
            "fsmove: error: the trace ends before Puppet did (strace: SIGKILL); the report "
            "covers only what was traced\n");
  r = Applied();
  r.summary.puppet_exit_code = 128 + SIGKILL;
  EXPECT_EQ(EndAfterReport(r, kExitOk, 1800).exit_code, kExitError);
  r = Applied();
  r.end = exec::RunEnd::kTimedOut;
  r.summary.timed_out_phase = "apply";
  EXPECT_FALSE(EndBeforeReport(r, true, 60, ""));  // a report of what ran comes first
  end = EndAfterReport(r, kExitOk, 60);
  EXPECT_EQ(end.exit_code, kExitError);
  EXPECT_NE(Said(end.say).find("did not finish within 60 s"), std::string::npos);
}

TEST(CheckEndTest, NoReportWhenNothingWasApplied) {
  exec::RunResult r = Applied();
  r.end = exec::RunEnd::kTimedOut;
  r.summary.timed_out_phase = "compile";
  auto end = EndBeforeReport(r, false, 90, "");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit_code, kExitError);
  EXPECT_EQ(Said(end->say),
            "fsmove: error: Puppet was still compiling the catalog after 90 s (--timeout); "
            "everything was killed and nothing was applied\n");

  r.end = exec::RunEnd::kInterrupted;
  r.signal = SIGINT;
  end = EndBeforeReport(r, true, 90, "");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit_code, 130);
  EXPECT_EQ(Said(end->say),
            "fsmove: interrupted (INT): Puppet, strace and the sandbox were stopped; logs in "
            "/tmp/fsmove-check.x\n");
  EXPECT_TRUE(DecideWorkDirectory(r, false, false).named);

  r.end = exec::RunEnd::kSetupFailed;
  r.error = "cannot create a user namespace: EPERM";
  end = EndBeforeReport(r, false, 90, "");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit_code, kExitError);
  EXPECT_EQ(Said(end->say), "fsmove: error: cannot create a user namespace: EPERM\n");
}

TEST(CheckEndTest, ACompileFailureShowsPuppetsErrorsAndWhatMayHelp) {
  exec::RunResult r = Applied();
  r.end = exec::RunEnd::kCompileFailed;
  r.compile_log =
      "Error: Evaluation Error: Unknown variable: '::osfamily'. (file: /m/init.pp, line: 3)\n";
  r.missing_dependencies = {"puppetlabs-stdlib"};
  auto end = EndBeforeReport(r, false, 90, "8.10.0");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->exit_code, kExitError);
  const std::string said = Said(end->say);
  EXPECT_EQ(said.substr(0, said.find('\n')),
            "fsmove: error: Puppet could not compile the catalog for mod/:");
  EXPECT_NE(said.find("\nError: Evaluation Error: Unknown variable: '::osfamily'"),
            std::string::npos);
  EXPECT_NE(said.find("legacy fact $::osfamily, which Puppet 8 no longer sets (this root's "
                      "Puppet: 8.10.0)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("the module depends on puppetlabs-stdlib, which no --modulepath"),
            std::string::npos);
  r.compile_log.clear();
  r.missing_dependencies.clear();
  EXPECT_NE(Said(EndBeforeReport(r, false, 90, "")->say).find("(Puppet printed nothing)"),
            std::string::npos);
}

// A module beside the checked one that it uses without declaring it: the sandbox did not show
// it, and the note says why and what to do.
TEST(CheckEndTest, AModuleBesideTheModuleButNotDeclaredIsNamed) {
  exec::RunResult r = Applied();
  r.end = exec::RunEnd::kCompileFailed;
  r.compile_log =
      "Error: Evaluation Error: Error while evaluating a Function Call, Could not find class "
      "::helper for node1 (file: /m/web/manifests/init.pp, line: 2, column: 3) on node node1\n";
  r.unshown_modules = {"helper", "other"};
  const std::string said = Said(EndBeforeReport(r, false, 90, "")->say);
  EXPECT_NE(said.find("module helper is beside the module but not among the modules it declares "
                      "it needs"),
            std::string::npos)
      << said;
  r.unshown_modules = {"other"};
  EXPECT_EQ(Said(EndBeforeReport(r, false, 90, "")->say).find("is beside the module"),
            std::string::npos);
}

// A core type Puppet 6 moved out of Puppet (corosync's augeas on Debian's Puppet 7): the note
// names the module that holds it; a data type of a module the metadata forgot gets the
// --modulepath note too.
TEST(CheckEndTest, AMovedCoreTypeNamesItsModule) {
  exec::RunResult r = Applied();
  r.end = exec::RunEnd::kCompileFailed;
  r.compile_log =
      "Error: Evaluation Error: Error while evaluating a Resource Statement, Unknown resource "
      "type: 'augeas' (file: /m/corosync/manifests/init.pp, line: 40, column: 5) on node n\n";
  std::string said = Said(EndBeforeReport(r, false, 90, "")->say);
  EXPECT_NE(said.find("Puppet did not find the type augeas, which Puppet 6 moved out of Puppet "
                      "into the module puppetlabs-augeas_core"),
            std::string::npos)
      << said;
  r.compile_log =
      "Error: Evaluation Error: Resource type not found: Stdlib::Absolutepath (file: "
      "/m/sssd/manifests/init.pp, line: 9, column: 5) on node n\n";
  said = Said(EndBeforeReport(r, false, 90, "")->say);
  EXPECT_NE(said.find("give the directories of the modules holding them with --modulepath DIR"),
            std::string::npos)
      << said;
  // A control repo's modules come from its Puppetfile, not --modulepath.
  r.environment_dir = "/srv/control";
  said = Said(EndBeforeReport(r, false, 90, "")->say);
  EXPECT_NE(said.find("a module comes from its Puppetfile (/srv/control/Puppetfile, deployed "
                      "with r10k)"),
            std::string::npos)
      << said;
  // And a moved core type a control repo uses goes in its Puppetfile: --modulepath is refused
  // for control repos.
  r.compile_log =
      "Error: Evaluation Error: Error while evaluating a Resource Statement, Unknown resource "
      "type: 'ssh_authorized_key' (file: /srv/control/site/profile/manifests/ssh.pp, line: 4, "
      "column: 3) on node n\n";
  said = Said(EndBeforeReport(r, false, 90, "")->say);
  EXPECT_NE(said.find("into the module puppetlabs-sshkeys_core (the root's Puppet does not bundle "
                      "it); name it in the control repo's Puppetfile (/srv/control/Puppetfile: mod "
                      "'puppetlabs-sshkeys_core')"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("--modulepath"), std::string::npos) << said;
}

TEST(CheckEndTest, IdempotenceSummaryComesFromTheApplyAfterTheFirst) {
  exec::RunResult r = Applied();
  EXPECT_EQ(
      SummarizeIdempotence(&r),
      std::vector<Diagnostic>{Warning("--idempotence: Puppet's apply did not run a second time")});
  EXPECT_FALSE(r.summary.idempotence.checked);
  r = Applied();
  r.reapplies.resize(2);
  r.reapplies[0].exit_code = 2;
  r.reapplies[1].exit_code = 0;
  r.reapplies_cut_short = false;
  EXPECT_TRUE(SummarizeIdempotence(&r).empty());
  EXPECT_TRUE(r.summary.idempotence.checked);
  EXPECT_EQ(r.summary.idempotence.exit_codes, (std::vector<int>{2, 0}));
}

}  // namespace
}  // namespace fsmove::check
