#pragma once
// What a filter's predicate keeps, read from its code, and the same predicate written as a
// mask over a batch's rows (a filter vectorised: batch, a map of tf.boolean_mask, unbatch):
//   - a uniform draw below a share (`tf.random.uniform([]) < 0.01`): that random share;
//   - `x % m == r` (or `not x % m`): the elements whose value is r modulo m (spec ModEquals),
//     which tensorflow#67330's `x % 2 == 0` keeps half of;
//   - anything else: every element, until the share it keeps is set.

#include <optional>
#include <string>

#include "app/code/python_reader.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

// `x % m == r`, `r == x % m` or `not x % m`, for integer constants m > 0 and r; nullopt for
// any other condition.
std::optional<spec::ModEquals> ModuloCondition(const SyntaxNode& condition);

// The expression a function returns: a lambda's body, or that of a def whose body is one
// return statement (a docstring before it allowed); null for any other function.
SyntaxNode ReturnedExpression(const Value& fn);

struct PredicateRead {
  spec::Predicate predicate;  // a keep_fraction of 1 where the code does not say
  bool known = false;         // the code says what it keeps
};

// What the filter function `fn` keeps.
PredicateRead ReadPredicate(PythonReader& r, const Value* fn);

// A map's function that keeps some of each batch's rows, `lambda x: tf.boolean_mask(x, M)`:
// what M keeps, and the name a filter of it takes (the predicate function's where M calls
// one, "sample" for a uniform draw, else "filter"); nullopt for any other function.
struct MaskedRows {
  PredicateRead kept;
  std::string name;
};
std::optional<MaskedRows> RowsMasked(PythonReader& r, const Value* fn);

}  // namespace pipescope::code
