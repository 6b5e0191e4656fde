// One factory per rule, each defined in the rule's own file (ID.cc): what the table in
// registry.cc instantiates. Private to the checker.
#pragma once

#include <memory>

#include "fsmove/checker/rules/rule.h"

namespace fsmove::checker {

// Pairs.
std::unique_ptr<Rule> MakePackageNotifierRule();
std::unique_ptr<Rule> MakePackagePairRule();
std::unique_ptr<Rule> MakeRestartRelayRule();
std::unique_ptr<Rule> MakeRefreshGuaranteedRule();
std::unique_ptr<Rule> MakeStopEditStartRule();
std::unique_ptr<Rule> MakeGraphOrdersPairRule();
std::unique_ptr<Rule> MakeOrderedTheOtherWayRule();
std::unique_ptr<Rule> MakeCommutingEditsRule();
// Evidence.
std::unique_ptr<Rule> MakeEnablementLinkRule();
std::unique_ptr<Rule> MakePackageManagerStateRule();
std::unique_ptr<Rule> MakeNameServiceEntriesRule();
std::unique_ptr<Rule> MakeTransientFileRule();
std::unique_ptr<Rule> MakeEntryEditsOfOneTypeRule();
std::unique_ptr<Rule> MakeUnitDirectoryWalkRule();
std::unique_ptr<Rule> MakeReloadedByAnotherRule();
std::unique_ptr<Rule> MakeMetadataOnlyChangeRule();
std::unique_ptr<Rule> MakeLookupIsNoConfigurationRule();
std::unique_ptr<Rule> MakeProvidedByAnotherBeforeRule();
std::unique_ptr<Rule> MakeOverwrittenBeforeReadRule();
std::unique_ptr<Rule> MakeRuntimeStateEntryRule();
std::unique_ptr<Rule> MakeRuntimeDirectoryOfAnotherRule();
std::unique_ptr<Rule> MakeMadeAtAnotherStartRule();
std::unique_ptr<Rule> MakeInitScriptSwitchRule();
std::unique_ptr<Rule> MakeOneKeyEditRule();
std::unique_ptr<Rule> MakeAmbientConfigurationRule();
std::unique_ptr<Rule> MakeEmptyFileRule();
std::unique_ptr<Rule> MakeSourcesListInstallRule();
std::unique_ptr<Rule> MakePackageIndexesUnchangedRule();
std::unique_ptr<Rule> MakeDependencyPackageRule();
std::unique_ptr<Rule> MakeOptionalProgramRule();
std::unique_ptr<Rule> MakeRereadsOnItsOwnRule();
std::unique_ptr<Rule> MakeConffileKeptRule();

}  // namespace fsmove::checker
