# torchmd-net#235 (merged): the Custom dataset's __getitem__ loaded its three .npy files again
# for every item (np.load of the coordinates, embeddings and forces), and raising num_workers
# or the batch did not help; the fix loads the files once, in __init__, and indexes arrays
# in memory. The dataset as it was, with torch's DataLoader.
# pipescope: budget.cpu_cores=8 train_step.step_time=50ms dataset.stop=100000
import glob
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class Custom(Dataset):
    def __init__(self, coordglob, embedglob, forceglob):
        super(Custom, self).__init__()
        self.coordfiles = sorted(glob.glob(coordglob))
        self.embedfiles = sorted(glob.glob(embedglob))
        self.forcefiles = sorted(glob.glob(forceglob))
        self.index = []
        for i in range(len(self.coordfiles)):
            coord_data = np.load(self.coordfiles[i], mmap_mode="r")
            self.index.extend(list(zip([i] * coord_data.shape[0], range(coord_data.shape[0]))))

    def __getitem__(self, idx):
        fileid, index = self.index[idx]
        coord_data = np.array(np.load(self.coordfiles[fileid], mmap_mode="r")[index])
        embed_data = np.load(self.embedfiles[fileid]).astype(int)
        force_data = np.array(np.load(self.forcefiles[fileid], mmap_mode="r")[index])
        return dict(pos=torch.from_numpy(coord_data), z=torch.from_numpy(embed_data),
                    neg_dy=torch.from_numpy(force_data))

    def __len__(self):
        return len(self.index)


data = Custom("coords*.npy", "embeddings*.npy", "forces*.npy")
loader = DataLoader(data, batch_size=1024, shuffle=True, num_workers=4, pin_memory=True)
for epoch in range(100):
    for batch in loader:
        pass
