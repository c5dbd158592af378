#pragma once
// What the code-import tests share: a file imported under a name, and its notes as the CLI
// prints them.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"

namespace pipescope::code::testing {

// A map-style Dataset of a thousand items, the loaders' input in the tests (7 lines).
inline const std::string kThousandItems = R"(import torch
from torch.utils.data import Dataset, DataLoader
class Items(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        return torch.zeros(4)
)";

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
