#pragma once
// Keras's ImageDataGenerator and the Sequences its flow() and flow_from_directory() make,
// added to the Keras dialect (keras_image_generator.cc).

#include <cstdint>
#include <string>

#include "app/code/python_reader.h"

namespace pipescope::code {

void AddImageDataGenerator(Dialect& keras);

// datagen.random_transform(x) called by the code itself (a Sequence's __getitem__ augmenting
// each sample, keras#12120): one sample's transform, as flow() costs it, on x's side where the
// code shows x's shape, else on the small in-memory images Keras's examples augment. `part`
// says what it costs, for the note.
int64_t RandomTransformNs(const Value& generator, const Value* image, std::string& part);

}  // namespace pipescope::code
