#pragma once
// Keras's ImageDataGenerator and the Sequences its flow() and flow_from_directory() make,
// added to the Keras dialect (keras_image_generator.cc).

#include "app/code/python_reader.h"

namespace pipescope::code {

void AddImageDataGenerator(Dialect& keras);

}  // namespace pipescope::code
