# From PyTorch's tutorial "Writing Custom Datasets, DataLoaders and Transforms" (its "Iterating through the dataset" part), with an aliased import and comments inside the call.
import torch
from torch.utils.data import DataLoader as TorchLoader
from torch.utils.data import Dataset


class ImageNetShard(Dataset):
    def __init__(self, root):
        self.root = root

    def __len__(self):
        return 1281167

    def __getitem__(self, idx):
        return torch.zeros(3, 224, 224), idx % 1000


dataset = ImageNetShard("/data/imagenet/train")
train_loader = TorchLoader(
    dataset,           # the map-style dataset
    batch_size=256,    # per GPU
    shuffle=True,
    num_workers=16,
    pin_memory=True,
    drop_last=False,
    in_order=False,    # hand out whichever batch is ready first
)

for epoch in range(90):
    for images, target in train_loader:
        pass
