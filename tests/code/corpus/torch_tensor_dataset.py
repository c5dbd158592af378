# In-memory tensors wrapped in a TensorDataset and loaded in shuffled batches by worker processes (the pattern of PyTorch's "DataLoader with TensorDataset is slow" questions), NumPy arrays converted on the way.
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

features = torch.from_numpy(np.random.rand(50000, 3, 32, 32).astype(np.float32))
labels = torch.randint(0, 10, (50000,))
train_set = TensorDataset(features, labels)
train_loader = DataLoader(train_set, batch_size=128, shuffle=True,
                          num_workers=4, pin_memory=True)

for epoch in range(10):
    for x, y in train_loader:
        loss = step(x.cuda(), y.cuda())
