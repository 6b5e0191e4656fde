// The inode model of the file-system namespace; see inode_table.h.
// Inodes are recycled when no name, descriptor, working directory or child refers to them,
// so memory follows the live namespace, not the length of the trace.
#include "fsmove/analysis/inode_table.h"

#include <algorithm>
#include <cstring>

namespace fsmove::analysis {
namespace {
constexpr size_t kMaxDepth = 4096;  // guards against cycles a corrupt trace could create
}

InodeTable::InodeTable() {
  nodes_.emplace_back();  // id 0 is kNoInode
  root_ = Allocate();
  nodes_[root_].names = 1;  // pinned
  nodes_[root_].parent = root_;
  unknown_root_ = Allocate();
  nodes_[unknown_root_].names = 1;  // pinned, but without a parent: paths below are unknown
}

InodeId InodeTable::Allocate() {
  InodeId id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<InodeId>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& n = nodes_[id];
  n.parent = kNoInode;
  n.refs = n.names = n.children = 0;
  n.alive = true;
  n.name.clear();
  n.symlink.reset();
  return id;
}

void InodeTable::MaybeFree(InodeId id) {
  if (id == root_ || id == unknown_root_ || id == kNoInode) return;
  Node& n = nodes_[id];
  if (!n.alive || n.names != 0 || n.refs != 0 || n.children != 0) return;
  n.alive = false;
  ++generation_;
  n.symlink.reset();
  std::string().swap(n.name);
  free_.push_back(id);
}

InodeId InodeTable::Lookup(InodeId dir, std::string_view name) const {
  auto it = entries_.find(KeyView{dir, name});
  return it == entries_.end() ? kNoInode : it->second;
}

InodeId InodeTable::LookupOrCreate(InodeId dir, std::string_view name) {
  const size_t hash = KeyHash::Hash(dir, name);
  LookupCacheEntry& cached = lookup_cache_[(hash >> 32) % kLookupCacheSlots];
  if (cached.hash == hash && cached.generation == generation_ && cached.dir == dir) {
    const Node& n = nodes_[cached.inode];
    if (n.parent == dir && n.name.size() == name.size() &&
        memcmp(n.name.data(), name.data(), name.size()) == 0) {
      return cached.inode;
    }
  }
  InodeId id;
  if (auto it = entries_.find(HashedKeyView{dir, name, hash}); it != entries_.end()) {
    id = it->second;
  } else {
    // A new name for a new inode: no existing path resolves differently (the generation
    // stays).
    id = Allocate();
    entries_.emplace(Key{dir, std::string(name)}, id);
    ++nodes_[dir].children;
    Node& n = nodes_[id];
    n.parent = dir;
    n.name.assign(name);
    n.names = 1;
  }
  cached = {hash, generation_, dir, id};
  return id;
}

InodeId InodeTable::NewAnonymous() { return Allocate(); }

void InodeTable::PromoteOtherName(InodeId id) {
  Node& n = nodes_[id];
  auto it = other_names_.find(id);
  if (it == other_names_.end() || it->second.empty()) {
    n.parent = kNoInode;
    return;
  }
  auto [dir, name] = std::move(it->second.back());
  it->second.pop_back();
  if (it->second.empty()) other_names_.erase(it);
  n.parent = dir;
  n.name = std::move(name);
}

void InodeTable::Bind(InodeId dir, std::string_view name, InodeId inode) {
  ++generation_;
  auto it = entries_.find(KeyView{dir, name});
  InodeId replaced = kNoInode;
  if (it != entries_.end()) {
    if (it->second == inode) return;
    replaced = it->second;
    it->second = inode;
  } else {
    entries_.emplace(Key{dir, std::string(name)}, inode);
    ++nodes_[dir].children;
  }
  Node& n = nodes_[inode];
  if (n.names == 0 || n.parent == kNoInode) {
    n.parent = dir;
    n.name.assign(name);
  } else {
    other_names_[inode].emplace_back(dir, std::string(name));
  }
  ++n.names;
  if (replaced != kNoInode) {
    Node& old = nodes_[replaced];
    --old.names;
    if (old.parent == dir && old.name == name) {
      PromoteOtherName(replaced);
    } else if (auto o = other_names_.find(replaced); o != other_names_.end()) {
      auto& v = o->second;
      v.erase(std::remove_if(v.begin(), v.end(),
                             [&](const auto& p) { return p.first == dir && p.second == name; }),
              v.end());
      if (v.empty()) other_names_.erase(o);
    }
    MaybeFree(replaced);
  }
}

InodeId InodeTable::Unbind(InodeId dir, std::string_view name) {
  auto it = entries_.find(KeyView{dir, name});
  if (it == entries_.end()) return kNoInode;
  ++generation_;
  InodeId id = it->second;
  entries_.erase(it);
  --nodes_[dir].children;
  Node& n = nodes_[id];
  --n.names;
  if (n.parent == dir && n.name == name) {
    PromoteOtherName(id);
  } else if (auto o = other_names_.find(id); o != other_names_.end()) {
    auto& v = o->second;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const auto& p) { return p.first == dir && p.second == name; }),
            v.end());
    if (v.empty()) other_names_.erase(o);
  }
  MaybeFree(id);
  MaybeFree(dir);
  return id;
}

void InodeTable::SetSymlink(InodeId id, std::string_view target, bool learned) {
  const Node::Symlink* old = nodes_[id].symlink.get();
  if (old != nullptr && old->target == target && old->learned == learned) return;  // learned again
  ++generation_;
  nodes_[id].symlink = std::make_unique<Node::Symlink>(Node::Symlink{std::string(target), learned});
}

void InodeTable::Unref(InodeId id) {
  Node& n = nodes_[id];
  if (n.refs > 0) --n.refs;
  MaybeFree(id);
}

bool InodeTable::AppendPath(InodeId id, std::string* out) const {
  for (const PathCacheEntry& e : path_cache_) {
    if (e.id == id && e.generation == generation_) {
      out->append(e.path);
      return true;
    }
  }
  const size_t start = out->size();
  if (!AppendPathUncached(id, out)) return false;
  PathCacheEntry& e = path_cache_[path_cache_next_];
  path_cache_next_ = (path_cache_next_ + 1) % kPathCacheWays;
  e.generation = generation_;
  e.id = id;
  e.path.assign(*out, start);
  return true;
}

bool InodeTable::AppendPathUncached(InodeId id, std::string* out) const {
  if (id == root_) {
    out->push_back('/');
    return true;
  }
  InodeId chain[64];
  std::vector<InodeId> deep;  // only for paths deeper than 64 components
  size_t depth = 0;
  for (InodeId cur = id; cur != root_; cur = nodes_[cur].parent) {
    if (cur == kNoInode || cur == unknown_root_ || !nodes_[cur].alive || depth >= kMaxDepth) {
      return false;
    }
    if (depth < 64) {
      chain[depth] = cur;
    } else {
      if (deep.empty()) deep.assign(chain, chain + 64);
      deep.push_back(cur);
    }
    ++depth;
  }
  for (size_t i = depth; i-- > 0;) {
    out->push_back('/');
    out->append(nodes_[depth > 64 ? deep[i] : chain[i]].name);
  }
  return true;
}

}  // namespace fsmove::analysis
