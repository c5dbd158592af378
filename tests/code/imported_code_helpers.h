#pragma once
// What the code-import tests share: a file imported under a name, and its notes as the CLI
// prints them.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"

namespace pipescope::code::testing {

inline ImportedCode ImportAs(const std::string& source, const std::string& origin) {
  auto c = ImportCode(source, origin);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : ImportedCode{};
}

inline std::string NotesAs(const ImportedCode& c, const std::string& origin) {
  std::string all;
  for (const auto& n : c.notes) all += FormatNote(origin, n) + "\n";
  return all;
}

}  // namespace pipescope::code::testing
