#pragma once
// Python source as a syntax tree: tree-sitter's Python grammar (tree-sitter-python 0.21.0,
// compiled in from .deps/, fetched by scripts/setup) over Debian's tree-sitter runtime.
// import-code walks this tree for the subset of Python it reads; nothing here knows tf.data.
//
// The parse is copied once into a flat array of nodes in source order (PythonTree::Node), and
// tree-sitter's tree is freed: the reader asks for a node's children and fields many times
// over, and tree-sitter answers each by walking its subtrees again (a third of import-code's
// instructions went there). A node here is an index; its children, fields and subtree are
// links and ranges in the array.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pipescope::code {

// A place in the source, 1-based as editors show it. `file` is null in the file import-code
// reads, and a module it imports is named by its path from that file's folder ("utils.py"),
// interned (InternedFileName) so that a place stays a few words, cheap to copy.
struct SourcePoint {
  int line = 0;
  int column = 0;
  const char* file = nullptr;
  std::string_view file_name() const { return file ? std::string_view(file) : std::string_view(); }
};

// The one copy of `name`, alive as long as the process: modules' names are few.
const char* InternedFileName(const std::string& name);

class PythonTree;

// A node of the tree; cheap to copy, valid while its PythonTree lives.
class SyntaxNode {
 public:
  SyntaxNode() = default;
  SyntaxNode(uint32_t index, const PythonTree* tree) : index_(index), tree_(tree) {}

  bool null() const { return tree_ == nullptr; }
  std::string_view type() const;
  bool Is(std::string_view t) const { return type() == t; }
  std::string_view text() const;
  SourcePoint start() const;
  size_t start_byte() const;
  // Which file the node is in: empty for the file read, else a module it imports.
  std::string_view file() const;
  // The node's place, unique across the file and the modules it imports (a def's key where
  // what the reader learns of it is kept).
  size_t key() const;
  size_t end_byte() const;

  SyntaxNode field(const char* name) const;
  std::vector<SyntaxNode> named_children() const;
  // Every child, the grammar's tokens too (a comparison's `==`, a slice's colons).
  std::vector<SyntaxNode> children() const;
  // Named children without comments, which the grammar lets appear anywhere.
  std::vector<SyntaxNode> code_children() const;
  SyntaxNode parent() const;

  const PythonTree* tree() const { return tree_; }
  uint32_t index() const { return index_; }

 private:
  uint32_t index_ = 0;
  const PythonTree* tree_ = nullptr;
};

// A problem of the syntax itself: where it is and what the parser expected.
struct SyntaxProblem {
  SourcePoint at;
  std::string message;
};

class PythonTree {
 public:
  // `file`: empty for the file import-code reads, else an imported module's path from that
  // file's folder; `key_base`: what SyntaxNode::key adds to the node's start byte, one apart
  // for each tree of a reading.
  explicit PythonTree(std::string source, const std::string& file = {}, size_t key_base = 0);
  ~PythonTree();
  PythonTree(const PythonTree&) = delete;
  PythonTree& operator=(const PythonTree&) = delete;

  SyntaxNode root() const;
  const std::string& source() const { return source_; }
  std::string_view file() const { return file_ ? std::string_view(file_) : std::string_view(); }
  const char* interned_file() const { return file_; }
  size_t key_base() const { return key_base_; }
  // Every ERROR and MISSING node, in source order. A file with a few of them still yields
  // what its well-formed statements say.
  const std::vector<SyntaxProblem>& Problems() const { return problems_; }

  static constexpr uint32_t kNone = UINT32_MAX;
  // One node of the parse, named or a token. Nodes are in pre-order (source order), so a
  // node's subtree is the range [its index, subtree_end).
  struct Node {
    uint32_t start_byte = 0, end_byte = 0;
    uint32_t row = 0, column = 0;  // 0-based, as tree-sitter counts them
    uint32_t parent = kNone, first_child = kNone, next_sibling = kNone;
    uint32_t subtree_end = 0;
    uint16_t symbol = 0;  // the grammar's symbol, after aliases: indexes its type names
    uint16_t field = 0;   // the field this node fills in its parent; 0 for none
    bool named = false;
  };
  const Node& node(uint32_t index) const { return nodes_[index]; }

 private:
  std::string source_;
  const char* file_ = nullptr;  // InternedFileName's; null for the file read
  size_t key_base_ = 0;
  std::vector<Node> nodes_;  // empty when the parser gave no tree
  std::vector<SyntaxProblem> problems_;
};

// Whether `node` or a node under it, named or not, satisfies `test`: one walk with a cursor,
// nothing allocated per node, stopping at the first that does.
bool AnyNodeWithin(const SyntaxNode& node, const std::function<bool(const SyntaxNode&)>& test);

// Whether `node`'s own code yields (a generator's body): a yield in it, not in a def, lambda
// or class inside it.
bool HoldsYield(const SyntaxNode& node);

// Whether one of `body`'s statements is a `while True:` (or `while 1:`) that yields and never
// leaves (no break or return of its own): a generator that never ends (an IterableDataset's
// random samples drawn forever, pytorch#81412; tensorflow#37045's from_generator).
bool YieldsInAnEndlessLoop(const SyntaxNode& body);

}  // namespace pipescope::code
