# pytorch/vision#81 ("load image dataset from list files"): with this ImageFilelist loader,
# "when number of workers are N, every N-th batch takes 10 or more seconds while other batches
# take less time". fmassa (maintainer): each worker builds a whole batch, and the loading is
# slow: make it faster, or use more workers. The Dataset is the issue's; the DataLoader's
# arguments are those of the ImageNet example it was used with. Pipescope, with
# --set loader.cost=156ms (10 s a batch of 64) over 300 s: "each of its 4 workers makes a
# whole batch (20.8 s of work), so the batches come 4 at a time and the step waits 20.7 s
# before every 4th batch" on this machine's two cores; more workers on 16.
import os
import torch
import torch.utils.data as data
import torchvision.transforms as transforms
from PIL import Image


def default_loader(path):
    return Image.open(path).convert('RGB')


def default_flist_reader(flist):
    imlist = []
    with open(flist, 'r') as rf:
        for line in rf.readlines():
            impath, imlabel = line.strip().split()
            imlist.append((impath, int(imlabel)))
    return imlist


class ImageFilelist(data.Dataset):
    def __init__(self, root, flist, transform=None, target_transform=None,
                 flist_reader=default_flist_reader, loader=default_loader):
        self.root = root
        self.imlist = flist_reader(flist)
        self.transform = transform
        self.target_transform = target_transform
        self.loader = loader

    def __getitem__(self, index):
        impath, target = self.imlist[index]
        img = self.loader(os.path.join(self.root, impath))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.imlist)


train_loader = torch.utils.data.DataLoader(
    ImageFilelist(root="../place365_challenge/data_256/", flist="../place365_challenge/places365_train_challenge.txt",
                  transform=transforms.Compose([transforms.RandomSizedCrop(224),
                                                transforms.RandomHorizontalFlip(),
                                                transforms.ToTensor(),
                                                transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                                                     std=[0.229, 0.224, 0.225])])),
    batch_size=64, shuffle=True, num_workers=4, pin_memory=True)

for epoch in range(90):
    for i, (inputs, target) in enumerate(train_loader):
        output = model(inputs.cuda())
        loss = criterion(output, target.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
