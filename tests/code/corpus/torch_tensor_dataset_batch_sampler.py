# The workaround of pytorch#4959 ("Speed up data loading for TensorDataset if the underlying dataset supports index by a list of indices"): a BatchSampler as the sampler and batch_size=None, so TensorDataset indexes each tensor once per batch.
import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

xs = torch.randn(100000, 5)
ys = torch.randn(100000)
ds = TensorDataset(xs, ys)
loader = DataLoader(
    ds,
    sampler=BatchSampler(RandomSampler(ds), batch_size=256, drop_last=False),
    batch_size=None,
    num_workers=0,
)
for epoch in range(10):
    for x, y in loader:
        pass
