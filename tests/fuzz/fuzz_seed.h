#pragma once
// The input a fuzz target's mutations start from. Each target links its own definition:
// trace_fuzz_seed.cc (a small but complete .pstrace) or tfrecord_fuzz_seed.cc (a TFRecord
// file of tf.train.Examples).

#include <string>

namespace pipescope::fuzz {

std::string FuzzSeed();

}  // namespace pipescope::fuzz
