#pragma once
// Python source as a syntax tree: tree-sitter's Python grammar (tree-sitter-python 0.21.0,
// compiled in from .deps/, fetched by scripts/setup) over Debian's tree-sitter runtime.
// import-code walks this tree for the subset of Python it reads; nothing here knows tf.data.

#include <tree_sitter/api.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pipescope::code {

// A place in the source, 1-based as editors show it.
struct SourcePoint {
  int line = 0;
  int column = 0;
};

class PythonTree;

// A node of the tree; cheap to copy, valid while its PythonTree lives.
class SyntaxNode {
 public:
  SyntaxNode() = default;
  SyntaxNode(TSNode node, const PythonTree* tree) : node_(node), tree_(tree) {}

  bool null() const { return tree_ == nullptr || ts_node_is_null(node_); }
  std::string_view type() const { return null() ? std::string_view() : ts_node_type(node_); }
  bool Is(std::string_view t) const { return type() == t; }
  std::string_view text() const;
  SourcePoint start() const;
  size_t start_byte() const { return ts_node_start_byte(node_); }
  size_t end_byte() const { return ts_node_end_byte(node_); }

  SyntaxNode field(const char* name) const;
  std::vector<SyntaxNode> named_children() const;
  // Every child, the grammar's tokens too (a comparison's `==`, a slice's colons).
  std::vector<SyntaxNode> children() const;
  // Named children without comments, which the grammar lets appear anywhere.
  std::vector<SyntaxNode> code_children() const;
  SyntaxNode parent() const;

 private:
  std::vector<SyntaxNode> ChildrenOf(bool named_only) const;

  TSNode node_{};
  const PythonTree* tree_ = nullptr;
};

// A problem of the syntax itself: where it is and what the parser expected.
struct SyntaxProblem {
  SourcePoint at;
  std::string message;
};

class PythonTree {
 public:
  explicit PythonTree(std::string source);
  ~PythonTree();
  PythonTree(const PythonTree&) = delete;
  PythonTree& operator=(const PythonTree&) = delete;

  SyntaxNode root() const;
  const std::string& source() const { return source_; }
  // Every ERROR and MISSING node, in source order. A file with a few of them still yields
  // what its well-formed statements say.
  std::vector<SyntaxProblem> Problems() const;

 private:
  std::string source_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
};

// Whether `node`'s own code yields (a generator's body): a yield in it, not in a def, lambda
// or class inside it.
bool HoldsYield(const SyntaxNode& node);

}  // namespace pipescope::code
