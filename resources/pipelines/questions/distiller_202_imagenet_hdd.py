# IntelLabs/distiller#202: AlexNet on ImageNet read from a hard disk (Seagate ST2000DM001) with
# 22 loader workers on a 6-core i7-8700: 250 batches of 256 took 11 min 25 s (0.36 steps/s),
# the disk 100% busy and the GPUs and CPU mostly idle. The answer: the disk is the limit
# (lowering the workers was suggested; an SSD is what the asker hoped to avoid). The loader as
# distiller's data_loaders.py builds it.
# pipescope: storage.kind=hdd budget.cpu_cores=6 train_step.step_time=100ms dataset.stop=1281167
import os

import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms


def imagenet_get_datasets(data_dir):
    train_dir = os.path.join(data_dir, 'train')
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                     std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(
        train_dir,
        transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            normalize,
        ]))
    return train_dataset


train_dataset = imagenet_get_datasets("../../../Imagenet")
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=256, shuffle=True,
    num_workers=22, pin_memory=True)

for epoch in range(90):
    for i, (inputs, target) in enumerate(train_loader):
        output = model(inputs.cuda())
        loss = criterion(output, target.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
