# A Dataset of its own over tensors held in memory, as people write it before they meet TensorDataset (pytorch#106704 asks why loading it is slower than the model): __init__ keeps the arrays, __len__ is len(self.x), __getitem__ returns a row of each.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class TabularDataset(Dataset):
    def __init__(self, n=200000):
        self.features = torch.from_numpy(np.random.rand(n, 32).astype(np.float32))
        self.labels = torch.randint(0, 5, (n,))

    def __len__(self):
        return len(self.features)

    def __getitem__(self, idx):
        return {"x": self.features[idx], "y": self.labels[idx]}


train_loader = DataLoader(TabularDataset(), batch_size=512, shuffle=True, num_workers=4,
                          pin_memory=True)
for epoch in range(20):
    for batch in train_loader:
        pass
