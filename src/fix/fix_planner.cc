// Planning the patches of findings; see fix_planner.h.
#include "fsmove/fix/fix_planner.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/read_file.h"
#include "fsmove/fix/unified_diff.h"

namespace fsmove::fix {
namespace {

std::string Normal(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : p).lexically_normal().string();
}

bool HasAttribute(const PuppetSource& s, const ResourceBody& b, std::string_view name) {
  (void)s;
  return std::any_of(b.attributes.begin(), b.attributes.end(),
                     [&](const Attribute& a) { return a.name == name; });
}

struct Side {
  catalog::ResourceId declaration;
  catalog::ResourceId other;
  std::string add;     // the attribute that gets the reference
  std::string remove;  // MN: the ordering-only attribute it moves out of
};

}  // namespace

FixPlanner::FixPlanner(const catalog::Catalog& cat, FixScope scope)
    : cat_(cat), interfaces_(cat), scope_(std::move(scope)), root_fd_(absl::UnknownError("")) {
  scope_.root = Normal(scope_.root);
  if (!scope_.only_file.empty()) scope_.only_file = Normal(scope_.only_file);
  if (!scope_.manifest.empty()) scope_.manifest = Normal(scope_.manifest);
  root_fd_ = base::OpenRoot(scope_.root, "the checked code's directory");
}

FixPlanner::~FixPlanner() = default;

std::string FixPlanner::Relative(const std::string& file) const {
  return std::filesystem::path(Normal(file)).lexically_relative(scope_.root).string();
}

std::string FixPlanner::InScope(const std::string& file) const {
  const std::string f = Normal(file);
  if (!scope_.only_file.empty()) {
    return f == scope_.only_file
               ? ""
               : absl::StrCat("declared in ", file, ", not in the manifest checked (",
                              scope_.only_file, ")");
  }
  const std::string rel = std::filesystem::path(f).lexically_relative(scope_.root).string();
  if (rel.empty() || rel == "." || rel.starts_with("..")) return OutOfScope(file);
  return "";
}

std::string FixPlanner::OutOfScope(const std::string& file) const {
  const std::string f = Normal(file);
  for (const auto& [dir, what] : scope_.others) {
    const std::string rel = std::filesystem::path(f).lexically_relative(Normal(dir)).string();
    if (!rel.empty() && rel != "." && !rel.starts_with("..")) {
      return absl::StrCat("declared in ", file, ", in ", what,
                          ": a fix there is that module's own (its maintainers'), outside the "
                          "checked code (",
                          scope_.root, ")");
    }
  }
  return absl::StrCat("declared in ", file, ", outside the checked code (", scope_.root, ")");
}

absl::StatusOr<std::string> FixPlanner::ReadInScope(const std::string& file) const {
  // Only the checked code is read, and only beneath its root: a manifest the catalog names
  // elsewhere (its file and line are the compiled code's to set) or one reached through a
  // symbolic link (manifests/sub -> /etc) is never opened, so never patched.
  const std::string rel =
      std::filesystem::path(Normal(file)).lexically_relative(scope_.root).string();
  if (rel.empty() || rel == "." || rel.starts_with("..")) {
    return absl::FailedPreconditionError(OutOfScope(file));
  }
  if (!root_fd_.ok()) return root_fd_.status();
  return base::ReadFileBeneath(root_fd_->get(), scope_.root, rel, "manifest");
}

absl::StatusOr<const PuppetSource*> FixPlanner::Source(const std::string& file) const {
  auto it = sources_.find(file);
  if (it == sources_.end()) {
    absl::StatusOr<std::unique_ptr<PuppetSource>> entry = absl::UnknownError("");
    auto text = ReadInScope(file);
    if (!text.ok()) {
      entry = text.status();
    } else if (auto parsed = PuppetSource::Parse(std::move(*text)); !parsed.ok()) {
      entry = absl::InvalidArgumentError(
          absl::StrCat("cannot read ", file, " as Puppet: ", parsed.status().message()));
    } else {
      entry = std::make_unique<PuppetSource>(std::move(*parsed));
    }
    it = sources_.emplace(file, std::move(entry)).first;
  }
  if (!it->second.ok()) return it->second.status();
  return it->second->get();
}

absl::StatusOr<FixPlanner::Located> FixPlanner::Locate(catalog::ResourceId r) const {
  const catalog::Resource& res = cat_.resource(r);
  if (res.file.empty() || !res.line) {
    return absl::NotFoundError(absl::StrCat(res.ref, " has no manifest line in the catalog"));
  }
  Located l;
  l.file = scope_.locate ? scope_.locate(res.file) : res.file;
  catalog_names_.emplace(l.file, res.file);
  auto source = Source(l.file);
  if (!source.ok()) return source.status();
  l.source = *source;
  auto body = l.source->FindResource(res.type, res.title, *res.line);
  if (!body.ok()) {
    return absl::Status(body.status().code(),
                        absl::StrCat(Relative(l.file), ": ", body.status().message()));
  }
  l.body = std::move(*body);
  return l;
}

absl::StatusOr<std::string> FixPlanner::Reference(catalog::ResourceId r, const Located& edited,
                                                  const checker::Finding& f) const {
  // Another module's resource is named by its class (a notification's target keeps its own).
  const bool target = r == f.target_declaration;
  if (!target || f.kind == checker::FaultKind::kMissingOrdering) {
    const catalog::ResourceId from = target ? f.source_declaration : f.target_declaration;
    const catalog::ResourceId named = interfaces_.For(r, from);
    if (named != r) return checker::PuppetReference(cat_.resource(named));
  }
  const catalog::Resource& res = cat_.resource(r);
  const std::string literal = checker::PuppetReference(res);
  auto other = Locate(r);
  if (!other.ok() && !f.instances.empty() &&
      (absl::IsFailedPrecondition(other.status()) || absl::IsPermissionDenied(other.status()))) {
    // Its title may be computed: a quoted one could fix one instance of several.
    return absl::FailedPreconditionError(absl::StrCat(
        "the declaration of ", res.ref, " cannot be read (", other.status().message(),
        "): a quoted title might fix one of the ", f.instances.size() + 1, " instances"));
  }
  if (!other.ok() || other->body.literal_titles) return literal;
  const std::string_view expr =
      other->source->Slice(other->body.title_first, other->body.title_last);
  if (other->file == edited.file && other->body.scope_open == edited.body.scope_open &&
      expr.find('\n') == std::string_view::npos) {
    return absl::StrCat(res.type, "[", std::string(expr), "]");  // the same variables are in scope
  }
  if (!f.instances.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the title of ", res.ref, " is computed (`", std::string(expr),
                     "`) in another body: a quoted title would fix one of the ",
                     f.instances.size() + 1, " instances"));
  }
  return literal;
}

absl::StatusOr<std::vector<FixPlanner::Change>> FixPlanner::PlanOne(
    const checker::Finding& f, std::string* description) const {
  const bool mor = f.kind == checker::FaultKind::kMissingOrdering;
  std::vector<Side> sides = {
      {f.target_declaration, f.source_declaration, mor ? "require" : "subscribe",
       mor ? "" : "require"},
      {f.source_declaration, f.target_declaration, mor ? "before" : "notify", mor ? "" : "before"}};
  std::vector<absl::StatusOr<Located>> where;
  for (const Side& s : sides) {
    const catalog::Resource& d = cat_.resource(s.declaration);
    const std::string file = scope_.locate && !d.file.empty() ? scope_.locate(d.file) : d.file;
    if (!d.file.empty() && !InScope(file).empty()) {
      where.emplace_back(absl::FailedPreconditionError(InScope(file)));
    } else {
      where.push_back(Locate(s.declaration));
    }
  }
  // Follow the code: the producer's side when it already lists such relationships and the
  // consumer's does not.
  if (where[0].ok() && where[1].ok() &&
      !HasAttribute(*where[0]->source, where[0]->body, sides[0].add) &&
      (sides[0].remove.empty() ||
       !HasAttribute(*where[0]->source, where[0]->body, sides[0].remove)) &&
      HasAttribute(*where[1]->source, where[1]->body, sides[1].add)) {
    std::swap(sides[0], sides[1]);
    std::swap(where[0], where[1]);
  }
  std::vector<std::string> why;
  for (size_t k = 0; k < sides.size(); ++k) {
    const catalog::Resource& d = cat_.resource(sides[k].declaration);
    if (!where[k].ok()) {
      why.push_back(absl::StrCat(d.ref, ": ", where[k].status().message()));
      continue;
    }
    auto ref = Reference(sides[k].other, *where[k], f);
    if (!ref.ok()) {
      why.push_back(absl::StrCat(d.ref, ": ", ref.status().message()));
      continue;
    }
    std::vector<Change> changes = {
        {where[k]->file, sides[k].declaration, {sides[k].add, *ref, false}, ""}};
    if (!sides[k].remove.empty()) {
      changes.push_back({where[k]->file, sides[k].declaration, {sides[k].remove, *ref, true}, ""});
    }
    std::vector<ReferenceChange> plain;
    plain.reserve(changes.size());
    for (const Change& c : changes) plain.push_back(c.change);
    if (auto edit = EditDeclaration(*where[k]->source, where[k]->body, plain); !edit.ok()) {
      why.push_back(absl::StrCat(d.ref, ": ", edit.status().message()));
      continue;
    }
    *description = absl::StrCat(sides[k].add, " => ", *ref, " on ", checker::PuppetReference(d),
                                " (", Relative(where[k]->file), ":", *d.line, ")");
    return changes;
  }
  if (auto chain = ChainInManifest(f, description); chain.ok()) return std::vector<Change>{*chain};
  return absl::FailedPreconditionError(
      absl::StrCat("no fix in the checked code: ", absl::StrJoin(why, "; ")));
}

// A manifest check whose two resources are declared in other modules: the manifest orders
// them itself, with a chain between their classes (an ordering: what the manifest does with
// the classes it includes) or between the two resources (a notification must not refresh a
// whole class).
absl::StatusOr<FixPlanner::Change> FixPlanner::ChainInManifest(const checker::Finding& f,
                                                               std::string* description) const {
  if (scope_.manifest.empty()) return absl::NotFoundError("not a manifest check");
  const bool mor = f.kind == checker::FaultKind::kMissingOrdering;
  std::string from = checker::PuppetReference(cat_.resource(f.source_declaration));
  std::string to = checker::PuppetReference(cat_.resource(f.target_declaration));
  if (mor) {
    auto a = interfaces_.InnermostClass(f.source_declaration),
         b = interfaces_.InnermostClass(f.target_declaration);
    auto is_user_class = [&](std::optional<catalog::ResourceId> c) {
      if (!c) return false;
      const std::string& t = cat_.resource(*c).title;
      return !absl::EqualsIgnoreCase(t, "main") && !absl::EqualsIgnoreCase(t, "settings");
    };
    if (is_user_class(a) && is_user_class(b) && *a != *b) {
      from = checker::PuppetReference(cat_.resource(*a));
      to = checker::PuppetReference(cat_.resource(*b));
    }
  }
  Change c;
  c.file = scope_.manifest;
  c.chain = absl::StrCat(from, mor ? " -> " : " ~> ", to);
  auto source = Source(c.file);
  if (!source.ok()) return source.status();
  *description = absl::StrCat("the chain ", c.chain, " at the end of ", Relative(c.file));
  return c;
}

void FixPlanner::Plan(std::vector<checker::Finding>* findings, const std::vector<size_t>& which) {
  for (size_t i : which) {
    checker::Finding& f = (*findings)[i];
    checker::FixPatch p;
    p.root = scope_.root;
    auto changes = PlanOne(f, &p.description);
    if (!changes.ok()) {
      p.verdict = checker::FixVerdict::kFailed;
      p.reason = std::string(changes.status().message());
      f.patch = std::move(p);
      continue;
    }
    planned_[i] = std::move(*changes);
    auto rendered = Render({i});
    if (!rendered.ok() || rendered->edits.empty()) {
      planned_.erase(i);
      p.verdict = checker::FixVerdict::kFailed;
      p.reason = rendered.ok() ? "the declaration already says so (nothing to change)"
                               : std::string(rendered.status().message());
      f.patch = std::move(p);
      continue;
    }
    p.edits = std::move(rendered->edits);
    p.diff = std::move(rendered->diff);
    f.patch = std::move(p);
  }
}

bool FixPlanner::Planned(size_t i) const { return planned_.contains(i); }

absl::Status FixPlanner::AppendChains(
    const std::vector<size_t>& which,
    std::map<std::string, std::vector<TextReplacement>>* by_file) const {
  std::map<std::string, std::vector<std::string>> chains;
  for (size_t i : which) {
    auto it = planned_.find(i);
    if (it == planned_.end()) continue;
    for (const Change& c : it->second) {
      auto& list = chains[c.file];
      if (!c.chain.empty() && std::find(list.begin(), list.end(), c.chain) == list.end()) {
        list.push_back(c.chain);
      }
    }
  }
  for (const auto& [file, lines] : chains) {
    if (lines.empty()) continue;
    auto source = Source(file);
    if (!source.ok()) return source.status();
    const std::string& text = (*source)->text();
    const std::string nl = text.find("\r\n") != std::string::npos ? "\r\n" : "\n";
    std::string add = text.empty() || text.back() == '\n' ? "" : nl;
    for (const std::string& l : lines) absl::StrAppend(&add, l, nl);
    (*by_file)[file].push_back({text.size(), text.size(), add});
  }
  return absl::OkStatus();
}

absl::StatusOr<RenderedFix> FixPlanner::Render(const std::vector<size_t>& which) const {
  // The changes of each declaration, in the findings' order.
  std::map<std::pair<std::string, catalog::ResourceId>, std::vector<ReferenceChange>>
      by_declaration;
  for (size_t i : which) {
    auto it = planned_.find(i);
    if (it == planned_.end()) continue;
    for (const Change& c : it->second) {
      if (c.chain.empty()) by_declaration[{c.file, c.declaration}].push_back(c.change);
    }
  }
  std::map<std::string, std::vector<TextReplacement>> by_file;
  if (absl::Status st = AppendChains(which, &by_file); !st.ok()) return st;
  for (const auto& [key, changes] : by_declaration) {
    auto where = Locate(key.second);
    if (!where.ok()) return where.status();
    auto edit = EditDeclaration(*where->source, where->body, changes);
    if (!edit.ok()) return edit.status();
    auto& list = by_file[key.first];
    list.insert(list.end(), edit->begin(), edit->end());
  }
  std::vector<ChangedFile> files;
  for (auto& [file, replacements] : by_file) {
    std::sort(replacements.begin(), replacements.end(),
              [](const TextReplacement& a, const TextReplacement& b) {
                return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
              });
    for (size_t k = 1; k < replacements.size(); ++k) {
      if (replacements[k].begin < replacements[k - 1].end) {
        return absl::InternalError(absl::StrCat("overlapping edits of ", file));
      }
    }
    auto source = Source(file);
    if (!source.ok()) return source.status();
    ChangedFile c;
    c.path = file;
    c.relative = Relative(file);
    c.old_text = (*source)->text();
    c.new_text = ApplyReplacements(c.old_text, replacements);
    auto name = catalog_names_.find(file);
    c.edits =
        LineEdits(name != catalog_names_.end() ? name->second : file, c.old_text, replacements);
    if (c.edits.empty()) continue;
    files.push_back(std::move(c));
  }
  std::sort(files.begin(), files.end(),
            [](const ChangedFile& a, const ChangedFile& b) { return a.relative < b.relative; });
  RenderedFix out;
  for (const ChangedFile& c : files) {
    out.diff += UnifiedDiff(c.relative, c.old_text, c.edits);
    out.edits.insert(out.edits.end(), c.edits.begin(), c.edits.end());
  }
  out.files = std::move(files);
  return out;
}

}  // namespace fsmove::fix
