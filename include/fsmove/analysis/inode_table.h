// The interpreter's model of the file system namespace: inodes named by (parent inode, name),
// as in the paper's Figure 7. Paths are resolved through inodes, so a rename moves a whole
// subtree and an open directory keeps working after it was renamed or deleted.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fsmove/base/byte_hash.h"

namespace fsmove::analysis {

using InodeId = uint32_t;
inline constexpr InodeId kNoInode = 0;

class InodeTable {
 public:
  InodeTable();
  InodeTable(const InodeTable&) = delete;
  InodeTable& operator=(const InodeTable&) = delete;

  InodeId root() const { return root_; }
  // A directory outside the known tree, standing for a working directory we never saw set.
  // Paths below it cannot be named absolutely.
  InodeId unknown_root() const { return unknown_root_; }

  InodeId Lookup(InodeId dir, std::string_view name) const;
  // The model learns names lazily: a name never seen is taken to exist.
  InodeId LookupOrCreate(InodeId dir, std::string_view name);
  // Makes dir/name refer to `inode`; whatever it named before loses that name.
  void Bind(InodeId dir, std::string_view name, InodeId inode);
  // Removes dir/name and returns the inode it named (kNoInode if none). The inode lives on
  // while file descriptors or working directories refer to it.
  InodeId Unbind(InodeId dir, std::string_view name);
  // A fresh inode with no name (e.g. O_TMPFILE), alive while referenced.
  InodeId NewAnonymous();

  InodeId parent(InodeId id) const { return nodes_[id].parent; }
  std::string_view name(InodeId id) const { return nodes_[id].name; }
  bool has_children(InodeId id) const { return nodes_[id].children > 0; }

  // `learned`: a symlink that existed before the trace, seen through readlink (as opposed to
  // one the trace created). Only learned symlinks are used to canonicalise recorded paths.
  void SetSymlink(InodeId id, std::string_view target, bool learned = false);
  const std::string* symlink(InodeId id) const {
    return nodes_[id].symlink ? &nodes_[id].symlink->target : nullptr;
  }
  bool symlink_learned(InodeId id) const {
    return nodes_[id].symlink && nodes_[id].symlink->learned;
  }

  // References from file descriptors, working directories and roots.
  void Ref(InodeId id) { ++nodes_[id].refs; }
  void Unref(InodeId id);

  // Appends the absolute path of `id` (through its current name) to `out`. Returns false if
  // the inode has no name any more or lies below the unknown root.
  bool AppendPath(InodeId id, std::string* out) const;

  size_t live_inodes() const { return nodes_.size() - 1 - free_.size(); }

  // Counts the changes that can change what an existing path resolves to or how an inode is
  // named: a name bound (other than LookupOrCreate's new name for a new inode), unbound or
  // replaced, a symlink set to another target, an inode freed (its id may come back). A
  // resolution or a path remembered at one generation holds while it is unchanged.
  uint64_t generation() const { return generation_; }

 private:
  struct Node {
    InodeId parent = kNoInode;  // of the primary name
    uint32_t refs = 0;
    uint32_t names = 0;     // directory entries naming this inode
    uint32_t children = 0;  // directory entries inside this inode
    bool alive = false;
    std::string name;  // primary name
    struct Symlink {
      std::string target;
      bool learned;
    };
    std::unique_ptr<Symlink> symlink;
  };
  struct Key {
    InodeId dir;
    std::string name;
  };
  struct KeyView {
    InodeId dir;
    std::string_view name;
  };
  // A key whose hash is known (LookupOrCreate's, after its cache missed): not hashed again.
  struct HashedKeyView {
    InodeId dir;
    std::string_view name;
    size_t hash;  // KeyHash::Hash(dir, name)
  };
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(const Key& k) const { return Hash(k.dir, k.name); }
    size_t operator()(const KeyView& k) const { return Hash(k.dir, k.name); }
    size_t operator()(const HashedKeyView& k) const { return k.hash; }
    static size_t Hash(InodeId dir, std::string_view name) { return base::HashBytes(name, dir); }
  };
  struct KeyEq {
    using is_transparent = void;
    static KeyView View(const Key& k) { return {k.dir, k.name}; }
    static KeyView View(const KeyView& k) { return k; }
    static KeyView View(const HashedKeyView& k) { return {k.dir, k.name}; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      KeyView x = View(a), y = View(b);
      return x.dir == y.dir && x.name == y.name;
    }
  };

  InodeId Allocate();
  void MaybeFree(InodeId id);
  // Another name of a hard-linked inode, to become its primary name.
  void PromoteOtherName(InodeId id);

  // AppendPath's last answers (the directories that most calls name again), valid at
  // `generation`.
  struct PathCacheEntry {
    uint64_t generation = UINT64_MAX;
    InodeId id = kNoInode;
    std::string path;
  };
  static constexpr size_t kPathCacheWays = 4;
  mutable PathCacheEntry path_cache_[kPathCacheWays];
  mutable size_t path_cache_next_ = 0;
  bool AppendPathUncached(InodeId id, std::string* out) const;

  // LookupOrCreate's last answers, one slot per hash (direct-mapped): calls name the same
  // files again and again, and this is cheaper than entries_' probe (absl's, hardened). A slot
  // holds at its generation while the inode's primary name is still the one looked up (a
  // hard link's other name is found in entries_).
  struct LookupCacheEntry {
    size_t hash = 0;
    uint64_t generation = UINT64_MAX;
    InodeId dir = kNoInode;
    InodeId inode = kNoInode;
  };
  static constexpr size_t kLookupCacheSlots = 1024;
  LookupCacheEntry lookup_cache_[kLookupCacheSlots];

  uint64_t generation_ = 0;
  std::deque<Node> nodes_;  // index 0 unused
  std::vector<InodeId> free_;
  absl::flat_hash_map<Key, InodeId, KeyHash, KeyEq> entries_;
  // Secondary names of hard-linked inodes (rare), so that a primary name can be replaced.
  absl::flat_hash_map<InodeId, std::vector<std::pair<InodeId, std::string>>> other_names_;
  InodeId root_ = kNoInode;
  InodeId unknown_root_ = kNoInode;
};

}  // namespace fsmove::analysis
