# pytorch#131931 (open): with the "spawn" start method and num_workers > 0, making the
# DataLoader's iterator is very slow. The main process starts each worker in turn, and where
# the pickled dataset is larger than a pipe's buffer, Process.start() waits until the worker
# has started, imported the script and read the dataset before the next one starts; more
# workers compound it (pytorch#139792, #153594 on Windows, where spawn is the default). A
# dataset that keeps its array in memory, as people write it, iterated again every epoch
# without persistent_workers. The array's size is the file's: set here, as a user would.
# pipescope: loader.dataset_bytes=2GB dataset.stop=500000 train_step.step_time=20ms budget.cpu_cores=8
import numpy as np
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, path):
        self.x = np.load(path)  # (500000, 1024) float32

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i])


def train(model, optimizer):
    loader = DataLoader(Features("features.npy"), batch_size=256, shuffle=True, num_workers=8)
    for epoch in range(20):
        for x in loader:
            loss = model(x.cuda()).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    mp.set_start_method("spawn")
    model = torch.nn.Linear(1024, 1).cuda()
    train(model, torch.optim.SGD(model.parameters(), lr=0.01))
