// Follows each value derived from the worker's info up the syntax tree until it reaches a
// call, a keyword argument or a name it is bound to. A seed (random.seed(info.id),
// np.random.default_rng(info.seed), seed=worker_id) is a seed; a None check is neither; a
// name it is assigned to is followed in turn; anything else (range, islice, arithmetic
// returned, an attribute of the replica written) configures the replica.

#include "app/code/worker_info_use.h"

#include <array>
#include <string>

namespace pipescope::code {

namespace {

// Names are followed this many assignments deep; beyond, a value is taken as configuring.
constexpr int kDeepestFollow = 4;

// Calls and keywords that take a seed: Python's random, numpy's and torch's generators.
constexpr std::array<std::string_view, 12> kSeedingCalls = {
    "seed",      "manual_seed",  "set_seed", "default_rng", "RandomState", "Random",
    "Generator", "SeedSequence", "PCG64",    "Philox",      "MT19937",     "SFC64"};
constexpr std::array<std::string_view, 3> kSeedingKeywords = {"seed", "random_state", "generator"};

bool Same(const SyntaxNode& a, const SyntaxNode& b) {
  return !a.null() && !b.null() && a.start_byte() == b.start_byte() &&
         a.end_byte() == b.end_byte() && a.type() == b.type();
}

bool OneOf(std::string_view name, auto const& names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// The last name of a callee: "seed" for np.random.seed, "get_worker_info" for
// torch.utils.data.get_worker_info.
std::string_view Tail(const SyntaxNode& callee) {
  if (callee.Is("identifier")) return callee.text();
  if (callee.Is("attribute")) return callee.field("attribute").text();
  return {};
}

bool IsNone(const SyntaxNode& node) { return node.Is("none"); }

WorkerInfoUse UsesOfName(const SyntaxNode& scope, std::string_view name, int depth);

// Where the value at `use` goes.
WorkerInfoUse UseAt(const SyntaxNode& scope, const SyntaxNode& use, int depth) {
  SyntaxNode child = use;
  for (SyntaxNode up = use.parent(); !up.null() && !Same(up, scope); child = up, up = up.parent()) {
    if (up.Is("call")) {
      // A method of the value called (info.dataset.configure(...)) configures; a value
      // passed to a seeding call seeds.
      if (Same(up.field("function"), child)) return WorkerInfoUse::kSplits;
      return OneOf(Tail(up.field("function")), kSeedingCalls) ? WorkerInfoUse::kSeedsOnly
                                                              : WorkerInfoUse::kSplits;
    }
    if (up.Is("keyword_argument")) {
      if (OneOf(up.field("name").text(), kSeedingKeywords)) return WorkerInfoUse::kSeedsOnly;
      continue;  // the call above says
    }
    if (up.Is("comparison_operator")) {
      // `info is None`, `info is not None`: whether there are workers, not which one.
      for (const SyntaxNode& operand : up.named_children()) {
        if (IsNone(operand)) return WorkerInfoUse::kNone;
      }
      return WorkerInfoUse::kSplits;
    }
    if (up.Is("not_operator")) return WorkerInfoUse::kNone;
    if ((up.Is("if_statement") || up.Is("elif_clause") || up.Is("while_statement")) &&
        Same(up.field("condition"), child)) {
      return WorkerInfoUse::kNone;
    }
    if (up.Is("assignment")) {
      const SyntaxNode left = up.field("left");
      if (!Same(up.field("right"), child) || !left.Is("identifier") || depth >= kDeepestFollow) {
        return WorkerInfoUse::kSplits;
      }
      return UsesOfName(scope, left.text(), depth + 1);
    }
    if (up.Is("expression_statement") || up.Is("return_statement") || up.Is("block") ||
        up.Is("for_statement") || up.Is("yield") || up.Is("lambda")) {
      return WorkerInfoUse::kSplits;
    }
  }
  return WorkerInfoUse::kSplits;
}

// A name as a value read: not a parameter's declaration, not the target of an assignment,
// not an attribute's or keyword's own name (x.info, info=...).
bool IsRead(const SyntaxNode& id) {
  const SyntaxNode up = id.parent();
  if (up.Is("attribute")) return !Same(up.field("attribute"), id);
  if (up.Is("keyword_argument")) return !Same(up.field("name"), id);
  if (up.Is("assignment")) return !Same(up.field("left"), id);
  if (up.Is("parameters") || up.Is("lambda_parameters") || up.Is("default_parameter") ||
      up.Is("typed_parameter")) {
    return false;
  }
  return true;
}

void Visit(const SyntaxNode& node, auto const& each) {
  each(node);
  for (const SyntaxNode& child : node.named_children()) Visit(child, each);
}

WorkerInfoUse UsesOfName(const SyntaxNode& scope, std::string_view name, int depth) {
  WorkerInfoUse use = WorkerInfoUse::kNone;
  Visit(scope, [&](const SyntaxNode& node) {
    if (use != WorkerInfoUse::kSplits && node.Is("identifier") && node.text() == name &&
        IsRead(node)) {
      use = Stronger(use, UseAt(scope, node, depth));
    }
  });
  return use;
}

}  // namespace

WorkerInfoUse Stronger(WorkerInfoUse a, WorkerInfoUse b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

bool SharesEveryNth(const SyntaxNode& scope) {
  bool strided = false;
  Visit(scope, [&](const SyntaxNode& node) {
    if (node.Is("call") && Tail(node.field("function")) == "islice") strided = true;
    // index % info.num_workers: an item is a worker's by its remainder.
    if (node.Is("binary_operator") && node.field("operator").text() == "%" &&
        Tail(node.field("right")) == "num_workers") {
      strided = true;
    }
    // start:stop:step: a slice with two colons and something after the second.
    if (node.Is("slice")) {
      int colons = 0;
      bool after_second = false;
      for (const SyntaxNode& part : node.children()) {
        if (part.text() == ":") {
          ++colons;
        } else if (colons == 2) {
          after_second = true;
        }
      }
      if (after_second) strided = true;
    }
  });
  return strided;
}

std::string_view FirstParameter(const SyntaxNode& function) {
  for (const SyntaxNode& p : function.field("parameters").named_children()) {
    if (p.Is("identifier")) return p.text();
    if (const SyntaxNode name = p.field("name"); name.Is("identifier")) return name.text();
    return {};
  }
  return {};
}

WorkerInfoUse UseOfWorkerInfo(const SyntaxNode& scope, std::string_view parameter) {
  WorkerInfoUse use = WorkerInfoUse::kNone;
  Visit(scope, [&](const SyntaxNode& node) {
    if (use != WorkerInfoUse::kSplits && node.Is("call") &&
        Tail(node.field("function")) == "get_worker_info") {
      use = Stronger(use, UseAt(scope, node, 0));
    }
  });
  if (!parameter.empty()) use = Stronger(use, UsesOfName(scope, parameter, 0));
  return use;
}

}  // namespace pipescope::code
