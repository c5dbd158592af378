#pragma once
// TensorFlow work the code does on a pipeline's elements after the pipeline hands them over:
// a TF 1 graph built on `iterator.get_next()` (seed 001's iterator_to_data: decode_raw,
// reshape, stack, ... on every batch), or a TF 2 loop that transforms each batch before its
// step (`for x, y in ds: x = tf.image.resize(x, ...)`). That work runs in the training loop,
// one batch at a time and beside nothing, where a map in the pipeline runs in parallel ahead
// of the step; the spec has no place for it, so import-code says so.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/code/python_tree.h"

namespace pipescope::code {

// Names of the code's, looked up by a view of the source's text without a copy.
using Names = std::set<std::string, std::less<>>;

struct WorkAfterPipeline {
  SourcePoint at;                // the first such op
  std::vector<std::string> ops;  // their names as the code calls them (`decode_raw`), in order
};

// The TensorFlow ops (calls of `tf.` or `tensorflow.`, but for logging, scopes, devices and
// tapes) that `statements` apply to `names` (an element's parts) or to what is computed from
// them by TensorFlow ops alone; `with` blocks are looked into. An assignment that calls
// anything else (`logits = model(x)`), or TensorFlow's layers, losses and optimizers
// (`tf.layers.dense(x, 10)`), is the model's, and what it binds is not followed.
// nullopt where there are none.
std::optional<WorkAfterPipeline> TensorFlowWorkOn(const std::vector<SyntaxNode>& statements,
                                                  Names names);

// The statements after `statement` in the block that holds it, then after each `with` around
// it, in the order they run.
std::vector<SyntaxNode> StatementsAfter(const SyntaxNode& statement);

// The names an assignment's left side binds (`x`, `a, b`, `(a, b)`); empty for another node.
Names NamesBound(const SyntaxNode& left);

// The note import-code gives: `ops` (work.ops) are the code's, `where` says what hands them
// the elements ("after get_next()", "in the training loop").
std::string WorkAfterPipelineNote(const WorkAfterPipeline& work, const std::string& where);

}  // namespace pipescope::code
